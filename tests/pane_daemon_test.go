package tests

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"askuser/tests/termpane"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

func TestPaneAgainstRealDaemon(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	p := termpane.StartSim(t, e, 80, 24)
	p.WaitFor("No questions waiting")

	req := `{"requestId":"db-1","questions":[{"question":"Which features?","header":"Features","multiSelect":true,
	  "options":[{"label":"Authentication"},{"label":"REST API"},{"label":"Admin Dashboard"}]}]}`
	cmd, out, errb := e.StartClient(req, "ask", "-")
	p.WaitFor("Which features?", "[ ] 1. Authentication")
	p.Key(tcell.KeyRune, '1')
	p.Key(tcell.KeyRune, '3')
	p.Key(tcell.KeyRune, '0')
	p.TypeText("Use Redis too")
	p.Key(tcell.KeyEnter, 0) // accepts the Other text
	p.WaitFor("[x] 4. Other: Use Redis too")
	p.Key(tcell.KeyEnter, 0) // confirms the question: sent
	r, code := testenv.WaitClient(t, cmd, out, errb)
	if code != 0 || r.AnsweredVia != "pane" || !r.Answers[0].Answer.IsList ||
		strings.Join(r.Answers[0].Answer.List, "|") != "Authentication|Admin Dashboard|Use Redis too" || !r.Answers[0].WasCustom {
		t.Fatalf("exit %d, result %+v", code, r)
	}
	p.WaitFor("Answer to “Which features?” sent.", "No questions waiting")

	// Answered elsewhere (the CLI) while shown: the pane says so.
	if _, _, code := e.Client("", "ask", "--no-wait", "--request-id", "cli-1", "--question", "Pick", "--option", "A", "--option", "B"); code != 0 {
		t.Fatalf("ask --no-wait: exit %d", code)
	}
	p.WaitFor("Pick")
	if _, errs, code := e.Client("", "answer", "cli-1", "B"); code != 0 {
		t.Fatalf("answer: exit %d: %s", code, errs)
	}
	p.WaitFor("“Pick” was answered elsewhere (cli).", "No questions waiting")
}

func TestPaneReconnectsAfterDaemonRestart(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	p := termpane.StartSim(t, e, 80, 24)
	if _, _, code := e.Client("", "ask", "--no-wait", "--request-id", "keep-1", "--question", "Name?"); code != 0 {
		t.Fatalf("ask --no-wait: exit %d", code)
	}
	p.WaitFor("Name?")
	p.TypeText("typed while away")
	p.WaitFor("> typed while away")
	e.StopDaemon()
	p.WaitFor("Not connected to askuserd: it was stopped", "`askuserd serve`", "> typed while away")
	e.StartDaemon()
	testdaemon.Eventually(t, "the pane to reconnect", func() (bool, string) {
		s := p.Text()
		return !strings.Contains(s, "Not connected"), s
	})
	// If the daemon brought the request back, what was typed is still there.
	if s := p.Text(); strings.Contains(s, "Name?") && !strings.Contains(s, "> typed while away") {
		t.Fatalf("the typed answer was lost on reconnecting:\n%s", s)
	}
	if _, _, code := e.Client("", "ask", "--no-wait", "--request-id", "new-1", "--question", "Again?", "--option", "Y", "--option", "N"); code != 0 {
		t.Fatalf("ask --no-wait: exit %d", code)
	}
	testdaemon.Eventually(t, "the new request to show", func() (bool, string) {
		s := p.Text()
		if !strings.Contains(s, "Again?") {
			p.Key(tcell.KeyCtrlN, 0) // past the restored request, if any
		}
		return strings.Contains(s, "Again?"), s
	})
}

// Without a terminal (no controlling tty) the pane cannot open its screen: it
// says why and exits 1, and the daemon it found goes on.
func TestPaneWithoutTerminalExitsWithError(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, testenv.Bin("askuserd"))
	cmd.Env = e.Environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 1 {
		t.Fatalf("askuserd without a terminal: %v, want exit 1; stderr:\n%s", err, &stderr)
	}
	if s := stderr.String(); !strings.HasPrefix(s, "askuserd: the pane needs a terminal: ") || strings.Contains(s, "panic") {
		t.Fatalf("stderr is not one error line:\n%s", s)
	}
	if _, errs, code := e.Client("", "ask", "--no-wait", "--question", "Still there?"); code != 0 {
		t.Fatalf("the daemon did not go on: exit %d: %s", code, errs)
	}
}
