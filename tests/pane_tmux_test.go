package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/termpane"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

func TestPaneTmuxAnswerOptions(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	p := termpane.StartTmuxPane(t, e, 100, 30)
	p.WaitFor("No questions waiting", e.Socket)

	cmd, out, errb := e.StartClient("", "ask", "--question", "Which database should we use?", "--header", "Database",
		"--option", "PostgreSQL (Recommended)=Battle-tested relational DB", "--option", "SQLite=Lightweight, file-based")
	p.WaitFor("askuser — 1 waiting", "Which database should we use?", "> 1. PostgreSQL (Recommended)", "Battle-tested", "3. Other (type your answer)")
	p.Keys("Down")
	p.WaitFor("> 2. SQLite")
	p.Keys("Enter")
	r, code := testenv.WaitClient(t, cmd, out, errb)
	if code != 0 || !r.Answered || r.AnsweredVia != "pane" || r.Answers[0].Answer.Text != "SQLite" {
		t.Fatalf("exit %d, result %+v", code, r)
	}
	screen := p.WaitFor("No questions waiting", "Answer to “Which database should we use?” sent.")
	if strings.Contains(screen, "SQLite") {
		t.Fatalf("the answered question is still on screen:\n%s", screen)
	}
}

func TestPaneTmuxTabsFreeTextAndNote(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	p := termpane.StartTmuxPane(t, e, 100, 30)
	p.WaitFor("No questions waiting")
	req := `{"questions":[
	  {"question":"Which database should we use?","header":"Database","options":[{"label":"PostgreSQL (Recommended)"},{"label":"SQLite"}]},
	  {"question":"What should we name this service?","header":"Service Name"}]}`
	cmd, out, errb := e.StartClient(req, "ask", "-")
	p.WaitFor("← □ Database  □ Service Name  ✓ Submit →")
	p.Keys("n")
	p.TypeText("keep the old table")
	p.Keys("Enter")
	p.WaitFor("Note: keep the old table")
	p.Keys("1")
	p.WaitFor("■ Database", "What should we name this service?")
	p.TypeText("order-processor")
	p.Keys("Enter")
	p.WaitFor("→ PostgreSQL (Recommended)", "→ order-processor")
	p.Keys("Enter")
	r, code := testenv.WaitClient(t, cmd, out, errb)
	if code != 0 || r.Answers[0].Answer.Text != "PostgreSQL (Recommended)" || r.Answers[0].Notes != "keep the old table" ||
		r.Answers[1].Answer.Text != "order-processor" || !r.Answers[1].WasCustom {
		t.Fatalf("exit %d, result %+v", code, r)
	}
}

