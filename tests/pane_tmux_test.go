package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
)

// tmuxPane is the real pane (askuserd, no arguments) running in a detached
// tmux session on a private tmux server.
type tmuxPane struct {
	t    testing.TB
	e    *Env
	name string // tmux -L
}

var tmuxSeq atomic.Int64

// startTmuxPane opens the pane in a w×h tmux window, in e's environment.
func startTmuxPane(t *testing.T, e *Env, w, h int, args ...string) *tmuxPane {
	t.Helper()
	return startTmux(t, e, w, h, strings.Join(append([]string{bin("askuserd")}, args...), " "))
}

// startTmux runs command (a shell command line) in a new detached tmux session.
func startTmux(t testing.TB, e *Env, w, h int, command string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		testdaemon.Missing(t, "tmux", "apt-get install tmux, or run .ci/run", "tmux is not installed: the pane's end-to-end tests drive the real pane in tmux; install it (apt-get install tmux) or run .ci/run")
	}
	p := &tmuxPane{t: t, e: e, name: fmt.Sprintf("au-%d-%d", os.Getpid(), tmuxSeq.Add(1))}
	// The tmux server is new (a private -L socket), so it and the pane inherit
	// exactly this environment. TMUX_TMPDIR keeps its socket in the Env.
	p.tmux("-f", "/dev/null", "new-session", "-d", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), command)
	t.Cleanup(func() {
		cmd := exec.Command("tmux", "-L", p.name, "kill-server")
		cmd.Env = p.env()
		_ = cmd.Run()
	})
	return p
}

func (p *tmuxPane) env() []string { return p.e.Environ("TMUX_TMPDIR="+p.e.Root, "TERM=xterm-256color") }

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-L", p.name}, args...)...)
	cmd.Env = p.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// capture is the pane's screen now.
func (p *tmuxPane) capture() string { return p.tmux("capture-pane", "-p") }

// waitFor waits until the screen shows every string.
func (p *tmuxPane) waitFor(subs ...string) string {
	p.t.Helper()
	return testdaemon.Eventually(p.t, fmt.Sprintf("the pane to show %q", subs), func() (bool, string) {
		screen := p.capture()
		return containsAll(screen, subs), screen + "\ndaemon log:\n" + p.e.DaemonLog()
	})
}

// containsAll says whether s holds every one of subs.
func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// keys sends tmux key names (Enter, Escape, Down, Tab, C-c …) once the pane
// has settled: keys that answer are ignored for ui.input_guard after the
// question on screen changes, which the hint line shows as "settling…".
func (p *tmuxPane) keys(keys ...string) {
	p.t.Helper()
	p.waitGone("settling…")
	p.rawKeys(keys...)
}

// rawKeys sends keys at once, settling or not.
func (p *tmuxPane) rawKeys(keys ...string) {
	p.t.Helper()
	p.tmux(append([]string{"send-keys"}, keys...)...)
}

// typeText sends literal text once the pane has settled.
func (p *tmuxPane) typeText(s string) {
	p.t.Helper()
	p.waitGone("settling…")
	p.tmux("send-keys", "-l", s)
}

// paste hands text to the pane as the terminal's bracketed paste, the way a
// user's paste arrives (tmux paste-buffer -p).
func (p *tmuxPane) paste(text string) {
	p.t.Helper()
	p.waitGone("settling…") // a paste is typing: not taken while settling
	f := filepath.Join(p.e.Root, "paste.txt")
	if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
		p.t.Fatal(err)
	}
	p.tmux("load-buffer", f)
	p.tmux("paste-buffer", "-p", "-d")
}

// waitGone waits until the screen no longer shows sub.
func (p *tmuxPane) waitGone(sub string) {
	p.t.Helper()
	testdaemon.Eventually(p.t, fmt.Sprintf("the pane to stop showing %q", sub), func() (bool, string) {
		screen := p.capture()
		return !strings.Contains(screen, sub), screen
	})
}

// pid is the pane process's pid.
func (p *tmuxPane) pid() int {
	p.t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(p.tmux("display-message", "-p", "#{pane_pid}")))
	if err != nil {
		p.t.Fatal(err)
	}
	return n
}

