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
// is accepted until Enter. Like typing, it is not taken while the pane
// settles.
func (p *Pane) Paste(text string) {
	p.hint = ""
	before := p.M.Focused()
	defer func() {
		p.sync()
		p.noteTyping()
		p.flushDrafts(before, p.M.Focused())
	}()
	if p.small {
		return
	}
	if p.settling() && p.mode != modeFilter {
		p.hint = notTaken
		return
	}
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
		p.typed = true
		if p.mode == modeFilter {
			p.setFilter(p.editQ, p.input.GetText())
		}
	case modeLong, modeDiscard:
		p.hint = "Not pasted: answer the question at the bottom first."
	default:
		p.hint = "Not pasted: there is no answer to type here."
	}
}

// notTaken is the word for a key ignored while the pane settles.
const notTaken = "Not taken: the question on screen just changed. Read it, then answer."

// Key handles one key press through the key table.
func (p *Pane) Key(ev *tcell.EventKey) {
	p.hint = ""
	before := p.M.Focused()
	w, c := p.place()
	c.ev = ev
	b := p.lookup(w, c)
	switch {
	case b == nil:
	case p.small && b.do != nil && !isQuit(b):
		// Nothing of the question is on screen: no key may act on it.
	case b.guard && p.settling():
		p.hint = notTaken
	default:
		b.do(p, c)
		if !p.small {
			p.movedByUser()
		}
	}
	p.sync()
	p.noteTyping()
	p.flushDrafts(before, p.M.Focused())
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

// switchRequest moves between waiting requests, keeping whatever was typed.
func (p *Pane) switchRequest(d int) {
	p.closeInput()
	p.M.Step(d)
}

// number is a number key: the option with that number, as the list shows it.
func (p *Pane) number(c keyCtx) {
	if i := int(c.ev.Rune() - '1'); i <= c.s.Other() {
		p.pick(c.r, c.s, i)
	}
}

// typeKey hands a key to the open text input.
func (p *Pane) typeKey(c keyCtx) {
	p.input.InputHandler()(c.ev, func(tview.Primitive) {})
	p.typed = true
	if p.mode == modeFilter {
		p.setFilter(c.s, p.input.GetText())
	}
}

// setFilter changes the filter and puts the focus on the first option it
// keeps: typing a filter is looking for an option, so the focus must not
// stay on Other (or on an option the filter hides) while options match.
func (p *Pane) setFilter(s *QState, f string) {
	changed := s.Filter != f
	s.Filter = f
	s.WinTop = 0
	if items := s.Items(); changed && len(items) > 1 && strings.TrimSpace(f) != "" {
		s.Cursor = items[0]
	}
	p.move(s, 0)
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
	if i == s.Other() && s.NoOther() {
		return // a typed choice: only its options
	}
	s.Cursor = i
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
	s.Cursor = i
	if i == s.Other() {
		p.startEdit(modeText)
		return
	}
	if p.unseenApproval(s, i) {
		return
	}
	s.Choice = i
	s.Answered = true
	p.advance(r)
}

func (p *Pane) toggle(s *QState, i int) {
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

// enterMulti is Enter on a multi-select list. The question is answered only
// with boxes the user checked: Enter on an unchecked option checks it (the
// user sees it checked) rather than sending an option never chosen; Enter on
// a checked one confirms the question.
func (p *Pane) enterMulti(r *Req, s *QState) {
	if !s.Checked[s.Cursor] {
		p.toggle(s, s.Cursor)
		return
	}
	if s.Checked[s.Other()] && strings.TrimSpace(s.Custom) == "" {
		p.startEdit(modeText)
		return
	}
	s.Answered = true
	p.advance(r)
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
		if strings.TrimSpace(text) == "" && s.Optional() && !s.HasOptions() {
			p.acceptText(r, s, "") // an optional typed question, left empty
			return
		}
		if strings.TrimSpace(text) == "" {
			p.hint = "Type an answer first (Esc to leave the input)."
			return
		}
		if problem := s.TypedProblem(text); problem != "" {
			// Refused here, as the daemon would: the rule is on screen.
			p.hint = "Not accepted: " + problem + "."
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
	s.Custom, s.Typing = text, ""
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
	p.typed = true
}
