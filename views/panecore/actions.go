package panecore

import (
	"strings"

	"askuser/socketproto/agenttext"
)

// do applies one user action: refused as a whole (refusal), or taken, in
// which case the answers it changed go to the daemon as drafts at once.
func (st *state) do(a Action) *Refusal {
	if a.Kind == Shown {
		// A face's report, not the user's doing: what was said stays.
		st.touch(st.m.Find(a.Request))
		st.previewShown(a.Request, a.Question, a.Item, a.Width, a.Top, a.Rows, a.Total)
		return nil
	}
	st.hint, st.refused = "", nil
	if st.rulesAction(a) {
		return nil // the Rules view answers no request: never refused
	}
	st.touch()
	defer st.touch()
	before := st.m.Focused()
	if ref := st.refusal(a); ref != nil {
		st.refuse(ref)
	} else {
		st.apply(a)
		st.movedByUser()
	}
	st.sync()
	st.noteTyping()
	st.flushDrafts(before, st.m.Focused())
	return st.refused
}

// refuse says why the action was not (wholly) taken.
func (st *state) refuse(ref *Refusal) {
	st.refused = ref
	st.hint = ref.Text
}

// word puts a word about the action on the hint line.
func (st *state) word(text string) { st.hint = text }

// context is what an action works on: the request and question of the open
// input or dialog, else the ones on screen (s nil on the Submit tab).
func (st *state) context() (*Req, *QState) {
	switch st.mode {
	case modeText, modeNote, modeFilter, modeLong:
		if st.editQ != nil {
			return st.editReq, st.editQ
		}
	}
	r := st.m.Focused()
	if r == nil || r.Sending {
		return nil, nil
	}
	return r, r.Current()
}

func (st *state) apply(a Action) {
	r, s := st.context()
	if a.Kind == Step || a.Kind == Open {
		st.closeInput()
		if a.Kind == Step {
			st.m.Step(a.Delta)
		} else if st.m.Find(a.Request) != nil {
			st.m.Focus = a.Request
		}
		return
	}
	if r == nil {
		return
	}
	if a.Kind == Paste && (st.mode == modeLong || st.mode == modeDiscard || st.mode == modeNone) {
		st.word("Not pasted: answer the dialog first.")
		return
	}
	switch st.mode {
	case modeLong:
		switch a.Kind {
		case Yes, Accept:
			st.acceptText(r, s, agenttext.Typed(st.text))
		case Back:
			st.mode = modeText
		}
		return
	case modeDiscard:
		switch a.Kind {
		case Yes:
			st.cancel(r)
		case Back:
			st.mode = st.back
		}
		return
	case modeNone:
		switch a.Kind {
		case Yes:
			st.answerNone(r, s)
		case Back:
			st.mode = modeList
		}
		return
	}
	switch a.Kind {
	case Next:
		st.next()
		return
	case Tab:
		st.setTab(r, r.Tab+a.Delta)
	case TabTo:
		st.setTab(r, a.Item)
	case Submit:
		if r.OnSubmit() {
			st.submit(r)
		}
	case Decline:
		st.cancelFlow(r)
	case Paste:
		if s == nil {
			st.word("Not pasted: there is no answer to type here.")
		}
	}
	if s == nil {
		return
	}
	switch a.Kind {
	case Move:
		st.move(s, a.Delta)
	case Focus:
		if indexOf(s.Items(), a.Item) >= 0 {
			s.Cursor = a.Item
		}
	case Filter:
		st.closeInput()
		st.startEdit(modeFilter)
	case FilterText:
		if st.mode != modeFilter {
			st.closeInput()
			st.startEdit(modeFilter)
		}
		st.text, st.typed = strings.ReplaceAll(a.Text, "\n", " "), true // a filter is one line
		st.setFilter(s, st.text)
	case ClearFilter:
		s.Filter = ""
		st.move(s, 0)
	case OpenNote:
		st.closeInput()
		st.startEdit(modeNote)
	case Close:
		st.closeInput()
	case Back:
		st.finishEdit(false)
	case Pick:
		if st.mode == modeList && a.Item >= 0 && a.Item <= s.Other() && s.HasOptions() {
			st.pick(r, s, a.Item)
		}
	case Choose:
		if st.mode == modeList && s.HasOptions() && !s.Q.IsMulti() {
			st.choose(r, s, s.Cursor)
		}
	case Toggle:
		if st.mode == modeList && s.HasOptions() && s.Q.IsMulti() {
			st.toggle(s, s.Cursor)
		}
	case Confirm:
		if st.mode == modeList && s.HasOptions() && s.Q.IsMulti() {
			st.enterMulti(r, s)
		}
	case None:
		if st.mode == modeList && onMultiSelect(r) {
			st.mode = modeNone
		}
	case LeaveEmpty:
		if st.mode == modeList {
			st.leaveEmpty(r, s)
		}
	case Type:
		if st.mode == modeFilter {
			st.text, st.typed = strings.ReplaceAll(a.Text, "\n", " "), true
			st.setFilter(s, st.text)
		} else if st.mode == modeText || st.mode == modeNote {
			st.text, st.typed = a.Text, true
		}
	case Paste:
		st.paste(r, s, a.Text)
	case Accept:
		st.finishEdit(true)
	}
}

// paste inserts pasted text where typing would go. On an options list it
// opens Other with the text in it: pasting is typing an answer, and nothing
// is accepted until Enter.
func (st *state) paste(r *Req, s *QState, text string) {
	text = agenttext.Typed(text)
	if st.mode == modeList && s.HasOptions() {
		st.pick(r, s, s.Other())
	}
	switch st.mode {
	case modeFilter:
		st.text += strings.ReplaceAll(text, "\n", " ") // a filter is one line
		st.typed = true
		st.setFilter(s, st.text)
	case modeText, modeNote:
		st.text += text
		st.typed = true
	default:
		st.word("Not pasted: there is no answer to type here.")
	}
}

func indexOf(xs []int, v int) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return -1
}