// waitClient waits for a background askuser-client and decodes its result.
func waitClient(t *testing.T, cmd *exec.Cmd, out, errb *bytes.Buffer) (socketproto.Response, int) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("askuser-client did not finish; stderr:\n%s", errb)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	var r socketproto.Response
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("askuser-client output %q (stderr %q): %v", out, errb, err)
	}
	return r, code
}

func TestPaneTmuxAnswerOptions(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	p := startTmuxPane(t, e, 100, 30)
	p.waitFor("No questions waiting", e.Socket)

	cmd, out, errb := e.StartClient("", "ask", "--question", "Which database should we use?", "--header", "Database",
		"--option", "PostgreSQL (Recommended)=Battle-tested relational DB", "--option", "SQLite=Lightweight, file-based")
	p.waitFor("askuser — 1 waiting", "Which database should we use?", "> 1. PostgreSQL (Recommended)", "Battle-tested", "3. Other (type your answer)")
	p.keys("Down")
	p.waitFor("> 2. SQLite")
	p.keys("Enter")
	r, code := waitClient(t, cmd, out, errb)
	if code != 0 || !r.Answered || r.AnsweredVia != "pane" || r.Answers[0].Answer.Text != "SQLite" {
		t.Fatalf("exit %d, result %+v", code, r)
	}
	screen := p.waitFor("No questions waiting", "Answer to “Which database should we use?” sent.")
	if strings.Contains(screen, "SQLite") {
		t.Fatalf("the answered question is still on screen:\n%s", screen)
	}
}

func TestPaneTmuxTabsFreeTextAndNote(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	p := startTmuxPane(t, e, 100, 30)
	p.waitFor("No questions waiting")
	req := `{"questions":[
	  {"question":"Which database should we use?","header":"Database","options":[{"label":"PostgreSQL (Recommended)"},{"label":"SQLite"}]},
	  {"question":"What should we name this service?","header":"Service Name"}]}`
	cmd, out, errb := e.StartClient(req, "ask", "-")
	p.waitFor("← □ Database  □ Service Name  ✓ Submit →")
	p.keys("n")
	p.typeText("keep the old table")
	p.keys("Enter")
	p.waitFor("Note: keep the old table")
	p.keys("1")
	p.waitFor("■ Database", "What should we name this service?")
	p.typeText("order-processor")
	p.keys("Enter")
	p.waitFor("→ PostgreSQL (Recommended)", "→ order-processor")
	p.keys("Enter")
	r, code := waitClient(t, cmd, out, errb)
	if code != 0 || r.Answers[0].Answer.Text != "PostgreSQL (Recommended)" || r.Answers[0].Notes != "keep the old table" ||
		r.Answers[1].Answer.Text != "order-processor" || !r.Answers[1].WasCustom {
		t.Fatalf("exit %d, result %+v", code, r)
	}
}

func TestPaneTmuxEscCancelsAndQuitLeavesDaemon(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	p := startTmuxPane(t, e, 80, 24)
	p.waitFor("No questions waiting")
	cmd, out, errb := e.StartClient("", "ask", "--question", "Proceed?", "--option", "Yes", "--option", "No")
	p.waitFor("Proceed?")
	p.keys("Escape")
	r, code := waitClient(t, cmd, out, errb)
	if code != 3 || !r.Cancelled {
		t.Fatalf("exit %d, result %+v", code, r)
	}
	p.waitFor("“Proceed?” declined.", "No questions waiting")

	// A question left waiting survives the pane quitting.
	if _, _, code := e.Client("", "ask", "--no-wait", "--request-id", "later-1", "--question", "Still there?"); code != 0 {
		t.Fatalf("ask --no-wait exit %d", code)
	}
	p.waitFor("Still there?")
	p.keys("Escape") // free text: Esc with nothing typed cancels …
	p.waitFor("No questions waiting")
	if _, _, code := e.Client("", "ask", "--no-wait", "--request-id", "later-2", "--question", "Pick", "--option", "A", "--option", "B"); code != 0 {
		t.Fatalf("ask --no-wait exit %d", code)
	}
	p.waitFor("Pick")
	pid := p.pid()
	p.keys("q")
	testdaemon.Eventually(t, "the pane to quit on q", func() (bool, string) {
		// Its tmux session goes with it: a capture that finds none is fine.
		capture := exec.Command("tmux", "-L", p.name, "capture-pane", "-p")
		capture.Env = p.env()
		screen, _ := capture.CombinedOutput()
		return !testdaemon.Alive(pid), string(screen)
	})
	stdout, _, code := e.Client("", "list", "--json")
	if code != 0 || !strings.Contains(stdout, "later-2") {
		t.Fatalf("after quitting the pane, list says (exit %d):\n%s", code, stdout)
	}
}

