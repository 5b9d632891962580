package views

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"askuser/socketproto"
)

// TestRandomKeysNeverPanic drives the pane widget directly (no app) with
// random keys, pastes, sizes and daemon events, drawing after each: nothing may panic.
func TestRandomKeysNeverPanic(t *testing.T) {
	t.Parallel()
	scr := tcell.NewSimulationScreen("UTF-8")
	if err := scr.Init(); err != nil {
		t.Fatal(err)
	}
	defer scr.Fini()
	d := &fakeDaemon{}
	p := NewPane(d, Options{Socket: "/x.sock", SoftLimit: 30, Bell: true})
	rng := rand.New(rand.NewSource(1))
	keys := []tcell.Key{tcell.KeyUp, tcell.KeyDown, tcell.KeyLeft, tcell.KeyRight, tcell.KeyEnter, tcell.KeyEscape,
		tcell.KeyTab, tcell.KeyBacktab, tcell.KeyPgUp, tcell.KeyPgDn, tcell.KeyHome, tcell.KeyEnd, tcell.KeyBackspace2,
		tcell.KeyCtrlN, tcell.KeyCtrlP, tcell.KeyCtrlU, tcell.KeyCtrlE}
	runes := []rune("0123456789jkqn/ []{}yYNxhlgG\u202E[red]é😀")
	preview := dbQuestion()
	preview.Options[1].Preview = "line\nline\nline\nline\nline\nline\nline\nline"
	kinds := []socketproto.Question{dbQuestion(), nameQuestion(), multi(question("Which?", "H", "A=a", "B=b", "C")), frameworkQuestion(15), preview,
		question(fmt.Sprintf("%0300d", 0), "Long", "X")}
	made := map[string]socketproto.Pending{}
	newPending := func(i int) socketproto.Pending {
		var qs []socketproto.Question
		for n := rng.Intn(4); n >= 0; n-- {
			qs = append(qs, kinds[rng.Intn(len(kinds))])
		}
		made[fmt.Sprintf("req-%d", i)] = pending(fmt.Sprintf("req-%d", i), qs...)
		return made[fmt.Sprintf("req-%d", i)]
	}
	next := 0
	for step := 0; step < 1500; step++ {
		switch r := rng.Intn(100); {
		case r < 3:
			next++
			p.HandleEvent(socketproto.RequestAdded{Request: newPending(next)})
		case r < 5 && next > 0:
			p.HandleEvent(socketproto.RequestResolved{RequestID: fmt.Sprintf("req-%d", rng.Intn(next)+1), Outcome: "answered", Via: "file"})
		case r < 6:
			p.HandleEvent(connLost{Err: "gone"})
		case r < 7:
			var ps []socketproto.Pending
			for _, rq := range p.V.Requests {
				if rng.Intn(4) > 0 {
					ps = append(ps, made[rq.ID])
				}
			}
			p.HandleEvent(socketproto.Snapshot{Pending: ps})
		case r < 8 && next > 0:
			p.HandleEvent(&socketproto.Error{RequestID: fmt.Sprintf("req-%d", rng.Intn(next)+1), Code: socketproto.CodeInvalidAnswer, Message: "no"})
		case r < 10:
			scr.SetSize(1+rng.Intn(160), 1+rng.Intn(50))
		case r < 12:
			p.Paste([]string{"pasted", "two\nlines", "[red]x\x1b[2J", "9", strings.Repeat("long ", 20)}[rng.Intn(5)])
		case r < 55:
			p.Key(tcell.NewEventKey(keys[rng.Intn(len(keys))], 0, tcell.ModNone))
		default:
			p.Key(tcell.NewEventKey(tcell.KeyRune, runes[rng.Intn(len(runes))], tcell.ModNone))
		}
		w, h := scr.Size()
		p.SetRect(0, 0, w, h)
		p.Draw(scr)
	}
	if len(d.Sent()) == 0 {
		t.Fatal("1,500 random steps never sent an answer or a cancel: the run exercised too little")
	}
}