func TestPaneTmuxEscCancelsAndQuitLeavesDaemon(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	p := termpane.StartTmuxPane(t, e, 80, 24)
	p.WaitFor("No questions waiting")
	cmd, out, errb := e.StartClient("", "ask", "--question", "Proceed?", "--option", "Yes", "--option", "No")
	p.WaitFor("Proceed?")
	p.Keys("Escape")
	r, code := testenv.WaitClient(t, cmd, out, errb)
	if code != 3 || !r.Cancelled {
		t.Fatalf("exit %d, result %+v", code, r)
	}
	p.WaitFor("“Proceed?” declined.", "No questions waiting")

	// A question left waiting survives the pane quitting.
	if _, _, code := e.Client("", "ask", "--no-wait", "--request-id", "later-1", "--question", "Still there?"); code != 0 {
		t.Fatalf("ask --no-wait exit %d", code)
	}
	p.WaitFor("Still there?")
	p.Keys("Escape") // free text: Esc with nothing typed cancels …
	p.WaitFor("No questions waiting")
	if _, _, code := e.Client("", "ask", "--no-wait", "--request-id", "later-2", "--question", "Pick", "--option", "A", "--option", "B"); code != 0 {
		t.Fatalf("ask --no-wait exit %d", code)
	}
	p.WaitFor("Pick")
	pid := p.Pid()
	p.Keys("q")
	testdaemon.Eventually(t, "the pane to quit on q", func() (bool, string) {
		// Its tmux session goes with it: a capture that finds none is fine.
		capture := exec.Command("tmux", "-L", p.Socket, "capture-pane", "-p")
		capture.Env = p.Environ()
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
	p := termpane.StartTmuxPane(t, e, 80, 24)
	p.WaitFor("No questions waiting")
	stdout, _, code := e.Client("", "status", "--json")
	if code != 0 || !strings.Contains(stdout, `"panes"`) {
		t.Fatalf("status after the pane started the daemon (exit %d): %s", code, stdout)
	}
	e.WantAutostartedInRoot()
	t.Cleanup(func() {
		// Stop the daemon the pane started (it runs in its own session).
		c, err := socketproto.Dial(e.Socket, 0)
		if err != nil {
			return
		}
		c.Close()
		out, _ := exec.Command("pgrep", "-f", "^"+testenv.Bin("askuserd")+" serve --socket "+e.Socket).Output()
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

	cmd := exec.Command(testenv.Bin("askuserd"), "--split")
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
	shell := termpane.StartTmux(t, e, width, 24, "sh")
	shell.TypeText(testenv.Bin("askuserd") + " --split; echo split-exit=$?")
	shell.Keys("Enter")
	// The new pane takes the focus: read each side by name.
	testdaemon.Eventually(t, "askuserd --split to exit 0", func() (bool, string) {
		left := shell.Tmux("capture-pane", "-p", "-t", "{left}")
		return strings.Contains(left, "split-exit=0"), left
	})
	if panes := strings.Fields(shell.Tmux("list-panes", "-F", "#{pane_id}")); len(panes) != 2 {
		t.Fatalf("after --split: panes %v", panes)
	}
	// The new pane is the askuser pane.
	testdaemon.Eventually(t, "the split pane to show the empty inbox", func() (bool, string) {
		out := shell.Tmux("capture-pane", "-p", "-t", "{right}")
		return strings.Contains(out, "No questions waiting"), out
	})
}

// --split in a detached session (no tmux client attached, as when driven
// by a script or over ssh) splits the pane it was run from, not window 0.
func TestPaneTmuxSplitsTheWindowItRunsIn(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	shell := termpane.StartTmux(t, e, 160, 30, "sh")
	shell.Tmux("new-window", "-d", "sh") // window 1, not the current one
	target := shell.Env.Root + "-split-exit"
	shell.Tmux("send-keys", "-t", ":1", "-l", testenv.Bin("askuserd")+" --split; echo $? > "+target)
	shell.Tmux("send-keys", "-t", ":1", "Enter")
	testdaemon.Eventually(t, "askuserd --split in window 1 to exit 0", func() (bool, string) {
		b, err := os.ReadFile(target)
		return err == nil && strings.TrimSpace(string(b)) == "0", shell.Tmux("capture-pane", "-p", "-t", ":1")
	})
	os.Remove(target)
	if panes := strings.Fields(shell.Tmux("list-panes", "-t", ":0", "-F", "#{pane_id}")); len(panes) != 1 {
		t.Errorf("window 0 was split: panes %v", panes)
	}
	if panes := strings.Fields(shell.Tmux("list-panes", "-t", ":1", "-F", "#{pane_id}")); len(panes) != 2 {
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
	p := termpane.StartTmuxPane(t, e, 80, 24) // starts the daemon in the background
	p.WaitFor("No questions waiting")
	if _, errs, code := e.Client("", "ask", "--no-wait", "--request-id", "crash-1", "--question", "Still here after a crash?"); code != 0 {
		t.Fatalf("ask --no-wait: exit %d: %s", code, errs)
	}
	p.WaitFor("Still here after a crash?")
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
			return false, fmt.Sprintf("lock holder %d (the killed one: %d)\nscreen:\n%s", pid, first, p.Capture())
		}
		// list never starts a daemon: this one is the pane's.
		out, errOut, code := e.Client("", "list")
		return code == 0 && strings.Contains(out, "crash-1"), out + errOut
	})
	p.WaitFor("Still here after a crash?", "1 waiting")

	stop := exec.Command(testenv.Bin("askuserd"), "stop")
	stop.Env = e.Environ()
	if msg, err := stop.CombinedOutput(); err != nil {
		t.Fatalf("askuserd stop: %v\n%s", err, msg)
	}
	p.WaitFor("it was stopped (askuserd stop", "`askuserd serve`")
	// The raw error is for the log, not the screen.
	if log, _ := os.ReadFile(filepath.Join(e.State, "askuser", "askuserd.log")); !strings.Contains(string(log), "pane: not connected to askuserd at "+e.Socket) {
		t.Errorf("askuserd.log lacks the pane's raw error:\n%s", log)
	}
	if strings.Contains(p.Capture(), "dial unix") {
		t.Errorf("the raw error is on screen:\n%s", p.Capture())
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
	p := termpane.StartTmuxPane(t, e, 120, 35, "--demo")
	p.WaitFor("askuser DEMO (nothing is sent)", "Which database should we use?")
	p.Keys("Escape") // nothing answered: declined at once
	p.WaitFor("declined")
	p.WaitFor("Which framework") // the next fixture request
	p.Keys("1")
	p.WaitFor("Demo: the answer to", "would be sent now; no agent asked it.")
}
