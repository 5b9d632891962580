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
	st.reply = reply{}
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

// reply is what the surface says back about the last action: a word on
// the hint line, and why it was not taken when it was refused.
type reply struct {
	hint    string
	refused *Refusal
}

// refuse says why the action was not (wholly) taken.
func (rp *reply) refuse(ref *Refusal) {
	rp.refused = ref
	rp.hint = ref.Text
}

// word puts a word about the action on the hint line.
func (rp *reply) word(text string) { rp.hint = text }

// context is what an action works on: the request and question of the open
// input or dialog, else the ones on screen (s nil on the Submit tab).
func (st *state) context() (*Req, *QState) {
	switch st.mode {
	case modeText, modeNote, modeFilter, modeLong:
		if st.edit.q != nil {
			return st.edit.req, st.edit.q
		}
	}
	r := st.m.Focused()
	if r == nil || r.Sending {
		return nil, nil
	}
	return r, r.Current()
}

// apply takes one action: moving between requests always; otherwise, on
// the request on screen (or the one the open input belongs to), by the
// tables below — a dialog's own table while one is open, then the
// request's, then the question's. Which actions are available now, and
// why not, is the View's (available.go); these tables only do them.
func (st *state) apply(a Action) {
	switch a.Kind {
	case Step, Open:
		st.closeInput()
		if a.Kind == Step {
			st.m.Step(a.Delta)
		} else if st.m.Find(a.Request) != nil {
			st.m.Focus = a.Request
		}
		return
	}
	r, s := st.context()
	if r == nil {
		return
	}
	if dialog, open := dialogActions[st.mode]; open {
		if a.Kind == Paste {
			st.word("Not pasted: answer the dialog first.")
		} else if do := dialog[a.Kind]; do != nil {
			do(st, a, r, s)
		}
		return
	}
	if do := requestActions[a.Kind]; do != nil {
		do(st, a, r, s)
		return
	}
	if s == nil {
		if a.Kind == Paste {
			st.word("Not pasted: there is no answer to type here.")
		}
		return
	}
	if do := questionActions[a.Kind]; do != nil {
		do(st, a, r, s)
	}
}

// An actionFunc does one kind of action on request r and its question s
// (nil on the Submit tab, for the request's and the dialogs' actions).
type actionFunc func(st *state, a Action, r *Req, s *QState)

// dialogActions take the actions while a dialog is open; any other does
// nothing until it is answered.
var dialogActions = map[mode]map[Kind]actionFunc{
	modeLong: { // the typed answer is longer than the soft limit
		Yes:    acceptLong,
		Accept: acceptLong,
		Back:   func(st *state, _ Action, _ *Req, _ *QState) { st.mode = modeText },
	},
	modeDiscard: { // declining would discard answers
		Yes:  func(st *state, _ Action, r *Req, _ *QState) { st.cancel(r) },
		Back: func(st *state, _ Action, _ *Req, _ *QState) { st.mode = st.discard.back },
	},
	modeNone: { // "none of these" on a multi-select question
		Yes:  func(st *state, _ Action, r *Req, s *QState) { st.answerNone(r, s) },
		Back: func(st *state, _ Action, _ *Req, _ *QState) { st.mode = modeList },
	},
}

func acceptLong(st *state, _ Action, r *Req, s *QState) {
	st.acceptText(r, s, agenttext.Typed(st.edit.text))
}

// requestActions act on the request as a whole.
var requestActions = map[Kind]actionFunc{
	Next:  func(st *state, _ Action, _ *Req, _ *QState) { st.next() },
	Tab:   func(st *state, a Action, r *Req, _ *QState) { st.setTab(r, r.Tab+a.Delta) },
	TabTo: func(st *state, a Action, r *Req, _ *QState) { st.setTab(r, a.Item) },
	Submit: func(st *state, _ Action, r *Req, _ *QState) {
		if r.OnSubmit() {
			st.submit(r)
		}
	},
	Decline: func(st *state, _ Action, r *Req, _ *QState) { st.cancelFlow(r) },
}

// questionActions act on the question on screen (or the open input's).
var questionActions = map[Kind]actionFunc{
	Move: func(st *state, a Action, _ *Req, s *QState) { st.move(s, a.Delta) },
	Focus: func(st *state, a Action, _ *Req, s *QState) {
		if indexOf(s.Items(), a.Item) >= 0 {
			s.Cursor = a.Item
		}
	},
	Filter: func(st *state, _ Action, _ *Req, _ *QState) {
		st.closeInput()
		st.startEdit(modeFilter)
	},
	FilterText: func(st *state, a Action, _ *Req, s *QState) {
		if st.mode != modeFilter {
			st.closeInput()
			st.startEdit(modeFilter)
		}
		st.edit.typeText(strings.ReplaceAll(a.Text, "\n", " ")) // a filter is one line
		st.setFilter(s, st.edit.text)
	},
	ClearFilter: func(st *state, _ Action, _ *Req, s *QState) {
		s.Filter = ""
		st.move(s, 0)
	},
	OpenNote: func(st *state, _ Action, _ *Req, _ *QState) {
		st.closeInput()
		st.startEdit(modeNote)
	},
	Close: func(st *state, _ Action, _ *Req, _ *QState) { st.closeInput() },
	Back:  func(st *state, _ Action, _ *Req, _ *QState) { st.finishEdit(false) },
	Pick: func(st *state, a Action, r *Req, s *QState) {
		if st.mode == modeList && a.Item >= 0 && a.Item <= s.Other() && s.HasOptions() {
			st.pick(r, s, a.Item)
		}
	},
	Choose: func(st *state, _ Action, r *Req, s *QState) {
		if st.mode == modeList && s.HasOptions() && !s.Q.IsMulti() {
			st.choose(r, s, s.Cursor)
		}
	},
	Toggle: func(st *state, _ Action, _ *Req, s *QState) {
		if st.mode == modeList && s.HasOptions() && s.Q.IsMulti() {
			st.toggle(s, s.Cursor)
		}
	},
	Confirm: func(st *state, _ Action, r *Req, s *QState) {
		if st.mode == modeList && s.HasOptions() && s.Q.IsMulti() {
			st.enterMulti(r, s)
		}
	},
	None: func(st *state, _ Action, r *Req, _ *QState) {
		if st.mode == modeList && onMultiSelect(r) {
			st.mode = modeNone
		}
	},
	LeaveEmpty: func(st *state, _ Action, r *Req, s *QState) {
		if st.mode == modeList {
			st.leaveEmpty(r, s)
		}
	},
	Type: func(st *state, a Action, _ *Req, s *QState) {
		if st.mode == modeFilter {
			st.edit.typeText(strings.ReplaceAll(a.Text, "\n", " "))
			st.setFilter(s, st.edit.text)
		} else if st.mode == modeText || st.mode == modeNote {
			st.edit.typeText(a.Text)
		}
	},
	Paste:  func(st *state, a Action, r *Req, s *QState) { st.paste(r, s, a.Text) },
	Accept: func(st *state, _ Action, _ *Req, _ *QState) { st.finishEdit(true) },
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
		st.edit.typeText(st.edit.text + strings.ReplaceAll(text, "\n", " ")) // a filter is one line
		st.setFilter(s, st.edit.text)
	case modeText, modeNote:
		st.edit.typeText(st.edit.text + text)
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
