package termpane

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
	"askuser/views"
)

// Sim is the pane's real views and Link on a simulation screen, talking
// to a real daemon.
type Sim struct {
	t   *testing.T
	app *views.App
	scr tcell.SimulationScreen
}

// StartSim runs the pane's views in-process on a w×h simulation screen,
// talking to e's daemon; it quits when the test ends.
func StartSim(t *testing.T, e *testenv.Env, w, h int) *Sim {
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

// Text is the screen once drawn: one line per row.
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

// WaitFor waits until the screen shows every one of subs.
func (p *Sim) WaitFor(subs ...string) {
	p.t.Helper()
	testdaemon.Eventually(p.t, fmt.Sprintf("the pane to show %q", subs), func() (bool, string) {
		s := p.Text()
		return testenv.ContainsAll(s, subs), s
	})
}

// Key presses one key.
func (p *Sim) Key(k tcell.Key, r rune) { p.scr.InjectKey(k, r, tcell.ModNone) }

// TypeText types s, one key per character.
func (p *Sim) TypeText(s string) {
	for _, r := range s {
		p.Key(tcell.KeyRune, r)
	}
}
