package views

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
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

// Paste inserts pasted text where typing would go. On an options list it
// opens Other with the text in it: pasting is typing an answer, and nothing
// is accepted until Enter.
func (p *Pane) Paste(text string) {
	p.hint = ""
	text = CleanTyped(text)
	if p.mode == modeList {
		if r := p.M.Focused(); r != nil && !r.Sending {
			if s := r.Current(); s != nil && s.HasOptions() {
				p.pick(r, s, s.Other())
			}
		}
	}
	if p.mode == modeFilter {
		text = strings.ReplaceAll(text, "\n", " ") // a filter is one line
	}
	switch p.mode {
	case modeText, modeNote, modeFilter:
		p.input.PasteHandler()(text, func(tview.Primitive) {})
		p.editQ.Touched = true
		if p.mode == modeFilter {
			p.editQ.Filter = p.input.GetText()
			p.editQ.WinTop = 0
			p.move(p.editQ, 0)
		}
	case modeLong, modeDiscard:
		p.hint = "Not pasted: answer the question at the bottom first."
	default:
		p.hint = "Not pasted: there is no answer to type here."
	}
	p.sync()
}

// Key handles one key press.
func (p *Pane) Key(ev *tcell.EventKey) {
	p.hint = ""
	switch p.mode {
	case modeLong:
		p.longKey(ev)
	case modeDiscard:
		p.discardKey(ev)
	case modeText, modeNote, modeFilter:
		p.editKey(ev)
	default:
		p.listKey(ev)
	}
	p.sync()
	if p.afterKey != nil {
		p.afterKey()
	}
}

func isRune(ev *tcell.EventKey, rs ...rune) bool {
	if ev.Key() != tcell.KeyRune {
		return false
	}
	for _, r := range rs {
		if ev.Rune() == r {
			return true
		}
	}
	return false
}

func (p *Pane) quit() {
	if p.onQuit != nil {
		p.onQuit()
	}
}

// switchRequest moves between waiting requests, keeping whatever was typed.
func (p *Pane) switchRequest(d int) {
	p.closeInput()
	p.M.Step(d)
}

func (p *Pane) listKey(ev *tcell.EventKey) {
	r := p.M.Focused()
	switch {
	case isRune(ev, 'q'):
		p.quit()
		return
	case isRune(ev, ']') || ev.Key() == tcell.KeyCtrlN:
		p.switchRequest(+1)
		return
	case isRune(ev, '[') || ev.Key() == tcell.KeyCtrlP:
		p.switchRequest(-1)
		return
	}
	if r == nil || r.Sending {
		return
	}
	switch {
	case ev.Key() == tcell.KeyTab || ev.Key() == tcell.KeyRight || isRune(ev, 'l'):
		p.setTab(r, r.Tab+1)
		return
	case ev.Key() == tcell.KeyBacktab || ev.Key() == tcell.KeyLeft || isRune(ev, 'h'):
		p.setTab(r, r.Tab-1)
		return
	}
	if r.OnSubmit() {
		switch {
		case ev.Key() == tcell.KeyEnter:
			p.submit(r)
		case ev.Key() == tcell.KeyEscape:
			p.cancelFlow(r)
		case ev.Key() == tcell.KeyPgDn || ev.Key() == tcell.KeyDown || isRune(ev, 'j'):
			p.submitScroll++
		case ev.Key() == tcell.KeyPgUp || ev.Key() == tcell.KeyUp || isRune(ev, 'k'):
			p.submitScroll = max(0, p.submitScroll-1)
		}
		return
	}
	s := r.Current()
	if s == nil {
		if ev.Key() == tcell.KeyEscape {
			p.cancelFlow(r)
		}
		return
	}
	switch {
	case ev.Key() == tcell.KeyUp || isRune(ev, 'k'):
		p.move(s, -1)
	case ev.Key() == tcell.KeyDown || isRune(ev, 'j'):
		p.move(s, +1)
	case ev.Key() == tcell.KeyHome || isRune(ev, 'g'):
		p.move(s, -len(s.Q.Options)-1)
	case ev.Key() == tcell.KeyEnd || isRune(ev, 'G'):
		p.move(s, len(s.Q.Options)+1)
	case ev.Key() == tcell.KeyPgDn:
		s.Scroll++
	case ev.Key() == tcell.KeyPgUp:
		s.Scroll = max(0, s.Scroll-1)
	case isRune(ev, '}'):
		s.PrevTop++
	case isRune(ev, '{'):
		s.PrevTop = max(0, s.PrevTop-1)
	case ev.Key() == tcell.KeyEnter:
		if s.Q.IsMulti() {
			p.confirmMulti(r, s)
		} else {
			p.choose(r, s, s.Cursor)
		}
	case isRune(ev, ' '):
		if s.Q.IsMulti() {
			p.toggle(s, s.Cursor)
		}
	case isRune(ev, '0'):
		p.pick(r, s, s.Other())
	case ev.Key() == tcell.KeyRune && ev.Rune() >= '1' && ev.Rune() <= '9':
		if i := int(ev.Rune() - '1'); i <= s.Other() {
			p.pick(r, s, i)
		}
	case isRune(ev, '/'):
		p.startEdit(modeFilter)
	case isRune(ev, 'n'):
		p.startEdit(modeNote)
	case ev.Key() == tcell.KeyCtrlE && s.Cursor == s.Other():
		p.pick(r, s, s.Other())
		if p.mode == modeText {
			p.editor()
		}
	case ev.Key() == tcell.KeyEscape:
		if s.Filter != "" {
			s.Filter = ""
			p.move(s, 0)
			return
		}
		p.cancelFlow(r)
	}
}

