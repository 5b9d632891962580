package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"askuser/internal/config"
	"askuser/tests/skips"
	"askuser/tests/testdaemon"
)

func TestCheckSocketDir(t *testing.T) {
	t.Parallel()
	me := os.Getuid()
	cases := []struct {
		name string
		mode os.FileMode
		uid  int // the uid the check runs as
		want string
	}{
		{"private", 0o700, me, ""},
		{"readable by others is allowed", 0o755, me, ""},
		{"group-writable", 0o770, me, "mode 0770"},
		{"world-writable", 0o777, me, "mode 0777"},
		{"sticky world-writable like /tmp", 0o1777 & os.ModePerm, me, "mode 0777"},
		{"owned by someone else", 0o700, me + 1, "owned by uid"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "d")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, c.mode); err != nil {
				t.Fatal(err)
			}
			err := checkSocketDir(dir, c.uid)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir)):
				t.Errorf("got %v, want an error naming %s and %q", err, dir, c.want)
			}
		})
	}
}

// A symlink as the socket directory is followed only when it is ours.
func TestCheckSocketDirSymlink(t *testing.T) {
	t.Parallel()
	me := os.Getuid()
	root := t.TempDir()
	target := filepath.Join(root, "target")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := checkSocketDir(link, me); err != nil {
		t.Errorf("our own symlink to our own directory refused: %v", err)
	}
	// As seen by another user, the same link (and the directory) is not theirs.
	if err := checkSocketDir(link, me+1); err == nil || !strings.Contains(err.Error(), "symlink owned by uid") {
		t.Errorf("someone else's symlink: got %v", err)
	}
	// Someone else's symlink to our own private directory: the attack.
	if err := os.Lchown(link, me+1, -1); err != nil {
		skips.Skipf(t, "cannot give the symlink to another uid here (%v); the planted-link case needs root", err)
	}
	if err := checkSocketDir(link, me); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("symlink owned by uid %d", me+1)) {
		t.Errorf("a planted symlink to our directory: got %v", err)
	}
}

func TestSocketDirIsMadePrivate(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(t.TempDir(), "a", "b", "askuserd.sock")
	ln, lock, err := listenSocket(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.release()
	defer ln.Close()
	for path, want := range map[string]os.FileMode{filepath.Dir(sock): 0o700, sock: 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %o, want %o", path, fi.Mode().Perm(), want)
		}
	}
}

func TestSecondListenerRefusedAndStaleSocketRemoved(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	sock := filepath.Join(dir, "askuserd.sock")
	ln, lock, err := listenSocket(sock)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = listenSocket(sock)
	if !errors.Is(err, ErrAlreadyRunning) || !strings.Contains(err.Error(), "(pid ") || !strings.Contains(err.Error(), sock) {
		t.Fatalf("second listener: %v", err)
	}
	if errors.Is(err, ErrStateDirInUse) {
		t.Errorf("losing the socket's own lock is a start-up race, not a state dir in use: %v", err)
	}
	// A crash leaves the socket file behind: simulate it by keeping the file.
	ln.SetUnlinkOnClose(false)
	ln.Close()
	lock.release()
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("the stale socket should still be there: %v", err)
	}
	ln, lock, err = listenSocket(sock)
	if err != nil {
		t.Fatalf("restart over a stale socket: %v", err)
	}
	defer lock.release()
	defer ln.Close()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("the new socket does not answer: %v", err)
	}
	c.Close()
}

func TestNotASocketIsLeftAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sock := filepath.Join(dir, "askuserd.sock")
	if err := os.WriteFile(sock, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := listenSocket(sock)
	if err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("got %v", err)
	}
	if b, _ := os.ReadFile(sock); string(b) != "precious" {
		t.Error("the file was replaced")
	}
}

func TestRunRemovesTheSocketOnStop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sock := filepath.Join(dir, "run", "askuserd.sock")
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		cfg := config.Default()
		cfg.Daemon.StateDir = filepath.Join(dir, "state")
		done <- Run(ctx, Options{Config: cfg, SocketPath: sock,
			PendingFilePath: filepath.Join(dir, "pending.json"), Ready: func() { close(ready) }})
	}()
	<-ready
	c := testdaemon.DialRaw(t, sock)
	c.Send(ask1)
	c.Expect("ask_user_queued")
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket still there after stop: %v", err)
	}
	if _, err := c.TryRecv(10e9); err == nil {
		t.Error("the connection stayed open after stop")
	}
}
