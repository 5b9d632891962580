package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"askuser/daemon/journal"
	"askuser/internal/config"
	"askuser/tests/skips"
	"askuser/tests/testdaemon"
)

// remountable mounts a small tmpfs at dir and returns what remounts it "ro"
// or "rw". Only root can; anyone else skips, saying why. As root under
// CI=true it must work.
func remountable(t *testing.T, dir string) func(mode string) {
	t.Helper()
	os.MkdirAll(dir, 0o700)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		if os.Getuid() == 0 && os.Getenv("CI") == "true" {
			t.Fatalf("mounting a tmpfs as root: %v %s", err, out)
		}
		skips.Skipf(t, "a read-only state dir is a tmpfs remounted read-only, and mounting one failed (needs root; "+
			"as root chmod does not stop writes): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return func(mode string) {
		t.Helper()
		if out, err := exec.Command("mount", "-o", "remount,"+mode, dir).CombinedOutput(); err != nil {
			t.Fatalf("remount %s: %v %s", mode, err, out)
		}
	}
}

// untilStateDirEvent reads a subscriber's messages until a state_dir_error
// and returns it; a pending_file_error on the way must not be about the
// state dir (docs/contract.md §4: the state dir's trouble has its own event).
func untilStateDirEvent(t *testing.T, c *testdaemon.Raw, stateDir string) map[string]any {
	t.Helper()
	for {
		m := c.Recv()
		switch m["type"] {
		case "state_dir_error":
			return m
		case "pending_file_error":
			if p := testdaemon.Lookup(m, "path"); p == stateDir || !strings.HasSuffix(p, ".json") {
				t.Errorf("the state dir's trouble was reported as a pending-file error: %v", m)
			}
		}
	}
}

// A read-only state dir (docs/contract.md §10): the daemon starts, restores what it
// holds, refuses every change with state_unavailable naming the reason,
// tells every subscriber (state_dir_error, also one that comes later), still
// keeps a second daemon out, and once the dir can be written again says so
// (the cleared form) and accepts changes.
func TestReadOnlyStateDir(t *testing.T) {
	t.Parallel()
	root := testdaemon.ShortRoot(t)
	state := filepath.Join(root, "state")
	remount := remountable(t, state)
	sock, stop := daemonAt(t, root, nil)
	a := testdaemon.DialRaw(t, sock)
	a.Send(park1)
	a.Expect("ask_user_queued requestId=r1")
	stop()
	remount("ro")

	sock, _ = daemonAt(t, root, nil) // fails here on a daemon that cannot start read-only
	w := testdaemon.DialRaw(t, sock)
	w.Send(`{"type":"subscribe","role":"watch"}` + "\n")
	w.Expect("snapshot pending.0.requestId=r1 pending.0.status=parked")
	ev := untilStateDirEvent(t, w, state)
	if testdaemon.Lookup(ev, "path") != state || !strings.Contains(testdaemon.Lookup(ev, "error"), "read-only file system") {
		t.Fatalf("state_dir_error: %v", ev)
	}

	c := testdaemon.DialRaw(t, sock)
	c.Send(`{"type":"list"}` + "\n")
	c.Expect("list pending.0.requestId=r1")
	for _, line := range []string{
		ask2,
		answer1,
		`{"type":"draft","requestId":"r1","index":0,"answer":"SQLite","via":"pane"}` + "\n",
		`{"type":"cancel","requestId":"r1","via":"cli"}` + "\n",
	} {
		c.Send(line)
		m := c.Expect("error code=state_unavailable")
		if msg := testdaemon.Lookup(m, "message"); !strings.Contains(msg, "read-only file system") || !strings.Contains(msg, state) {
			t.Errorf("%s: the refusal does not name the reason and the path: %s", strings.TrimSpace(line), msg)
		}
	}

	// One daemon per state dir, read-only or not.
	cfg := config.Default()
	cfg.Daemon.StateDir = state
	err := Run(context.Background(), Options{Config: cfg, SocketPath: filepath.Join(root, "other", "s.sock"), Logger: testdaemon.TestLogger(t)})
	if !errors.Is(err, ErrAlreadyRunning) {
		t.Errorf("a second daemon on the read-only state dir: %v", err)
	}

	remount("rw")
	if ev := untilStateDirEvent(t, w, state); testdaemon.Lookup(ev, "error") != "" {
		t.Fatalf("after the remount: %v, want the cleared form", ev)
	}
	c.Send(ask2)
	c.Expect("ask_user_queued requestId=r2")
	c.Send(answer1)
	c.Expect("ok requestId=r1")
}