// move steps the focus through the options shown (the filter applies).
func (p *Pane) move(s *QState, d int) {
	items := s.Items()
	pos := indexOf(items, s.Cursor)
	if pos < 0 {
		pos = 0
		d = 0
	}
	pos = min(max(pos+d, 0), len(items)-1)
	if s.Cursor != items[pos] {
		s.Scroll = min(s.Scroll, p.qOverflow)
		s.PrevTop = 0
	}
	s.Cursor = items[pos]
	s.Touched = true
}

func indexOf(xs []int, v int) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return -1
}

// pick is a number key: choose at once (single-select) or toggle
// (multi-select); Other opens the text input.
func (p *Pane) pick(r *Req, s *QState, i int) {
	s.Cursor = i
	s.Touched = true
	if s.Q.IsMulti() {
		if i == s.Other() {
			s.Checked[i] = true
			p.startEdit(modeText)
			return
		}
		p.toggle(s, i)
		return
	}
	p.choose(r, s, i)
}

// choose answers a single-select question with item i.
func (p *Pane) choose(r *Req, s *QState, i int) {
	s.Touched = true
	s.Cursor = i
	if i == s.Other() {
		p.startEdit(modeText)
		return
	}
	s.Choice = i
	s.Answered = true
	p.advance(r)
}

func (p *Pane) toggle(s *QState, i int) {
	s.Touched = true
	s.Cursor = i
	s.Checked[i] = !s.Checked[i]
	if i == s.Other() && s.Checked[i] {
		p.startEdit(modeText)
		return
	}
	if s.Answered && !anyChecked(s) {
		s.Answered = false
	}
}

func anyChecked(s *QState) bool {
	for _, c := range s.Checked {
		if c {
			return true
		}
	}
	return false
}

// confirmMulti is Enter on a multi-select question. With nothing checked,
// Enter takes the focused option, as it would on a single-select one.
func (p *Pane) confirmMulti(r *Req, s *QState) {
	if !anyChecked(s) {
		s.Checked[s.Cursor] = true
	}
	if s.Checked[s.Other()] && strings.TrimSpace(s.Custom) == "" {
		p.startEdit(modeText)
		return
	}
	s.Touched = true
	s.Answered = true
	p.advance(r)
}

