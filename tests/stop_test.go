package tests

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"askuser/tests/testdaemon"
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

// A deliberate stop is respected (docs/contract.md §2): an ask waiting when askuserd
// stop runs starts no daemon, says on stderr that it waits, and resumes
// when the user starts one; a new ask still autostarts.
func TestAskWaitsForADaemonStoppedOnPurpose(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := watcher(t, e)
	ask := exec.Command(bin("askuser-client"), "ask", "--request-id", "kept-1", "--question", "Still there?", "--format", "text")
	ask.Env = e.Environ()
	var out bytes.Buffer
	errb := &testdaemon.LogBuffer{} // read while the client runs
	ask.Stdout, ask.Stderr = &out, errb
	if err := ask.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if ask.ProcessState == nil {
			_ = ask.Process.Kill()
			_ = ask.Wait()
		}
	})
	nextAdded(t, w)
	w.Close()
	daemon := e.daemon
	e.daemon = nil
	stop := exec.Command(bin("askuserd"), "stop")
	stop.Env = e.Environ()
	if msg, err := stop.CombinedOutput(); err != nil {
		t.Fatalf("askuserd stop: %v\n%s", err, msg)
	}
	_ = daemon.Wait()

	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(errb.String(), "stopped on purpose; waiting for it to be started again") {
		if time.Now().After(deadline) {
			t.Fatalf("ask did not say it waits; stderr: %q", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second) // a restarting client would have started one by now
	if _, err := os.Stat(e.Socket); !os.IsNotExist(err) {
		t.Fatalf("a daemon was started while stopped on purpose (socket %v)", err)
	}

	e.StartDaemon() // the user starts it again: the question is back, the ask resumes
	mustClient(t, e, "", "answer", "kept-1", "yes")
	if code := finish(t, ask); code != 0 || out.String() != "Still there?: yes\n" {
		t.Fatalf("ask: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// A daemon that refuses to start says why, and the client that started it
// prints that reason, not only "could not be reached" (here: the state dir
// is held by a daemon on another socket, as when XDG_RUNTIME_DIR is unset).
func TestAutostartSaysWhyTheDaemonRefused(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	other := e.Root + "/other.sock"
	cmd := exec.Command(bin("askuser-client"), "ask", "--socket", other, "--question", "Hello?")
	cmd.Env = e.Environ()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
		t.Fatalf("ask on another socket: %v, stderr %q", err, stderr.String())
	}
	for _, want := range []string{"refused to run", "the state dir", "is in use by askuserd", e.Socket} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	// The agent reads the result: starting askuserd, which it would be
	// told to do for a daemon that is simply not running, would not help.
	if !strings.Contains(stdout.String(), `"summary": "The question was not asked: askuserd would not start: another askuserd is running: the state dir`) {
		t.Errorf("the result's summary does not give the daemon's reason:\n%s", stdout.String())
	}

	// list and status with no daemon at all say what to do.
	none := e.Root + "/none.sock"
	for _, sub := range []string{"list", "status"} {
		c := exec.Command(bin("askuser-client"), sub, "--socket", none)
		c.Env = e.Environ()
		msg, _ := c.CombinedOutput()
		if !strings.Contains(string(msg), "no askuserd is running there: start one with 'askuserd'") {
			t.Errorf("%s with no daemon: %s", sub, msg)
		}
	}
}
