package panecore

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"askuser/socketproto"
	"askuser/socketproto/agenttext"
)

// advance moves on after a question was answered: a lone question is sent at
// once; otherwise the next question not answered yet, and Submit once every
// question is answered (never an answered question, whose input would open).
func (st *state) advance(r *Req) {
	if len(r.Qs) == 1 {
		st.submit(r)
		return
	}
	next := len(r.Qs)
	for k := 1; k < len(r.Qs); k++ {
		if i := (r.Tab + k) % len(r.Qs); !r.Qs[i].Answered {
			next = i
			break
		}
	}
	st.setTab(r, next)
}

func (st *state) setTab(r *Req, t int) {
	if t < 0 || t > len(r.Qs) || len(r.Qs) < 2 {
		return
	}
	st.closeInput()
	r.Tab = t
	st.sync()
}

// submit sends the request's answers, or goes to the first question that
// keeps it from being sent, saying why (sendBlock).
func (st *state) submit(r *Req) {
	if i, ref := sendBlock(r); ref != nil {
		switch ref.Reason {
		case "unanswered":
			if len(r.Qs) == 1 {
				return // a lone question is answered before it is sent
			}
			st.setTab(r, i)
			st.refuse(ref)
		case "unread":
			st.unseenApproval(r, r.Qs[i], r.Qs[i].Choice)
			st.setTab(r, i)
		default:
			if len(r.Qs) > 1 {
				st.setTab(r, i)
			}
			r.Qs[i].Answered = false
			st.refuse(ref)
		}
		return
	}
	answers := make([]json.RawMessage, len(r.Qs))
	for i, s := range r.Qs {
		answers[i] = wireAnswer(s)
	}
	err := st.send.Send(socketproto.AnswerRequest{RequestID: r.P.RequestID, Answers: answers, Via: st.opt.Via})
	if err != nil {
		if len(r.Qs) > 1 {
			r.Tab = len(r.Qs)
		}
		st.refuse(&Refusal{Text: "Not sent (" + agenttext.Clean(err.Error(), false) + "); your answers are kept: send them again.",
			Reason: "send", Request: r.P.RequestID, Question: r.Tab, Option: -1, Element: "submit"})
		return
	}
	r.Sending = true
	st.hint = ""
	st.sync()
}

// cancelFlow declines: at once when nothing would be lost, else it asks
// first. Text typed but not yet accepted counts: one Esc must not throw
// away a long answer half written.
func (st *state) cancelFlow(r *Req) {
	n := 0
	for _, s := range r.Qs {
		if s.HasWork() || (st.mode == modeText && s == st.edit.q && strings.TrimSpace(st.edit.text) != "") {
			n++
		}
	}
	if n == 0 {
		st.cancel(r)
		return
	}
	st.discard.n = n
	st.discard.req = r
	st.discard.back = st.mode
	st.mode = modeDiscard
}

func (st *state) cancel(r *Req) {
	if err := st.send.Send(socketproto.Cancel{RequestID: r.P.RequestID, Via: st.opt.Via}); err != nil {
		st.refuse(&Refusal{Text: "Not cancelled (" + agenttext.Clean(err.Error(), false) + ").", Reason: "send",
			Request: r.P.RequestID, Question: r.Tab, Option: -1, Element: "request"})
		return
	}
	st.closeInput()
	r.Sending = true
	st.sync()
}

// answerNone answers a multi-select question with none of its options, as
// the user confirmed: the empty selection of docs/contract.md §3, not "not
// answered".
func (st *state) answerNone(r *Req, s *QState) {
	st.mode = modeList
	if r == nil || s == nil || !s.Q.IsMulti() {
		return
	}
	for i := range s.Checked {
		s.Checked[i] = false
	}
	s.Answered = true
	st.advance(r)
}

// leaveEmpty answers an optional question with nothing: the way to skip it
// when choosing an option would send the request.
func (st *state) leaveEmpty(r *Req, s *QState) {
	if !leaveEmptyApplies(s) {
		return
	}
	s.Choice, s.Answered = -1, true
	st.advance(r)
}

// pick is a number: choose at once (single-select) or toggle
// (multi-select); Other opens the answer input.
func (st *state) pick(r *Req, s *QState, i int) {
	if i == s.Other() && s.NoOther() {
		return // a typed choice: only its options
	}
	s.Cursor = i
	if s.Q.IsMulti() {
		if i == s.Other() {
			s.Checked[i] = true
			st.startEdit(modeText)
			return
		}
		st.toggle(s, i)
		return
	}
	st.choose(r, s, i)
}

