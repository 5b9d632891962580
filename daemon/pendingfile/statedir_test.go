package pendingfile

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"askuser/tests/testdaemon"
)

// A script that truncates the file and writes its answers 45–100 ms later
// (slow-script > pending-questions.json) while other agents ask: the
// rewrites those asks cause wait for it, and every save is taken in.
func TestSlowInPlaceSaveWhileOthersAsk(t *testing.T) {
	r := newRig(t)
	for round, gap := range []time.Duration{45, 60, 75, 90, 100} {
		id := "slow" + itoa(round)
		done := r.ask(id, nameQuestion)
		f := r.fileWith(append(pendingIDs(r), id)...)
		data := fill(t, f, id, `"svc-`+itoa(round)+`"`)
		w, err := os.OpenFile(r.path, os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		// While the script is still working, other agents ask.
		for k := range 3 {
			r.ask(id+"-other"+itoa(k), nameQuestion)
			// The slow script's own timing: its write lands gap ms after
			// the truncate, whatever the daemon did meanwhile.
			time.Sleep(gap * time.Millisecond / 3)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		w.Close()
		wantAnswers(t, r.result(done), "svc-"+itoa(round))
	}
	r.noReports()
}

// pendingIDs lists what the rig's queue holds, oldest first.
func pendingIDs(r *rig) []string {
	p, _ := r.q.Snapshot()
	ids := []string{}
	for _, x := range p {
		ids = append(ids, x.RequestID)
	}
	return ids[:len(ids)-1] // the caller adds the newest itself
}

// A FIFO, a directory or a Unix socket at the pending file's path is
// reported and left alone: nothing blocks (Close returns), nothing is
// renamed away or removed, and no temporary file is left behind. A socket
// cannot be opened at all (ENXIO), which is not "no file there".
func TestNonRegularPendingFileIsLeftAlone(t *testing.T) {
	for _, kind := range []string{"fifo", "dir", "socket"} {
		t.Run(kind, func(t *testing.T) {
			r := newStoppedRig(t)
			os.MkdirAll(r.dir, 0o700)
			if kind == "fifo" {
				if err := syscall.Mkfifo(r.path, 0o600); err != nil {
					t.Fatal(err)
				}
			} else if kind == "socket" {
				l, err := net.Listen("unix", r.path)
				if err != nil {
					t.Fatal(err)
				}
				l.(*net.UnixListener).SetUnlinkOnClose(false)
				defer l.Close()
			} else {
				os.Mkdir(r.path, 0o700)
			}
			r.s.quiet = quietPeriod
			if err := r.s.Start(); err != nil {
				t.Fatal(err)
			}
			r.ask("a", nameQuestion)
			if msg := r.report(); !strings.Contains(msg, "not a regular file") || !strings.Contains(msg, r.path) {
				t.Errorf("report: %s", msg)
			}
			closed := make(chan struct{})
			go func() { r.s.Close(); close(closed) }()
			select {
			case <-closed:
			case <-time.After(wait):
				t.Fatal("Close blocked")
			}
			fi, err := os.Lstat(r.path)
			if err != nil || fi.Mode().IsRegular() {
				t.Fatalf("the %s was replaced: %v", kind, err)
			}
			entries, _ := os.ReadDir(r.dir)
			for _, e := range entries {
				if strings.Contains(e.Name(), ".tmp-") {
					t.Errorf("left behind: %s", e.Name())
				}
			}
		})
	}
}

// Temporary files of rewrites a crash cut short are removed at start.
func TestLeftoverTemporaryFilesAreRemoved(t *testing.T) {
	r := newStoppedRig(t)
	os.MkdirAll(r.dir, 0o700)
	left := filepath.Join(r.dir, ".pending-questions.json.tmp-12345")
	os.WriteFile(left, []byte(`{"requests":[]}`), 0o600)
	if err := r.s.Start(); err != nil {
		t.Fatal(err)
	}
	defer r.s.Close()
	r.fileWith()
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Fatalf("%s is still there: %v", left, err)
	}
}

// A file too large to read is reported like a parse error and kept as
// .rejected before the daemon writes its own.
func TestTooLargeFileIsKeptAsRejected(t *testing.T) {
	r := newRig(t)
	r.ask("a", nameQuestion)
	r.fileWith("a")
	// Filled in one call, not a loop: under -race every byte a loop writes
	// is instrumented, and that took seconds for 64 MiB.
	big := bytes.Repeat([]byte{' '}, maxFileBytes+1024)
	copy(big, `{"requests": [{"requestId": "a", "questions": [{"answer": "mine"}]}]}`)
	saveByRename(t, r.path, big, "big.tmp")
	if msg := r.report(); !strings.Contains(msg, "MiB") || !strings.Contains(msg, r.s.RejectedPath()) {
		t.Errorf("report: %s", msg)
	}
	if fi, err := os.Stat(r.s.RejectedPath()); err != nil || fi.Size() != int64(len(big)) {
		t.Fatalf(".rejected: %v", err)
	}
	r.fileWith("a") // and the daemon's own file is back
}

// The file a previous daemon wrote, found at start, is its view: a draft
// its journal holds that the file had not caught up with yet (it died
// between the two) wins over the file. A file the user saved is still taken in.
func TestFileThePreviousDaemonWroteIsNotTheUsersSave(t *testing.T) {
	r := newRig(t)
	r.ask("a", nameQuestion)
	r.fileWith("a")
	r.s.Close()

	// The journal moved on: a draft given in a pane, not yet in the file.
	withDraft := pending("a", nameQuestion)
	withDraft.Draft[0] = []byte(`"from-the-pane"`)
	r.q.mu.Lock()
	r.q.pending[0] = withDraft
	r.q.mu.Unlock()

	again := New(Options{Path: r.path, Queue: r.q, Report: func(msg string) { r.reports <- msg }})
	r.q.changed = again.Changed
	if err := again.Start(); err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	testdaemon.Eventually(t, "the pane's draft in the file", func() (bool, string) {
		data := r.read()
		return strings.Contains(string(data), `"from-the-pane"`), string(data)
	})
	r.waitDraft("a", `"from-the-pane"`)
	if r.q.applies != 0 {
		t.Errorf("the previous daemon's file was taken in %d times as a save", r.q.applies)
	}
}
