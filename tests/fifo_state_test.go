package tests

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
	"askuser/tests/webpane"
)

// docs/contract.md §10 "The state dir is the daemon's" and §2's stop, end to
// end: a FIFO at one of askuser's own files (opening it to read waits for a
// writer, for good) never blocks `askuserd serve` or `askuserd web`. The
// daemon goes on serving agents, the trouble is said with the path, the FIFO
// is left where it is, and one SIGTERM ends either within 2 s.
//
// Not parallel: each asserts a 2 s stop, which a crowded machine should not
// decide.

// stopWithin is the contract's bound on a stop after one signal.
const stopWithin = 2 * time.Second

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// leftAlone checks that the FIFO is still at path: never removed nor
// replaced by a file of askuser's.
func leftAlone(t *testing.T, path string) {
	t.Helper()
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO at %s was not left alone: %v, %v", path, fi, err)
	}
}

// servesAnAgent asks, lists, answers and gets the answer over the socket:
// the daemon is not stuck on a file, and resolving (which appends to
// history.jsonl) does not stick it either.
func servesAnAgent(t *testing.T, e *Env, id string) {
	t.Helper()
	agent := testdaemon.DialRaw(t, e.Socket)
	agent.Send(testdaemon.AskLine(id, ""))
	agent.Expect("ask_user_queued requestId=" + id)
	cli := testdaemon.DialRaw(t, e.Socket)
	cli.Send(`{"type":"list"}` + "\n")
	cli.Expect("list pending.0.requestId=" + id)
	cli.Send(testdaemon.AnswerLine(id, "SQLite"))
	cli.Expect("ok")
	agent.Until("ask_user_response")
}

// stopsOnSIGTERM sends one SIGTERM to cmd and fails the test unless it
// has exited within stopWithin (it is killed then). wantClean: exit 0.
func stopsOnSIGTERM(t *testing.T, who string, cmd *exec.Cmd, output func() string, wantClean bool) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("%s: %v", who, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if wantClean && err != nil {
			t.Errorf("%s exited with %v after SIGTERM; it said:\n%s", who, err, output())
		}
	case <-time.After(stopWithin):
		_ = cmd.Process.Kill()
		<-done
		t.Errorf("%s did not stop within %v of SIGTERM; it said:\n%s", who, stopWithin, output())
	}
}

// stopDaemonWithin stops the Env's daemon with stopsOnSIGTERM.
func stopDaemonWithin(e *Env, wantClean bool) {
	e.T.Helper()
	cmd := e.Daemon
	e.Daemon = nil
	stopsOnSIGTERM(e.T, "askuserd serve", cmd, e.DaemonLog, wantClean)
}

// runToEnd runs askuserd or askuser-client with args to its end, which must come
// within testdaemon.Wait: what it printed (stdout and stderr) and its exit code.
func runToEnd(t *testing.T, e *Env, exe string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(testenv.Bin(exe), args...)
	cmd.Env = e.Environ()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return out.String(), cmd.ProcessState.ExitCode()
	case <-time.After(testdaemon.Wait):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%s %v blocked (killed after %v); it said:\n%s", exe, args, testdaemon.Wait, out.String())
		return "", 0
	}
}

// history.jsonl turned into a FIFO while the daemon runs: resolving a
// request appends to it, which must neither block nor write into the FIFO.
func TestFifoAtHistory(t *testing.T) {
	e := NewEnv(t)
	e.StartDaemon()
	path := e.StateFile("history.jsonl")
	mkfifo(t, path)
	servesAnAgent(t, e, "fifo-hist")
	testenv.Says(t, "askuserd", e.DaemonLog, "history "+path+": "+path+" is a FIFO, not a regular file; left alone")
	reported(t, e, path, "is a FIFO")
	servesAnAgent(t, e, "fifo-hist-2")
	leftAlone(t, path)
	stopDaemonWithin(e, true)
}

// history.jsonl a FIFO when the daemon starts (the journal and the rules
// both read it at start): it says so, serves, and one SIGTERM ends it
// within 2 s.
func TestFifoAtHistoryWhenStarting(t *testing.T) {
	e := NewEnv(t)
	path := e.StateFile("history.jsonl")
	mkfifo(t, path)
	e.StartDaemon()
	testenv.Says(t, "askuserd", e.DaemonLog, path+" is a FIFO, not a regular file; left alone")
	servesAnAgent(t, e, "fifo-hist-start")
	leftAlone(t, path)
	stopDaemonWithin(e, true)
}

// push-subscriptions.json a FIFO: Web Push is off for the run, said so with
// the path; the daemon and the web page serve all the same.
func TestFifoAtPushSubscriptions(t *testing.T) {
	e := NewEnv(t)
	path := e.StateFile("push-subscriptions.json")
	mkfifo(t, path)
	e.StartDaemon()
	testenv.Says(t, "askuserd", e.DaemonLog, "web push: cannot read the subscriptions; no push this run",
		path+" is a FIFO, not a regular file; askuserd reads and writes only a regular file there")
	reported(t, e, path, "Web Push is off until askuserd restarts")
	w := webpane.Start(t, e)
	servesAnAgent(t, e, "fifo-push")
	c, _ := w.HTTPClient()
	resp, err := c.Get(w.Base + "api/session")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("askuserd web after the daemon refused the FIFO: %v, %v", resp, err)
	}
	resp.Body.Close()
	stopsOnSIGTERM(t, "askuserd web", w.Cmd, w.Out.String, true)
	stopDaemonWithin(e, true)
	leftAlone(t, path)
}