// The state dir deleted while requests wait is written back at once, with
// every one of them and the lock, before anything else changes.
func TestDeletedStateDirIsWrittenBackAtOnce(t *testing.T) {
	t.Parallel()
	root := testdaemon.ShortRoot(t)
	state := filepath.Join(root, "state")
	sock, stop := daemonAt(t, root, nil)
	a := testdaemon.DialRaw(t, sock)
	for i := 1; i <= 3; i++ {
		a.Send(fmt.Sprintf(`{"type":"ask_user_request","requestId":"p%d","wait":false,`+q1+"}\n", i))
		a.Expect(fmt.Sprintf("ask_user_queued requestId=p%d", i))
	}
	// The pending file is written again as soon as it goes, so an rm -rf
	// can find the dir not empty at its end: the user runs it again.
	for try := 0; ; try++ {
		err := os.RemoveAll(state)
		if err == nil {
			break
		}
		if try == 10 {
			t.Fatal(err)
		}
	}
	eventually(t, filepath.Join(state, journal.StateFile), func(s string) bool {
		return strings.Contains(s, `"id":"p1"`) && strings.Contains(s, `"id":"p2"`) && strings.Contains(s, `"id":"p3"`)
	})
	if fi, err := os.Stat(state); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the state dir written back: %v %v", fi, err)
	}
	// Its lock is back too: a second daemon is kept out.
	cfg := config.Default()
	cfg.Daemon.StateDir = state
	err := Run(context.Background(), Options{Config: cfg, SocketPath: filepath.Join(root, "other", "s.sock"), Logger: testdaemon.TestLogger(t)})
	if !errors.Is(err, ErrAlreadyRunning) {
		t.Errorf("a second daemon on the written-back state dir: %v", err)
	}
	stop()
	sock, _ = daemonAt(t, root, nil)
	c := testdaemon.DialRaw(t, sock)
	c.Send(`{"type":"list"}` + "\n")
	c.Expect("list pending.0.requestId=p1 pending.1.requestId=p2 pending.2.requestId=p3")
}

// A state dir that stops taking writes while the daemon runs (here: full;
// a file system cannot be remounted read-only under a daemon that has a
// file open for writing): the ask that finds it so is refused, every
// subscriber is told with the state dir's own event (never a
// pending_file_error), and told again when it is over.
func TestStateDirTroubleWhileRunning(t *testing.T) {
	t.Parallel()
	root := testdaemon.ShortRoot(t)
	state := filepath.Join(root, "state")
	remountable(t, state)
	sock, _ := daemonAt(t, root, nil)
	w := testdaemon.DialRaw(t, sock)
	w.Send(`{"type":"subscribe","role":"pane"}` + "\n")
	w.Expect("snapshot state=idle")
	filler := filepath.Join(state, "filler")
	f, _ := os.Create(filler)
	f.Write(make([]byte, 8<<20)) // fills it: the write stops at the limit
	f.Close()

	c := testdaemon.DialRaw(t, sock)
	big := strings.Replace(ask1, `"requestId":"r1",`, `"requestId":"r1","metadata":{"pad":"`+strings.Repeat("x", 10000)+`"},`, 1)
	c.Send(big)
	m := c.Expect("error code=state_unavailable requestId=r1")
	if msg := testdaemon.Lookup(m, "message"); !strings.Contains(msg, "no space left") {
		t.Errorf("message: %s", msg)
	}
	ev := untilStateDirEvent(t, w, state)
	if testdaemon.Lookup(ev, "path") != state || !strings.Contains(testdaemon.Lookup(ev, "error"), "no space left") {
		t.Fatalf("state_dir_error: %v", ev)
	}
	// A pane that subscribes now is told too.
	w2 := testdaemon.DialRaw(t, sock)
	w2.Send(`{"type":"subscribe","role":"pane"}` + "\n")
	w2.Expect("snapshot state=idle")
	if ev := untilStateDirEvent(t, w2, state); !strings.Contains(testdaemon.Lookup(ev, "error"), "no space left") {
		t.Fatalf("a later subscriber: %v", ev)
	}

	os.Remove(filler)
	for _, s := range []*testdaemon.Raw{w, w2} {
		if ev := untilStateDirEvent(t, s, state); testdaemon.Lookup(ev, "error") != "" {
			t.Fatalf("once there is room: %v, want the cleared form", ev)
		}
	}
	c.Send(big)
	c.Expect("ask_user_queued requestId=r1")
}
