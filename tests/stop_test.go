package tests

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testdir"
	"askuser/tests/testenv"
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
	daemon := e.Daemon
	e.Daemon = nil // askuserd stop ends it, not the cleanup
	stop := exec.Command(testenv.Bin("askuserd"), "stop")
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
	again := exec.Command(testenv.Bin("askuserd"), "stop")
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
	daemon := e.Daemon
	e.Daemon = nil
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
	w := testenv.Watch(t, e)
	ask := exec.Command(testenv.Bin("askuser-client"), "ask", "--request-id", "kept-1", "--question", "Still there?", "--format", "text")
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
	testenv.NextAdded(t, w)
	w.Close()
	daemon := e.Daemon
	e.Daemon = nil
	stop := exec.Command(testenv.Bin("askuserd"), "stop")
	stop.Env = e.Environ()
	if msg, err := stop.CombinedOutput(); err != nil {
		t.Fatalf("askuserd stop: %v\n%s", err, msg)
	}
	_ = daemon.Wait()

	testdaemon.Eventually(t, "ask to say it waits for the daemon stopped on purpose", func() (bool, string) {
		return strings.Contains(errb.String(), "stopped on purpose; waiting for it to be started again"), errb.String()
	})
	// That nothing starts one is a "does not happen" on the client's own
	// clock: it retries at growing pauses, at most a second apart, and a
	// retry that finds no daemon leaves no trace to wait for. A second
	// holds several retries, any of which would have started one.
	time.Sleep(time.Second)
	if _, err := os.Stat(e.Socket); !os.IsNotExist(err) {
		t.Fatalf("a daemon was started while stopped on purpose (socket %v)", err)
	}

	e.StartDaemon() // the user starts it again: the question is back, the ask resumes
	mustClient(t, e, "", "answer", "kept-1", "yes")
	if code := testenv.Finish(t, ask); code != 0 || out.String() != "Still there?: yes\n" {
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
	cmd := exec.Command(testenv.Bin("askuser-client"), "ask", "--socket", other, "--question", "Hello?")
	cmd.Env = e.Environ()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("the refused autostart took %v", time.Since(start)) // once 10 s: the refusal was read as a start-up race
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
		c := exec.Command(testenv.Bin("askuser-client"), sub, "--socket", none)
		c.Env = e.Environ()
		msg, _ := c.CombinedOutput()
		if !strings.Contains(string(msg), "no askuserd is running there: start one with 'askuserd'") {
			t.Errorf("%s with no daemon: %s", sub, msg)
		}
	}
}

// fakeDaemonEnv makes this test binary, started as askuserd, the daemon of
// TestAutostartRefusalAfterTheClientReachedTheSocket; its value is the file
// it writes once a client has reached its socket.
const fakeDaemonEnv = "ASKUSER_TEST_REFUSE_AFTER_DIAL"

// refuseAfterTheClientReachedUs is `askuserd serve --socket S` refusing to
// run as the real one does when the state dir is held by a daemon on
// another socket — listening first, then closing the listener (the socket
// removed), then saying why on the start-status pipe and exiting 1 — but
// only once a client has connected: the race in which the client reaches
// the socket of a daemon about to refuse, taken every time.
func refuseAfterTheClientReachedUs(marker string) int {
	sock := ""
	for i, a := range os.Args {
		if a == "--socket" && i+1 < len(os.Args) {
			sock = os.Args[i+1]
		}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake askuserd:", err)
		return 1
	}
	_ = ln.SetDeadline(time.Now().Add(refusalBound)) // never outlive the test
	nc, err := ln.AcceptUnix()
	if err == nil {
		_ = os.WriteFile(marker, []byte("reached\n"), 0o600)
	}
	ln.Close()
	if nc != nil {
		nc.Close()
	}
	status := os.NewFile(3, "start-status")
	line, _ := socketproto.Encode(socketproto.StartStatus{Code: socketproto.StartRefused, Message: fakeRefusal})
	_, _ = status.Write(line)
	status.Close()
	return 1
}

// refusalBound keeps a client that would wait for ever (or a fake daemon no
// client reaches) from hanging the run; generous for a loaded machine.
const refusalBound = time.Minute

const fakeRefusal = "another askuserd is running: the state dir /fake/state is in use by askuserd (pid 4121) on /fake/other.sock"

// The daemon the client started refuses to run after the client reached its
// socket (and saw it disappear): the client does not take that for a
// deliberate stop to wait out; it prints the daemon's reason and exits 4,
// at once. askuser-client is the real one; the askuserd beside it is this
// test binary, which refuses only once the client got through.
func TestAutostartRefusalAfterTheClientReachedTheSocket(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	dir := filepath.Join(e.Root, "bin")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	client := filepath.Join(dir, "askuser-client")
	testdir.CopyExecutable(t, testenv.Bin("askuser-client"), client)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(dir, "askuserd")); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(e.Root, "reached")
	sock := filepath.Join(e.Root, "refusing.sock")
	// The deadline only keeps a client that waits for ever from hanging
	// the run; how long the client took is logged, not judged.
	ctx, cancel := context.WithTimeout(context.Background(), refusalBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, client, "ask", "--socket", sock, "--question", "Hello?")
	cmd.Env = e.Environ(fakeDaemonEnv + "=" + marker)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("the client still waited after %v; stderr:\n%s", refusalBound, stderr.String())
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the client never reached the daemon's socket, so the race was not taken: %v", err)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
		t.Fatalf("ask: %v (want exit 4), stderr %q", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "refused to run: "+fakeRefusal) {
		t.Errorf("stderr does not give the daemon's reason:\n%s", stderr.String())
	}
	if strings.Contains(stderr.String(), "stopped on purpose") {
		t.Errorf("the refusal was taken for a deliberate stop:\n%s", stderr.String())
	}
	if !strings.Contains(stdout.String(), `"summary": "The question was not asked: askuserd would not start: `+fakeRefusal) {
		t.Errorf("the result's summary does not give the daemon's reason:\n%s", stdout.String())
	}
	t.Logf("the refused autostart took %v", took)
}
