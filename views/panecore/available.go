package panecore

import (
	"encoding/json"
	"fmt"
	"strings"

	"askuser/socketproto"
	"askuser/socketproto/agenttext"
)

// The view says what is possible (lazygit's Binding.GetDisabledReason):
// View.Actions names the actions a face offers with a control of its own
// and, where one would not do what its label says now, why not. The rules
// below are the ones the actions themselves follow (next.go, answer.go,
// guard.go), so that a control greyed out is one whose tap is refused (or
// goes to what stops it). The reasons are shown before any tap, so they
// say what to do rather than "Not taken".

const (
	// answerDialog is why nothing under a dialog is taken.
	answerDialog = "Answer the dialog first."
	// justChanged is why nothing is taken while the surface settles.
	justChanged = "The question on screen just changed: read it, then answer."
)

// actions is View.Actions for what is on screen now.
func (st *state) actions() map[string]ActionView {
	out := map[string]ActionView{}
	if n := len(st.m.Reqs); n > 1 {
		i := st.m.FocusIndex()
		prev := ActionView{Kind: Step, Delta: -1, Label: "Previous request"}
		if i <= 0 {
			prev.Disabled = "This is the first request waiting."
		}
		next := ActionView{Kind: Step, Delta: 1, Label: "Next request"}
		if i >= n-1 {
			next.Disabled = "This is the last request waiting."
		}
		out[ActPrevRequest], out[ActNextRequest] = prev, next
	}
	r := st.m.Focused()
	if r == nil || r.Sending {
		return out
	}
	// What keeps every answering action from being taken: the guard (the
	// screen just changed by itself), or a dialog waiting for its answer.
	held := ""
	if st.refusal(Action{Kind: Next, Rev: st.rev}) != nil {
		held = justChanged
	} else if st.mode == modeLong || st.mode == modeDiscard || st.mode == modeNone {
		held = answerDialog
	}
	or := func(why func() string) string {
		if held != "" {
			return held
		}
		return why()
	}
	out[ActDecline] = ActionView{Kind: Decline, Label: "Decline", Disabled: held}
	if r.OnSubmit() {
		out[ActSubmit] = ActionView{Kind: Submit, Label: "Send answers", Disabled: or(func() string { return sendBlockText(r) })}
		return out
	}
	s := r.Current()
	if s == nil {
		return out // a request without questions: only declined
	}
	label := "Next"
	if answerSends(r) {
		label = "Send"
	}
	out[ActNext] = ActionView{Kind: Next, Label: label, Disabled: or(func() string { return st.nextBlock(r, s) })}
	if leaveEmptyApplies(s) {
		out[ActLeaveEmpty] = ActionView{Kind: LeaveEmpty, Label: "Leave empty", Disabled: or(func() string {
			switch st.mode {
			case modeList:
				return ""
			case modeNote:
				return "Save or cancel the note first."
			}
			return "Close the input first."
		})}
	}
	return out
}

// answerSends reports whether answering the question on screen sends r:
// a lone question has no Submit step (advance).
func answerSends(r *Req) bool { return len(r.Qs) == 1 }

// missing reports whether s keeps its request from being sent.
func missing(s *QState) bool { return !s.Answered && !s.Optional() }

// leaveEmptyApplies reports whether s can be left empty with LeaveEmpty:
// an optional question with options, single-select (choosing an option
// would answer it; a multi-select one has "none of these"; a question
// without options is left empty by accepting an empty input).
func leaveEmptyApplies(s *QState) bool {
	return s != nil && s.Optional() && s.HasOptions() && !s.Q.IsMulti()
}

// acceptBlock is what keeps text from being accepted as s's typed answer:
// "empty" (nothing typed), or "typed" with the problem (what breaks the
// question's rule); "" when it would be accepted.
func acceptBlock(s *QState, text string) (reason, problem string) {
	blank := strings.TrimSpace(text) == ""
	switch {
	case blank && s.Optional() && !s.HasOptions():
		return "", "" // an optional typed question, left empty
	case blank:
		return "empty", ""
	}
	if problem := s.TypedProblem(text); problem != "" {
		// Refused here, as the daemon would: the rule is on screen.
		return "typed", problem
	}
	return "", ""
}

