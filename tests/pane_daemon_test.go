package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"askuser/tests/testdaemon"
	"askuser/views"
)

// simPane is the pane's real views and Link on a simulation screen, talking
// to a real daemon.
type Sim struct {
	t   *testing.T
	app *views.App
	scr tcell.SimulationScreen
}

func StartSim(t *testing.T, e *Env, w, h int) *Sim {
	t.Helper()
	scr := tcell.NewSimulationScreen("UTF-8")
	link := &views.Link{Socket: e.Socket}
	app := views.NewApp(link, views.Options{Socket: e.Socket, Bell: true}, scr)
	scr.SetSize(w, h)
	go link.Run(app.Done(), app.Deliver)
	done := make(chan error, 1)
	go func() { done <- app.Run() }()
	t.Cleanup(func() {
		app.Quit()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("pane did not stop")
		}
	})
	return &Sim{t: t, app: app, scr: scr}
}

func (p *Sim) Text() string {
	var cells []tcell.SimCell
	var w, h int
	done := make(chan struct{})
	go func() {
		// Draw, then copy the screen on the UI goroutine: GetContents shares
		// the buffer that drawing writes.
		p.app.TV.QueueUpdateDraw(func() {})
		p.app.TV.QueueUpdate(func() {
			c, cw, ch := p.scr.GetContents()
			cells, w, h = append([]tcell.SimCell(nil), c...), cw, ch
		})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.t.Fatal("the pane's UI is stuck")
	}
	var b strings.Builder
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if r := cells[y*w+x].Runes; len(r) > 0 {
				b.WriteString(string(r))
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (p *Sim) WaitFor(subs ...string) {
	p.t.Helper()
	testdaemon.Eventually(p.t, fmt.Sprintf("the pane to show %q", subs), func() (bool, string) {
		s := p.Text()
		return ContainsAll(s, subs), s
	})
}

func (p *Sim) Key(k tcell.Key, r rune) { p.scr.InjectKey(k, r, tcell.ModNone) }

// typeText types s, one key per character.
func (p *Sim) TypeText(s string) {
	for _, r := range s {
		p.Key(tcell.KeyRune, r)
	}
}

func TestPaneAgainstRealDaemon(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	p := StartSim(t, e, 80, 24)
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
	r, code := WaitClient(t, cmd, out, errb)
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
	p := StartSim(t, e, 80, 24)
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
	cmd := exec.CommandContext(ctx, Bin("askuserd"))
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