func TestPaneTmuxStartsDaemonAndSplitNeedsTmux(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	// No daemon yet: the pane starts one in the background.
	p := startTmuxPane(t, e, 80, 24)
	p.waitFor("No questions waiting")
	stdout, _, code := e.Client("", "status", "--json")
	if code != 0 || !strings.Contains(stdout, `"panes"`) {
		t.Fatalf("status after the pane started the daemon (exit %d): %s", code, stdout)
	}
	e.wantAutostartedInRoot()
	t.Cleanup(func() {
		// Stop the daemon the pane started (it runs in its own session).
		c, err := socketproto.Dial(e.Socket, 0)
		if err != nil {
			return
		}
		c.Close()
		out, _ := exec.Command("pgrep", "-f", "^"+bin("askuserd")+" serve --socket "+e.Socket).Output()
		for _, f := range strings.Fields(string(out)) {
			pid, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			if proc, err := os.FindProcess(pid); err == nil {
				_ = proc.Signal(os.Interrupt)
			}
			// It is not our child: wait for it to go, so it does not outlive
			// the test or write into a state dir being removed.
			testdaemon.Eventually(t, fmt.Sprintf("the daemon the pane started (pid %d) to stop on SIGINT", pid), func() (bool, string) {
				return !testdaemon.Alive(pid), "alive"
			})
		}
	})

	cmd := exec.Command(bin("askuserd"), "--split")
	cmd.Env = e.Environ() // no TMUX
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(errb.String(), "askuserd --split needs tmux: run it inside a tmux session") {
		t.Fatalf("--split outside tmux: %v, stderr %q", err, errb.String())
	}
}

// At 80 columns too: halved, they would leave the new pane one column short
// of the pane's least, and it would say only "terminal too small".
func TestPaneTmuxSplit(t *testing.T) {
	t.Parallel()
	for _, width := range []int{160, 80} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			t.Parallel()
			testPaneTmuxSplit(t, width)
		})
	}
}

func testPaneTmuxSplit(t *testing.T, width int) {
	e := NewEnv(t)
	e.StartDaemon()
	shell := startTmux(t, e, width, 24, "sh")
	shell.typeText(bin("askuserd") + " --split; echo split-exit=$?")
	shell.keys("Enter")
	// The new pane takes the focus: read each side by name.
	testdaemon.Eventually(t, "askuserd --split to exit 0", func() (bool, string) {
		left := shell.tmux("capture-pane", "-p", "-t", "{left}")
		return strings.Contains(left, "split-exit=0"), left
	})
	if panes := strings.Fields(shell.tmux("list-panes", "-F", "#{pane_id}")); len(panes) != 2 {
		t.Fatalf("after --split: panes %v", panes)
	}
	// The new pane is the askuser pane.
	testdaemon.Eventually(t, "the split pane to show the empty inbox", func() (bool, string) {
		out := shell.tmux("capture-pane", "-p", "-t", "{right}")
		return strings.Contains(out, "No questions waiting"), out
	})
}