// web-secret a FIFO: askuserd web will not start, and says why and what to
// do, at once (it blocked for good); the daemon serves on.
func TestFifoAtWebSecret(t *testing.T) {
	e := NewEnv(t)
	path := e.StateFile("web-secret")
	mkfifo(t, path)
	e.StartDaemon()
	want := path + " is a FIFO, not a regular file; askuserd web keeps its secret only in a regular file, and leaves this one alone: remove it"
	for _, args := range [][]string{{"web", "--listen", "127.0.0.1:0"}, {"web", "--url"}, {"web", "--rotate"}} {
		if out, code := runToEnd(t, e, "askuserd", args...); code != 1 || !strings.Contains(out, want) {
			t.Errorf("askuserd %v: exit %d, said %q; want exit 1 saying %q", args, code, out, want)
		}
	}
	servesAnAgent(t, e, "fifo-secret")
	leftAlone(t, path)
	stopDaemonWithin(e, true)
}

// web-secret turned into a FIFO while askuserd web serves: the secret it
// holds stays in force (sessions go on), it says so once, and it stops
// within 2 s.
func TestFifoAtWebSecretWhileServing(t *testing.T) {
	e := NewEnv(t)
	e.StartDaemon()
	w := webpane.Start(t, e)
	c, _ := w.HTTPClient()
	path := e.StateFile("web-secret")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, path)
	// Every request looks at the secret's file first.
	resp, err := c.Get(w.Base + "api/session")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a session after the secret's file became a FIFO: %v, %v", resp, err)
	}
	resp.Body.Close()
	testenv.Says(t, "askuserd web", w.Out.String, "the web secret read before stays in force", path+" is a FIFO, not a regular file")
	servesAnAgent(t, e, "fifo-secret-live")
	stopsOnSIGTERM(t, "askuserd web", w.Cmd, w.Out.String, true)
	stopDaemonWithin(e, true)
	leftAlone(t, path)
}

// config.toml a FIFO: the daemon and the page refuse at once, naming it
// (each read it and blocked for good); a client warns, naming it, and goes
// on with the defaults; a daemon already running serves on and stops.
func TestFifoAtConfig(t *testing.T) {
	e := NewEnv(t)
	e.StartDaemon()
	path := filepath.Join(e.Config, "askuser", "config.toml")
	mkfifo(t, path)
	want := "config: " + path + " is a FIFO, not a regular file; askuser reads its config only from a regular file"
	for _, run := range [][]string{{"askuserd", "serve"}, {"askuserd", "web", "--listen", "127.0.0.1:0"}} {
		if out, code := runToEnd(t, e, run[0], run[1:]...); code != 1 || !strings.Contains(out, want) {
			t.Errorf("%v: exit %d, said %q; want exit 1 saying %q", run, code, out, want)
		}
	}
	if out, code := runToEnd(t, e, "askuser-client", "list"); code != 0 || !strings.Contains(out, "warning: "+want) || !strings.Contains(out, "No questions waiting") {
		t.Errorf("askuser-client list: exit %d, said %q; want a warning saying %q, then the list", code, out, want)
	}
	servesAnAgent(t, e, "fifo-config")
	stopDaemonWithin(e, true)
	leftAlone(t, path)
}

// web-devices.json or web-pairing.json a FIFO: askuserd web, its pairing
// link and its devices commands say why at once (none blocks on it), and
// leave it alone.
func TestFifoAtWebDevices(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"web-devices.json", "web-pairing.json"} {
		t.Run(name, func(t *testing.T) {
			e := NewEnv(t)
			path := e.StateFile(name)
			mkfifo(t, path)
			want := path + " is a FIFO, not a regular file"
			args := [][]string{{"web", "--url"}}
			if name == "web-devices.json" {
				args = append(args, []string{"web", "devices"}, []string{"web", "devices", "revoke", "abcdef"})
			}
			for _, a := range args {
				if out, code := runToEnd(t, e, "askuserd", a...); code != 1 || !strings.Contains(out, want) {
					t.Errorf("askuserd %v: exit %d, said %q; want exit 1 saying %q", a, code, out, want)
				}
			}
			leftAlone(t, path)
		})
	}
}

// reported checks that the daemon says path's trouble where it says a
// pending file's: in status (and, through the same event, in the panes).
func reported(t *testing.T, e *Env, path, want string) {
	t.Helper()
	testdaemon.Eventually(t, "status to report "+path, func() (bool, string) {
		out, _, _ := e.Client("", "status")
		return strings.Contains(out, "file problem:") && strings.Contains(out, path) && strings.Contains(out, want), out
	})
}