// choose answers a single-select question with item i.
func (st *state) choose(r *Req, s *QState, i int) {
	s.Cursor = i
	if i == s.Other() {
		if !s.NoOther() {
			st.startEdit(modeText)
		}
		return
	}
	if st.unseenApproval(r, s, i) {
		return
	}
	s.Choice = i
	s.Answered = true
	st.advance(r)
}

func (st *state) toggle(s *QState, i int) {
	s.Cursor = i
	s.Checked[i] = !s.Checked[i]
	if i == s.Other() && s.Checked[i] {
		st.startEdit(modeText)
		return
	}
	if s.Answered && !anyChecked(s) {
		s.Answered = false
	}
}

// enterMulti is Enter on a multi-select list. The question is answered only
// with boxes the user checked: Enter on an unchecked option checks it (the
// user sees it checked) rather than sending an option never chosen; Enter on
// a checked one confirms the question.
func (st *state) enterMulti(r *Req, s *QState) {
	if !s.Checked[s.Cursor] {
		st.toggle(s, s.Cursor)
		return
	}
	if s.Checked[s.Other()] && strings.TrimSpace(s.Custom) == "" {
		st.startEdit(modeText)
		return
	}
	s.Answered = true
	st.advance(r)
}

// finishEdit is Enter (accept) or Esc (leave) in the open input.
func (st *state) finishEdit(accept bool) {
	r, s := st.edit.req, st.edit.q
	if s == nil {
		return
	}
	text := agenttext.Typed(st.edit.text)
	switch st.mode {
	case modeNote:
		if accept {
			s.Notes = strings.TrimSpace(text)
		}
		st.edit = openInput{}
		st.mode = modeList
	case modeFilter:
		if accept {
			s.Filter = text
		} else {
			s.Filter = ""
		}
		st.edit = openInput{}
		st.mode = modeList
		st.move(s, 0)
	case modeText:
		if !accept {
			s.Custom = text
			if !s.HasOptions() {
				st.cancelFlow(r)
				return
			}
			if s.Q.IsMulti() && strings.TrimSpace(text) == "" {
				s.Checked[s.Other()] = false
			}
			st.edit = openInput{}
			st.mode = modeList
			return
		}
		if reason, problem := acceptBlock(s, text); reason != "" {
			why := typeFirst
			if reason == "typed" {
				why = "Not accepted: " + problem + "."
			}
			st.refuse(&Refusal{Text: why, Reason: reason, Request: r.P.RequestID, Question: r.index(s), Option: -1, Element: "input"})
			return
		}
		if strings.TrimSpace(text) == "" {
			st.acceptText(r, s, "") // an optional typed question, left empty
			return
		}
		if utf8.RuneCountInString(text) > st.opt.SoftLimit {
			st.mode = modeLong
			return
		}
		st.acceptText(r, s, text)
	}
}

// acceptText makes typed text the question's answer (or its Other part).
func (st *state) acceptText(r *Req, s *QState, text string) {
	s.Custom, s.Typing = text, ""
	st.edit = openInput{}
	st.mode = modeList
	switch {
	case s.Q.IsMulti():
		s.Checked[s.Other()] = true
		return // Enter on the list confirms the whole question
	case s.HasOptions():
		s.Choice = s.Other()
	}
	s.Answered = true
	st.advance(r)
}

// setFilter changes the filter and puts the focus on the first option it
// keeps: typing a filter is looking for an option, so the focus must not
// stay on Other (or on an option the filter hides) while options match.
func (st *state) setFilter(s *QState, f string) {
	changed := s.Filter != f
	s.Filter = f
	if items := s.Items(); changed && len(items) > 1 && strings.TrimSpace(f) != "" {
		s.Cursor = items[0]
	}
	st.move(s, 0)
}

// move steps the focus through the options shown (the filter applies).
func (st *state) move(s *QState, d int) {
	items := s.Items()
	if len(items) == 0 {
		return
	}
	pos := indexOf(items, s.Cursor)
	if pos < 0 {
		pos = 0
		d = 0
	}
	pos = min(max(pos+d, 0), len(items)-1)
	s.Cursor = items[pos]
}

func anyChecked(s *QState) bool {
	for _, c := range s.Checked {
		if c {
			return true
		}
	}
	return false
}