// editKey handles keys while the text input is open.
func (p *Pane) editKey(ev *tcell.EventKey) {
	r, s := p.editReq, p.editQ
	if r == nil || s == nil {
		p.mode = modeList
		return
	}
	switch ev.Key() {
	case tcell.KeyEnter:
		p.finishEdit(true)
		return
	case tcell.KeyEscape:
		p.finishEdit(false)
		return
	case tcell.KeyCtrlE:
		if p.mode != modeFilter {
			p.editor()
		}
		return
	case tcell.KeyTab, tcell.KeyBacktab:
		if p.mode == modeText { // the text is kept, not accepted
			d := 1
			if ev.Key() == tcell.KeyBacktab {
				d = -1
			}
			p.setTab(r, r.Tab+d)
		}
		return
	case tcell.KeyPgDn:
		s.Scroll++
		return
	case tcell.KeyPgUp:
		s.Scroll = max(0, s.Scroll-1)
		return
	case tcell.KeyRune:
		if ev.Modifiers()&tcell.ModAlt != 0 && (ev.Rune() == 'n' || ev.Rune() == 'N') && p.mode == modeText {
			// Alt-N: a note for a free-text answer, where n is just a letter.
			p.closeInput()
			p.startEdit(modeNote)
			return
		}
	case tcell.KeyCtrlN, tcell.KeyCtrlP:
		d := 1
		if ev.Key() == tcell.KeyCtrlP {
			d = -1
		}
		p.switchRequest(d)
		return
	}
	if p.mode == modeFilter && (ev.Key() == tcell.KeyUp || ev.Key() == tcell.KeyDown) {
		d := 1
		if ev.Key() == tcell.KeyUp {
			d = -1
		}
		p.move(s, d)
		return
	}
	p.input.InputHandler()(ev, func(tview.Primitive) {})
	s.Touched = true
	if p.mode == modeFilter {
		s.Filter = p.input.GetText()
		s.WinTop = 0
		p.move(s, 0)
	}
}

// finishEdit is Enter (accept) or Esc (leave) in the text input.
func (p *Pane) finishEdit(accept bool) {
	r, s := p.editReq, p.editQ
	text := CleanTyped(p.input.GetText())
	switch p.mode {
	case modeNote:
		if accept {
			s.Notes = strings.TrimSpace(text)
		}
		p.endEdit()
		p.mode = modeList
	case modeFilter:
		if accept {
			s.Filter = text
		} else {
			s.Filter = ""
		}
		p.endEdit()
		p.mode = modeList
		p.move(s, 0)
	case modeText:
		if !accept {
			s.Custom = text
			if !s.HasOptions() {
				p.cancelFlow(r)
				return
			}
			if s.Q.IsMulti() && strings.TrimSpace(text) == "" {
				s.Checked[s.Other()] = false
			}
			p.endEdit()
			p.mode = modeList
			return
		}
		if strings.TrimSpace(text) == "" {
			p.hint = "Type an answer first (Esc to leave the input)."
			return
		}
		if n := runeLen(text); n > p.opt.SoftLimit {
			p.mode = modeLong
			p.hint = ""
			return
		}
		p.acceptText(r, s, text)
	}
}

// acceptText makes typed text the question's answer (or its Other part).
func (p *Pane) acceptText(r *Req, s *QState, text string) {
	s.Custom = text
	s.Touched = true
	p.endEdit()
	p.mode = modeList
	switch {
	case s.Q.IsMulti():
		s.Checked[s.Other()] = true
		return // Enter on the list confirms the whole question
	case s.HasOptions():
		s.Choice = s.Other()
	}
	s.Answered = true
	p.advance(r)
}

func (p *Pane) longKey(ev *tcell.EventKey) {
	switch {
	case ev.Key() == tcell.KeyEnter || isRune(ev, 'y', 'Y'):
		p.acceptText(p.editReq, p.editQ, CleanTyped(p.input.GetText()))
	case ev.Key() == tcell.KeyEscape || isRune(ev, 'n', 'N'):
		p.mode = modeText // the text is still in the input, untouched
	}
}

func (p *Pane) discardKey(ev *tcell.EventKey) {
	r := p.M.Focused()
	switch {
	case isRune(ev, 'y', 'Y'):
		if r != nil {
			p.cancel(r)
		}
	case ev.Key() == tcell.KeyEscape || ev.Key() == tcell.KeyEnter || isRune(ev, 'n', 'N'):
		p.mode = p.back
	}
}

// editor runs the configured editor on the input's text, with the terminal
// handed over (app.Suspend), and puts the result back into the input.
func (p *Pane) editor() {
	if p.app == nil {
		return
	}
	f, err := os.CreateTemp("", "askuser-answer-*.txt")
	if err != nil {
		p.hint = "Editor: " + err.Error()
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
		p.hint = fmt.Sprintf("Editor %s: %v; the text is unchanged.", argv[0], runErr)
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		p.hint = "Editor: " + err.Error()
		return
	}
	// Editors end files with a newline the user did not mean as part of the answer.
	text := strings.TrimRight(CleanTyped(string(b)), "\n")
	p.input.SetText(text, true)
	if p.editQ != nil {
		p.editQ.Touched = true
	}
}
