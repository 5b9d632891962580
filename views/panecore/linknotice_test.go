package panecore

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdir"
)

// linkRun runs link until the test ends; messages arrive on the channel.
func linkRun(t *testing.T, link *Link) <-chan socketproto.Message {
	t.Helper()
	got := make(chan socketproto.Message, 64)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { link.Run(stop, func(m socketproto.Message) { got <- m }); close(done) }()
	t.Cleanup(func() { close(stop); <-done })
	return got
}

// linkLog is a Link's Log, kept for the test to read.
type linkLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *linkLog) log(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}

func (l *linkLog) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// wantNotice reads the next ConnLost and checks it says every one of want
// and none of the raw error's words, which go to the log.
func wantNotice(t *testing.T, got <-chan socketproto.Message, want ...string) string {
	t.Helper()
	m, ok := nextFromLink(t, got).(ConnLost)
	if !ok {
		t.Fatalf("got %#v, want a ConnLost", m)
	}
	if !strings.HasPrefix(m.Err, "Not connected to askuserd: ") {
		t.Errorf("notice %q does not start with what it is about", m.Err)
	}
	for _, w := range append(want, "Nothing you typed is lost.") {
		if !strings.Contains(m.Err, w) {
			t.Errorf("notice %q does not say %q", m.Err, w)
		}
	}
	for _, raw := range []string{"dial unix", "connect:", "no such file", "connection refused"} {
		if strings.Contains(m.Err, raw) {
			t.Errorf("notice %q shows the raw error (%q); it belongs in the log", m.Err, raw)
		}
	}
	return m.Err
}

// Every cause of a lost connection says what happened and what to do
// (issue 23): no daemon there, one stopped on purpose, a socket that is
// not the user's, a daemon that died (restarted, or not).
func TestLinkNoticeSaysWhatToDo(t *testing.T) {
	t.Parallel()

	t.Run("no daemon running there", func(t *testing.T) {
		t.Parallel()
		sock := filepath.Join(testdir.Private(t), "d.sock")
		log := &linkLog{}
		got := linkRun(t, &Link{Socket: sock, Log: log.log})
		wantNotice(t, got, "no daemon is running", "`askuserd serve`", "quit and run `askuserd`", sock)
		if !strings.Contains(log.text(), "no such file or directory") {
			t.Errorf("the raw error is not in the log:\n%s", log.text())
		}
	})

	t.Run("stopped on purpose", func(t *testing.T) {
		t.Parallel()
		sock := filepath.Join(testdir.Private(t), "d.sock")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		got := linkRun(t, &Link{Socket: sock})
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := socketproto.NewLineReader(c, 0).ReadLine(); err != nil {
			t.Fatal(err)
		}
		b, _ := socketproto.Encode(socketproto.Snapshot{State: socketproto.StateIdle, Pending: []socketproto.Pending{}})
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
		if _, ok := nextFromLink(t, got).(socketproto.Snapshot); !ok {
			t.Fatal("no snapshot")
		}
		ln.Close() // removes the socket, as askuserd stop does
		c.Close()
		wantNotice(t, got, "connection closed; connecting again")
		wantNotice(t, got, "it was stopped (askuserd stop", "Start it again with `askuserd serve`", "quit and run `askuserd`", sock)
	})

	t.Run("a socket directory that is not safe", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(testdir.Private(t), "open")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil { // whatever the umask
			t.Fatal(err)
		}
		sock := filepath.Join(dir, "d.sock")
		got := linkRun(t, &Link{Socket: sock, Restart: func() error { t.Error("restarted"); return nil }})
		wantNotice(t, got, "refusing "+dir, "lets other users in", "chmod 700 "+dir)
	})

	stale := func(t *testing.T) string {
		sock := filepath.Join(testdir.Private(t), "d.sock")
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		ln.SetUnlinkOnClose(false)
		ln.Close() // the socket stays and refuses: a crashed daemon's
		return sock
	}

	t.Run("died, and nobody restarts it", func(t *testing.T) {
		t.Parallel()
		sock := stale(t)
		wantNotice(t, linkRun(t, &Link{Socket: sock}), "it died, leaving its socket behind", "`askuserd serve`", sock)
	})

	t.Run("died, and is restarted", func(t *testing.T) {
		t.Parallel()
		sock := stale(t)
		log := &linkLog{}
		got := linkRun(t, &Link{Socket: sock, Log: log.log, RestartDelay: time.Hour,
			Restart: func() error { return nil }})
		wantNotice(t, got, "it died; it is started again in a few seconds")
		if !strings.Contains(log.text(), "connection refused") {
			t.Errorf("the raw error is not in the log:\n%s", log.text())
		}
	})

	t.Run("died, and restarting it failed", func(t *testing.T) {
		t.Parallel()
		sock := stale(t)
		log := &linkLog{}
		got := linkRun(t, &Link{Socket: sock, Log: log.log,
			Restart: func() error { return errors.New("config.toml line 3: unknown key") }})
		wantNotice(t, got, "it died; starting it again now")
		wantNotice(t, got, "starting it again failed", "run `askuserd serve` in a terminal to see why")
		// The next dial, a second later, still says so: the failure stands
		// until the next try.
		wantNotice(t, got, "starting it again failed")
		if !strings.Contains(log.text(), "config.toml line 3: unknown key") {
			t.Errorf("why the restart failed is not in the log:\n%s", log.text())
		}
	})
}
