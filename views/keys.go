package views

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"askuser/views/panecore"
)

// InputHandler takes every key the app gives the pane. It never calls
// QueueUpdateDraw: it runs on the UI goroutine already, and the app redraws
// after it returns.
func (p *Pane) InputHandler() func(event *tcell.EventKey, setFocus func(p tview.Primitive)) {
	return p.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		p.Key(ev)
	})
}

// PasteHandler takes a bracketed paste (the app has paste enabled, so a
// paste arrives whole, not as keys). Without it tview's Box would drop the
// pasted text on the floor.
func (p *Pane) PasteHandler() func(text string, setFocus func(p tview.Primitive)) {
	return p.WrapPasteHandler(func(text string, _ func(tview.Primitive)) {
		p.Paste(text)
		if p.afterKey != nil {
			p.afterKey()
		}
	})
}

// Paste inserts pasted text where typing would go: into the open input at
// its cursor, or, on an options list, into Other (the core opens it).
// Like typing, it is not taken while the pane settles.
func (p *Pane) Paste(text string) {
	p.word, p.quiet = "", true
	if p.found.small {
		return
	}
	in := p.V.Input
	if in == nil {
		p.act(panecore.Action{Kind: panecore.Paste, Text: text})
		return
	}
	kind := panecore.Type
	if in.Kind == panecore.InputFilter {
		kind = panecore.FilterText
		text = strings.ReplaceAll(text, "\n", " ") // a filter is one line
	}
	if !p.allows(kind) {
		p.act(panecore.Action{Kind: kind, Text: in.Text}) // says why not
		return
	}
	p.input.PasteHandler()(CleanTyped(text), func(tview.Primitive) {})
	p.act(panecore.Action{Kind: kind, Text: p.input.GetText()})
}

// Key handles one key press through the key table.
func (p *Pane) Key(ev *tcell.EventKey) {
	p.word, p.quiet = "", true
	w, c := p.place()
	c.ev = ev
	b := p.lookup(w, c)
	switch {
	case b == nil:
	case p.found.small && b.do != nil && !isQuit(b):
		// Nothing of the question is on screen: no key may act on it.
	default:
		b.do(p, c)
	}
	if p.afterKey != nil {
		p.afterKey()
	}
}

func isQuit(b *binding) bool {
	for _, k := range b.keys {
		if k.k == tcell.KeyCtrlC || (k.k == tcell.KeyRune && k.r == 'q' && !k.alt) {
			return true
		}
	}
	return false
}

func (p *Pane) quit() {
	p.flushTyping()
	if p.onQuit != nil {
		p.onQuit()
	}
}

// do is a binding's action that is only a core action.
func do(k panecore.Kind) func(*Pane, keyCtx) {
	return func(p *Pane, c keyCtx) { p.act(panecore.Action{Kind: k}) }
}

// number is a number key: the option with that number, as the list shows it.
func (p *Pane) number(c keyCtx) {
	p.act(panecore.Action{Kind: panecore.Pick, Item: int(c.ev.Rune() - '1')})
}

// typeKey hands a key to the open text input, and what it then holds to
// the core.
func (p *Pane) typeKey(c keyCtx) {
	kind := panecore.Type
	if p.V.Input != nil && p.V.Input.Kind == panecore.InputFilter {
		kind = panecore.FilterText
	}
	if !p.allows(kind) {
		p.act(panecore.Action{Kind: kind, Text: p.input.GetText()}) // says why not
		return
	}
	p.input.InputHandler()(c.ev, func(tview.Primitive) {})
	p.act(panecore.Action{Kind: kind, Text: p.input.GetText()})
}

// scroll moves the question's text (PgUp/PgDn) by a step.
func (p *Pane) scroll(c keyCtx) {
	if c.r == nil {
		return
	}
	l := p.layout(c.r, c.r.Tab)
	l.scroll = max(0, l.scroll+p.scrollStep(c.ev))
}

// scrollPreview moves the focused option's preview by a page, a line kept.
func (p *Pane) scrollPreview(c keyCtx) {
	if c.r == nil {
		return
	}
	l := p.layout(c.r, c.r.Tab)
	step := max(1, p.found.previewRows-1)
	if c.ev.Rune() == '}' {
		l.prevTop += step
	} else {
		l.prevTop = max(0, l.prevTop-step)
	}
}

// editor runs the configured editor on the input's text, with the terminal
// handed over (app.Suspend), and gives the core the result as typed text.
func (p *Pane) editor() {
	if p.app == nil || p.act(panecore.Action{Kind: panecore.Edit}) != nil {
		return
	}
	say := func(text string) { p.word = text }
	f, err := os.CreateTemp("", "askuser-answer-*.txt")
	if err != nil {
		say("Editor: " + err.Error())
		return
	}
	path := f.Name()
	defer os.Remove(path)
	_, _ = f.WriteString(p.input.GetText())
	f.Close()
	argv := strings.Fields(p.opt.Editor)
	if len(argv) == 0 {
		argv = []string{"vi"}
	}
	var runErr error
	p.app.Suspend(func() {
		cmd := exec.Command(argv[0], append(argv[1:], path)...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		runErr = cmd.Run()
	})
	if runErr != nil {
		say(fmt.Sprintf("Editor %s: %v; the text is unchanged.", argv[0], runErr))
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		say("Editor: " + err.Error())
		return
	}
	// Editors end files with a newline the user did not mean as part of the answer.
	text := strings.TrimRight(CleanTyped(string(b)), "\n")
	p.act(panecore.Action{Kind: panecore.Type, Text: text})
}
