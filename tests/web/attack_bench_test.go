package web

import (
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"askuser/tests/testdaemon"
	"askuser/tests/testdir"
	"askuser/tests/webpane"
)

// BenchmarkWebAttacks makes the attacks of bounds_test.go on a build
// of askuserd without the race detector, each on a fresh `askuserd web`
// (run with 256 descriptors), and reports what it held and how long a
// logged-in request took meanwhile:
//
//	go test -run '^$' -bench WebAttacks -benchtime 1x ./tests
//
//	idle-rss-KiB          askuserd web logged in, before any attack
//	headers-grew-KiB      150 connections send 1016 KiB of headers each
//	bodies-grew-KiB       150 logins send half of a 1 MiB body and stop
//	flood-grew-KiB        3,000 connections that never finish their headers
//	streams-grew-KiB      24 unread event streams of one session, 200 views
//	                      of a 900 KB request
//	*-authed-ms           GET /api/session (logged in, on a new connection)
//	                      during that attack; -1 when it failed (10 s)
//
// "grew" is the most resident memory during the attack (VmHWM) less the
// resident memory before it (VmRSS).
func BenchmarkWebAttacks(b *testing.B) {
	dir := b.TempDir()
	if err := testdaemon.Build(dir, false, "askuser/cmd/askuserd"); err != nil {
		b.Fatal(err)
	}
	exe := filepath.Join(dir, "askuserd-lowfd")
	script := "#!/bin/sh\nulimit -n 256 || exit 97\nexec " + filepath.Join(dir, "askuserd") + " \"$@\"\n"
	testdir.WriteExecutable(b, exe, []byte(script), 0o700)
	e := benchEnv(b)
	daemon := exec.Command(filepath.Join(dir, "askuserd"), "serve")
	daemon.Env = e.Environ()
	if err := daemon.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = daemon.Process.Signal(syscall.SIGTERM); _ = daemon.Wait() })
	waitSocket(b, e.Socket)
	parkBig(b, e, "req-big")

	attacks := []struct {
		name string
		run  func(w *webpane.Server, tok string)
	}{
		{"headers", func(w *webpane.Server, _ string) { attackHeaders(b, w, 150) }},
		{"bodies", func(w *webpane.Server, _ string) { attackBodies(b, w, 150) }},
		{"flood", func(w *webpane.Server, _ string) { attackFlood(b, w, 3000) }},
		{"streams", func(w *webpane.Server, tok string) { attackStreams(b, w, tok, 24, 200) }},
	}
	for range b.N {
		for _, a := range attacks {
			w := webpane.StartWith(b, e, exe, "127.0.0.1:0")
			_, tok := w.HTTPClient()
			if a.name == "headers" {
				b.ReportMetric(float64(procKiB(b, w.Pid, "VmRSS")), "idle-rss-KiB")
			}
			before := procKiB(b, w.Pid, "VmRSS")
			a.run(w, tok)
			b.ReportMetric(authedMS(tok, w.Base), a.name+"-authed-ms")
			b.ReportMetric(float64(procKiB(b, w.Pid, "VmHWM")-before), a.name+"-grew-KiB")
			w.Stop()
		}
	}
}

// authedMS is how long a logged-in GET /api/session takes on a new
// connection, as a page that arrives during the attack makes it; -1 when
// it fails.
func authedMS(tok, base string) float64 {
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Timeout: 10 * time.Second, Transport: tr}
	req, _ := http.NewRequest("GET", base+"api/session", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	t0 := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return -1
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return -1
	}
	return float64(time.Since(t0).Microseconds()) / 1000
}

// attackHeaders: n connections each send 1016 KiB of one header line,
// and are measured once the server has read what it will of them.
func attackHeaders(b *testing.B, w *webpane.Server, n int) {
	host := hostOf(b, w.Base)
	var wg sync.WaitGroup
	chunk := []byte(strings.Repeat("a", 64<<10))
	for range n {
		c, err := rawDial(b, w.Base)
		if err != nil {
			b.Fatal(err)
		}
		wg.Go(func() {
			defer answered(c, 60*time.Second)
			_ = c.SetWriteDeadline(time.Now().Add(60 * time.Second))
			fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nX-Pad: ", host)
			for sent := 0; sent < 1<<20-8<<10; sent += len(chunk) {
				if _, err := c.Write(chunk); err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
}

// attackBodies: n logins declare a 1 MiB body, send half, and hold.
func attackBodies(b *testing.B, w *webpane.Server, n int) {
	host, origin := hostOf(b, w.Base), strings.TrimSuffix(w.Base, "/")
	half := []byte(strings.Repeat("a", 512<<10))
	for range n {
		c, err := rawDial(b, w.Base)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(c, "POST /login HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nContent-Length: %d\r\n\r\n", host, origin, 1<<20)
		_, _ = c.Write(half)
	}
}

// attackFlood: n connections each start a request and never finish its
// headers.
func attackFlood(b *testing.B, w *webpane.Server, n int) {
	host := hostOf(b, w.Base)
	for range n {
		c, err := rawDial(b, w.Base)
		if err != nil {
			return // the listen backlog is full
		}
		_, _ = fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nX-Slow: ", host)
	}
}

// attackStreams: n event streams of one session that never read, while
// the view of the big request changes views times.
func attackStreams(b *testing.B, w *webpane.Server, tok string, n, views int) {
	host, origin := hostOf(b, w.Base), strings.TrimSuffix(w.Base, "/")
	for range n {
		c, err := rawDial(b, w.Base)
		if err != nil {
			b.Fatal(err)
		}
		_ = c.(*net.TCPConn).SetReadBuffer(4096)
		fmt.Fprintf(c, "GET /api/events HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", host, tok)
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: webpane.BearerTransport(tok)}
	for i := range views {
		req, _ := http.NewRequest("POST", w.Base+"api/action", strings.NewReader(fmt.Sprintf(`{"actions":[{"kind":"move","delta":%d}]}`, 1-2*(i%2))))
		req.Header.Set("Origin", origin)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatalf("action %d: %v", i, err)
		}
		resp.Body.Close()
	}
}
