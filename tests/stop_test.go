package tests

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// askuserd stop finds the daemon through its lock, stops it cleanly and
// waits; status showed its pid first. Stopping when none runs says so.
func TestAskuserdStop(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	out, _, code := e.Client("", "status")
	if code != 0 || !strings.Contains(out, "pid:") || !strings.Contains(out, e.State) {
		t.Fatalf("status (%d):\n%s", code, out)
	}
	daemon := e.daemon
	e.daemon = nil // askuserd stop ends it, not the cleanup
	stop := exec.Command(bin("askuserd"), "stop")
	stop.Env = e.Environ()
	msg, err := stop.CombinedOutput()
	if err != nil || !strings.Contains(string(msg), "stopped") {
		t.Fatalf("askuserd stop: %v\n%s", err, msg)
	}
	if err := daemon.Wait(); err != nil {
		t.Errorf("the daemon exited with %v; output:\n%s", err, e.DaemonLog())
	}
	if _, err := os.Stat(e.Socket); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
	again := exec.Command(bin("askuserd"), "stop")
	again.Env = e.Environ()
	if msg, err := again.CombinedOutput(); err != nil || !strings.Contains(string(msg), "no daemon is running") {
		t.Errorf("stop with none running: %v\n%s", err, msg)
	}
}

// SIGHUP (the terminal that started the daemon closed) is a clean stop.
func TestSIGHUPStopsTheDaemonCleanly(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	daemon := e.daemon
	e.daemon = nil
	_ = daemon.Process.Signal(syscall.SIGHUP)
	done := make(chan error, 1)
	go func() { done <- daemon.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGHUP: %v; output:\n%s", err, e.DaemonLog())
		}
	case <-time.After(10 * time.Second):
		daemon.Process.Kill()
		t.Fatal("still running 10s after SIGHUP")
	}
	if _, err := os.Stat(e.Socket); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
}
