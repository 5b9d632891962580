package daemon

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"askuser/daemon/pendingfile"
	"askuser/socketproto"
	"askuser/tests/testdaemon"

	"github.com/fsnotify/fsnotify"
)

// benchDaemon runs a daemon in-process on a temporary socket and state dir;
// stop ends it and removes the directory, so that a run of many iterations
// does not keep every iteration's journal on disk.
func benchDaemon(b *testing.B) (sock, pending string, stop func()) {
	b.Helper()
	dir := testdaemon.ShortRoot(b)
	sock, stopDaemon := daemonAt(b, dir, nil)
	pending = filepath.Join(dir, "state", "pending-questions.json")
	stop = func() {
		stopDaemon()
		os.RemoveAll(dir)
	}
	return sock, pending, stop
}

// waitListed waits until the pending file lists exactly ids, looking again
// at each change inotify reports in its directory (the daemon renames its
// rewrites onto it), so that the wait ends with the rewrite.
func waitListed(b *testing.B, path string, ids ...string) *pendingfile.File {
	b.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(filepath.Dir(path)); err != nil {
		b.Fatal(err)
	}
	safety := time.After(testdaemon.Settle)
	for {
		data, err := os.ReadFile(path)
		if err == nil {
			if f, err := pendingfile.Parse(data); err == nil && slices.Equal(listedIDs(f), ids) {
				return f
			}
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			b.Fatalf("watching %s: %v", path, err)
		case <-safety:
			b.Fatalf("waited %v for the pending file to list %q; last saw: %v\n%.300s", testdaemon.Settle, ids, err, data)
		}
	}
}

func listedIDs(f *pendingfile.File) []string {
	ids := make([]string, len(f.Requests))
	for i, r := range f.Requests {
		ids[i] = r.RequestID
	}
	return ids
}

// BenchmarkPendingFileSave measures, for each save, the time from the
// editor's save returning to the waiting agent holding its result, over the
// real socket and the real file. Run it as
//
//	go test -run '^$' -bench PendingFileSave -benchtime 1000x ./daemon/
func BenchmarkPendingFileSave(b *testing.B) {
	for _, mode := range []string{"rename", "in-place"} {
		b.Run(mode, func(b *testing.B) {
			sock, path, stop := benchDaemon(b)
			defer stop()
			c, err := socketproto.Dial(sock, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			q := socketproto.Question{Question: "Which database?", Options: []socketproto.Option{{Label: "PostgreSQL"}, {Label: "SQLite"}}}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				id := "bench-" + strconv.Itoa(i)
				if err := c.Send(socketproto.AskUserRequest{Request: socketproto.Request{RequestID: id, Questions: []socketproto.Question{q}}}); err != nil {
					b.Fatal(err)
				}
				f := waitListed(b, path, id)
				f.Requests[0].Questions[0].Answer = json.RawMessage(`"SQLite"`)
				data, _ := json.MarshalIndent(f, "", "  ")
				b.StartTimer()
				start := save(b, path, data, mode)
				for {
					m, err := c.Recv()
					if err != nil {
						b.Fatal(err)
					}
					if r, ok := m.(socketproto.Response); ok {
						if r.AnsweredVia != socketproto.ViaFile {
							b.Fatalf("answered via %q", r.AnsweredVia)
						}
						break
					}
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// save writes data the way an editor does and returns when that returned.
func save(b *testing.B, path string, data []byte, mode string) time.Time {
	if mode == "rename" {
		tmp := path + ".swp"
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			b.Fatal(err)
		}
		return time.Now()
	}
	if err := os.WriteFile(path, data, 0o600); err != nil { // O_TRUNC, write, close
		b.Fatal(err)
	}
	return time.Now()
}

// BenchmarkPendingFileBurst asks 10,000 requests as fast as one connection
// can send them, and counts the daemon's rewrites of the file (renames onto
// it, as inotify sees them) until the file lists them all; catch-up is the
// time from the last request queued to the file listing it.
//
//	go test -run '^$' -bench PendingFileBurst -benchtime 1x ./daemon/
func BenchmarkPendingFileBurst(b *testing.B) {
	const n = 10000
	for range b.N {
		sock, path, stop := benchDaemon(b)
		waitListed(b, path) // the first, empty file
		w, err := fsnotify.NewWatcher()
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Add(filepath.Dir(path)); err != nil {
			b.Fatal(err)
		}
		// Count rewrites as they happen, and note when the file first
		// lists all n requests (a cheap count, not a parse: the daemon's
		// CPU is what is measured).
		type seen struct {
			rewrites int
			at       time.Time
		}
		full := make(chan seen, 1)
		go func() {
			rewrites := 0
			for ev := range w.Events {
				if ev.Name != path || !ev.Has(fsnotify.Create) {
					continue
				}
				rewrites++
				if data, err := os.ReadFile(path); err == nil && bytes.Count(data, []byte(`"requestId": "burst-`)) == n {
					full <- seen{rewrites, time.Now()}
					return
				}
			}
		}()
		c, err := socketproto.Dial(sock, 0)
		if err != nil {
			b.Fatal(err)
		}
		q := []socketproto.Question{{Question: "Which database?", Options: []socketproto.Option{{Label: "PostgreSQL"}, {Label: "SQLite"}}}}
		parked := false
		start := time.Now()
		go func() {
			for i := range n {
				_ = c.Send(socketproto.AskUserRequest{Request: socketproto.Request{RequestID: "burst-" + strconv.Itoa(i), Questions: q}, Wait: &parked})
			}
		}()
		for range n {
			m, err := c.Recv()
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := m.(socketproto.Queued); !ok {
				b.Fatalf("got %#v", m)
			}
		}
		lastAck := time.Now()
		var got seen
		select {
		case got = <-full:
		case <-time.After(30 * time.Second):
			b.Fatal("the file never listed every request")
		}
		info, _ := os.Stat(path)
		b.ReportMetric(float64(got.rewrites), "rewrites")
		b.ReportMetric(float64(lastAck.Sub(start).Milliseconds()), "burst-ms")
		b.ReportMetric(float64(max(0, got.at.Sub(lastAck).Milliseconds())), "catch-up-ms")
		b.ReportMetric(float64(info.Size())/(1<<20), "file-MiB")
		w.Close()
		c.Close()
		stop()
	}
}