// --split in a detached session (no tmux client attached, as when driven
// by a script or over ssh) splits the pane it was run from, not window 0.
func TestPaneTmuxSplitsTheWindowItRunsIn(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	shell := startTmux(t, e, 160, 30, "sh")
	shell.tmux("new-window", "-d", "sh") // window 1, not the current one
	target := shell.e.Root + "-split-exit"
	shell.tmux("send-keys", "-t", ":1", "-l", bin("askuserd")+" --split; echo $? > "+target)
	shell.tmux("send-keys", "-t", ":1", "Enter")
	testdaemon.Eventually(t, "askuserd --split in window 1 to exit 0", func() (bool, string) {
		b, err := os.ReadFile(target)
		return err == nil && strings.TrimSpace(string(b)) == "0", shell.tmux("capture-pane", "-p", "-t", ":1")
	})
	os.Remove(target)
	if panes := strings.Fields(shell.tmux("list-panes", "-t", ":0", "-F", "#{pane_id}")); len(panes) != 1 {
		t.Errorf("window 0 was split: panes %v", panes)
	}
	if panes := strings.Fields(shell.tmux("list-panes", "-t", ":1", "-F", "#{pane_id}")); len(panes) != 2 {
		t.Errorf("window 1, where --split ran, has panes %v; want 2", panes)
	}
}

// A pane open all day outlives a daemon crash: killed with SIGKILL (its
// socket left behind), the daemon is started again by the pane, and the
// question it had acknowledged is back. Stopped on purpose (askuserd stop),
// it stays stopped.
func TestPaneTmuxRestartsACrashedDaemon(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	p := startTmuxPane(t, e, 80, 24) // starts the daemon in the background
	p.waitFor("No questions waiting")
	if _, errs, code := e.Client("", "ask", "--no-wait", "--request-id", "crash-1", "--question", "Still here after a crash?"); code != 0 {
		t.Fatalf("ask --no-wait: exit %d: %s", code, errs)
	}
	p.waitFor("Still here after a crash?")
	first, err := testdaemon.LockHolder(e.Socket)
	if err != nil || first == 0 {
		t.Fatalf("no daemon holds the lock: %v", err)
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}

	testdaemon.Eventually(t, "a new daemon, started by the pane, listing crash-1", func() (bool, string) {
		pid, _ := testdaemon.LockHolder(e.Socket)
		if pid == 0 || pid == first {
			return false, fmt.Sprintf("lock holder %d (the killed one: %d)\nscreen:\n%s", pid, first, p.capture())
		}
		// list never starts a daemon: this one is the pane's.
		out, errOut, code := e.Client("", "list")
		return code == 0 && strings.Contains(out, "crash-1"), out + errOut
	})
	p.waitFor("Still here after a crash?", "1 waiting")

	stop := exec.Command(bin("askuserd"), "stop")
	stop.Env = e.Environ()
	if msg, err := stop.CombinedOutput(); err != nil {
		t.Fatalf("askuserd stop: %v\n%s", err, msg)
	}
	p.waitFor("it was stopped (askuserd stop", "`askuserd serve`")
	// The raw error is for the log, not the screen.
	if log, _ := os.ReadFile(filepath.Join(e.State, "askuser", "askuserd.log")); !strings.Contains(string(log), "pane: not connected to askuserd at "+e.Socket) {
		t.Errorf("askuserd.log lacks the pane's raw error:\n%s", log)
	}
	if strings.Contains(p.capture(), "dial unix") {
		t.Errorf("the raw error is on screen:\n%s", p.capture())
	}
	// Three of the pane's dials later, still nobody on the socket. The
	// pane's own timing: it dials once a second, and a dial that finds
	// nobody leaves no trace to wait for, so the clock counts the dials.
	time.Sleep(3 * time.Second)
	if pid, _ := testdaemon.LockHolder(e.Socket); pid != 0 {
		t.Fatalf("the pane started the daemon again (pid %d) after askuserd stop", pid)
	}
}

// askuserd --demo says it is a demo, and that an answer given there reaches
// no agent.
func TestPaneTmuxDemoSaysSo(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	p := startTmuxPane(t, e, 120, 35, "--demo")
	p.waitFor("askuser DEMO (nothing is sent)", "Which database should we use?")
	p.keys("Escape") // nothing answered: declined at once
	p.waitFor("declined")
	p.waitFor("Which framework") // the next fixture request
	p.keys("1")
	p.waitFor("Demo: the answer to", "would be sent now; no agent asked it.")
}