// acceptWhy says acceptBlock's answer before Enter: "" when text would be
// accepted. (After Enter the refusal says "Not accepted: …".)
func acceptWhy(s *QState, text string) string {
	switch reason, problem := acceptBlock(s, text); reason {
	case "empty":
		return typeFirst
	case "typed":
		return problemText(problem)
	}
	return ""
}

// typeFirst is why an input with nothing typed is not accepted.
const typeFirst = "Type an answer first."

// problemText says what breaks a typed question's rule, as the input shows
// it while the text is typed.
func problemText(problem string) string { return "Not accepted yet: " + problem + "." }

// nextBlock is why Next would not take question s of r now (next.go); ""
// when it would. Next accepts an open note or filter first and then takes
// the question; an open answer input is accepted as the answer.
func (st *state) nextBlock(r *Req, s *QState) string {
	if st.mode == modeText && st.edit.q == s {
		return acceptWhy(s, agenttext.Typed(st.edit.text))
	}
	switch {
	case !s.HasOptions():
		return acceptWhy(s, s.inputText())
	case s.Q.IsMulti():
		// None checked asks first; Other checked and empty opens its
		// input. Checked boxes a typed list refuses are said now.
		if answerSends(r) && anyChecked(s) && !(s.Checked[s.Other()] && strings.TrimSpace(s.Custom) == "") {
			if ref := typedRefusal(r, s, s.WireAnswer()); ref != nil {
				return ref.Text
			}
		}
		return ""
	}
	if unreadRefusal(r, s, s.Cursor) != nil {
		return readFirst(s, s.Cursor)
	}
	return ""
}

// readFirst is why option i, which approves its preview, is not taken yet.
func readFirst(s *QState, i int) string {
	return fmt.Sprintf("%q approves everything in its preview: read it to the end first.", agenttext.Clean(s.Q.Options[i].Label, false))
}

// sendBlock is what keeps r from being sent, as submit finds it: the
// question it concerns and the refusal; nil when r can be sent.
func sendBlock(r *Req) (int, *Refusal) {
	for i, s := range r.Qs {
		if missing(s) {
			return i, &Refusal{Text: fmt.Sprintf("Question %d is not answered yet.", i+1), Reason: "unanswered",
				Request: r.P.RequestID, Question: i, Option: -1, Element: "question"}
		}
	}
	// A choice that came from a draft (the file, another surface) approves
	// a preview this one has not shown in full: not sent until it has been.
	for i, s := range r.Qs {
		if !s.Q.IsMulti() {
			if ref := unreadRefusal(r, s, s.Choice); ref != nil {
				return i, ref
			}
		}
	}
	// A typed answer the daemon would refuse (an array's count, a draft
	// from the file) goes back to its question with the reason.
	for i, s := range r.Qs {
		if ref := typedRefusal(r, s, wireAnswer(s)); ref != nil {
			return i, ref
		}
	}
	return -1, nil
}

// wireAnswer is s's answer as submit sends it: null for an optional
// question not answered (skipped).
func wireAnswer(s *QState) json.RawMessage {
	if !s.Answered {
		return json.RawMessage("null")
	}
	return s.WireAnswer()
}

// typedRefusal is why the daemon would refuse answer as the answer to a
// typed question s; nil when it would take it (or s is not typed).
func typedRefusal(r *Req, s *QState, answer json.RawMessage) *Refusal {
	if s.Q.Input == nil {
		return nil
	}
	if _, _, err := socketproto.NormalizeAnswer(s.Q, answer); err != nil {
		return &Refusal{Text: "Not sent: " + agenttext.Clean(err.Error(), false) + ".", Reason: "typed",
			Request: r.P.RequestID, Question: r.index(s), Option: -1, Element: "question"}
	}
	return nil
}

// sendBlockText is why Submit would not send r now: every question still
// missing, else what else stops it; "" when it would send.
func sendBlockText(r *Req) string {
	var nums []string
	for i, s := range r.Qs {
		if missing(s) {
			nums = append(nums, fmt.Sprint(i+1))
		}
	}
	if len(nums) > 1 {
		return fmt.Sprintf("Questions %s and %s are not answered yet.", strings.Join(nums[:len(nums)-1], ", "), nums[len(nums)-1])
	}
	i, ref := sendBlock(r)
	switch {
	case ref == nil:
		return ""
	case ref.Reason == "unread":
		return fmt.Sprintf("Question %d: %s", i+1, readFirst(r.Qs[i], ref.Option))
	}
	return ref.Text
}
