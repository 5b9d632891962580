package panecore

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"sort"
	"strings"

	"askuser/socketproto"
	"askuser/socketproto/previewform"
)

// Model is what a surface knows: the waiting requests as the daemon
// described them, oldest first, and for each question what the user has
// chosen or typed so far.
type Model struct {
	Reqs  []*Req
	Focus string // id of the request on screen; "" when none
}

// Req is one waiting request and the user's progress on it.
type Req struct {
	P       socketproto.Pending
	Qs      []*QState
	Tab     int  // current question; len(Qs) is the Submit tab
	Sending bool // an answer or cancel went out; waiting for the daemon

	// view is the request as the last View showed it, nil once anything
	// of it may have changed (see state.touch): with hundreds of requests
	// waiting, a key rebuilds only the ones it touched.
	view *RequestView
}

// QState is one question's in-progress answer.
type QState struct {
	Q        socketproto.Question
	Cursor   int    // focused item: an option index, or len(Options) for Other
	Choice   int    // single-select: chosen option, len(Options) for Other, -1 none
	Checked  []bool // multi-select: one per option, then Other
	Custom   string // typed text (Other, or the whole answer of a free-text question)
	Notes    string
	Answered bool // accepted by the user (or pre-filled from a draft)
	Filter   string

	// approvals: how far the user has read the previews that options
	// approve (a permission prompt's Allow). This surface's own, kept when
	// a draft replaces the answer.
	approvals approvalReading
	// drawn are the options' previews drawn in their forms, found once:
	// a question's previews never change, and a diff is not free.
	drawn map[int][]previewform.Line

	// Known is the daemon's draft of this question as the pane last knew
	// it (from an event, or the draft it sent). A draft that arrives and
	// differs from it is a newer edit made elsewhere, and wins.
	Known    json.RawMessage
	inflight int // draft messages for it not yet acknowledged

	// Typing is text in the answer input that was not accepted (no Enter
	// yet). The draft keeps it as "typing", beside the accepted answer, so
	// that closing the pane loses nothing; it is never part of the answer.
	Typing string
	reqID  string // the request it belongs to
}

// NewQState starts a question with nothing chosen.
//
// A typed question starts with its default pre-filled: typed into the
// input (not accepted until Enter), or the focus on the default option.
func NewQState(q socketproto.Question) *QState {
	s := &QState{Q: q, Choice: -1, Checked: make([]bool, len(q.Options)+1)}
	if q.Input == nil {
		return s
	}
	if len(q.Options) == 0 {
		s.Custom = socketproto.DefaultText(q)
	}
	if d := socketproto.DefaultLabels(q); len(d) > 0 {
		for i, o := range q.Options {
			if o.Label == d[0] {
				s.Cursor = i
			}
		}
	}
	return s
}

// NoOther reports whether the question takes only its options: a typed
// enum, boolean or array of enums offers no "Other".
func (s *QState) NoOther() bool { return s.Q.Input.HasChoices() }

// Optional reports whether the question may be left empty (a typed question
// with "required": false).
func (s *QState) Optional() bool { return s.Q.Input != nil && !s.Q.Input.IsRequired() }

// Rule is the typed question's rule in words, "" for a question without input.
func (s *QState) Rule() string { return s.Q.Input.Rule() }

// TypedProblem is what is wrong with text as the answer to a typed question
// answered by typing, checked as the user types; "" when it keeps the rule,
// when the question is not typed, and for blank text (not an answer yet).
func (s *QState) TypedProblem(text string) string {
	if s.Q.Input == nil || strings.TrimSpace(text) == "" {
		return ""
	}
	b, _ := json.Marshal(map[string]string{"custom": text})
	_, _, err := socketproto.NormalizeAnswer(s.Q, b)
	var rule *socketproto.RuleError
	switch {
	case errors.As(err, &rule):
		return rule.Problem
	case err != nil:
		return err.Error()
	}
	return ""
}

// HasOptions reports whether the question offers options (else it is free text).
func (s *QState) HasOptions() bool { return len(s.Q.Options) > 0 }

// Other is the item index of "Other (type your answer)".
func (s *QState) Other() int { return len(s.Q.Options) }

// Items are the item indices shown, after the filter; Other is always last.
func (s *QState) Items() []int {
	var out []int
	f := strings.ToLower(strings.TrimSpace(s.Filter))
	for i, o := range s.Q.Options {
		if f == "" || strings.Contains(strings.ToLower(o.Label), f) || strings.Contains(strings.ToLower(o.Description), f) {
			out = append(out, i)
		}
	}
	if s.NoOther() {
		if len(out) == 0 {
			// Nothing else to focus: the filter shows every option
			// rather than an empty list.
			for i := range s.Q.Options {
				out = append(out, i)
			}
		}
		return out
	}
	return append(out, s.Other())
}

// HasWork reports whether Esc would throw away something the user put into
// the question: an accepted answer, or typed text, checked boxes or a note
// not yet confirmed with Enter.
func (s *QState) HasWork() bool {
	return s.Answered || strings.TrimSpace(s.Custom) != "" || s.Notes != "" || (s.Q.IsMulti() && anyChecked(s))
}

// WireAnswer is the object form of docs/contract.md §4 that the shared normaliser takes:
// {"selected":[labels…],"custom":"…","notes":"…"}, and "previewDigest" when
// a chosen option approves its preview and this surface showed all of it.
func (s *QState) WireAnswer() json.RawMessage {
	obj := map[string]any{}
	sel := []string{}
	custom := ""
	switch {
	case !s.HasOptions():
		custom = s.Custom
	case s.Q.IsMulti():
		for i, o := range s.Q.Options {
			if s.Checked[i] {
				sel = append(sel, o.Label)
			}
		}
		if s.Checked[s.Other()] {
			custom = s.Custom
		}
	case s.Choice >= 0 && s.Choice < len(s.Q.Options):
		sel = append(sel, s.Q.Options[s.Choice].Label)
	case s.Choice == s.Other():
		custom = s.Custom
	}
	obj["selected"] = sel
	if custom != "" {
		obj["custom"] = custom
	}
	if s.Notes != "" {
		obj["notes"] = s.Notes
	}
	if d := s.digest(); d != "" {
		obj["previewDigest"] = d
	}
	b, _ := json.Marshal(obj)
	return b
}

// digest is the PreviewDigest of the preview the chosen option approves,
// once this surface has shown all of it; "" otherwise. Without it the
// daemon refuses the choice (docs/contract.md §6 "Allow means seen").
func (s *QState) digest() string {
	for i, o := range s.Q.Options {
		chosen := s.Choice == i
		if s.Q.IsMulti() {
			chosen = s.Checked[i]
		}
		if chosen && o.ApprovesPreview && s.approvals.read[i] {
			return socketproto.PreviewDigest(o.Preview)
		}
	}
	return ""
}

// LeftEmpty is how an optional typed question answered with nothing reads.
const LeftEmpty = "(left empty)"

// NotAnswered is how a question that still needs an answer reads on the
// Submit tab.
const NotAnswered = "(not answered)"

// NoneOfThese is how a multi-select question answered with no option reads.
const NoneOfThese = "(none of these)"

// Summary is the answer as the Submit tab lists it; "" when not answered.
func (s *QState) Summary() string {
	if !s.Answered {
		return ""
	}
	var parts []string
	switch {
	case s.Optional() && !s.HasOptions() && strings.TrimSpace(s.Custom) == "",
		s.Optional() && !s.Q.IsMulti() && s.Choice < 0:
		return LeftEmpty
	case !s.HasOptions():
		parts = append(parts, s.Custom)
	case s.Q.IsMulti():
		for i, o := range s.Q.Options {
			if s.Checked[i] {
				parts = append(parts, o.Label)
			}
		}
		if s.Checked[s.Other()] && s.Custom != "" {
			parts = append(parts, s.Custom)
		}
		if len(parts) == 0 {
			return NoneOfThese
		}
	case s.Choice == s.Other():
		parts = append(parts, s.Custom)
	case s.Choice >= 0:
		parts = append(parts, s.Q.Options[s.Choice].Label)
	}
	return strings.Join(parts, ", ")
}

// DraftValue is the answer as a draft message carries it: JSON null when
// not answered, else the simplest form that means the same — a label, a
// list of labels or the typed text — so that the pending file reads as if
// the user had typed it there; the object form when only it says it all
// (a note, a preview's digest, or typed text that looks like a label).
// Beside the answer, never part of it, the object form keeps what the user
// put in and did not accept: "typing", the text in the answer input, and
// "checked", the boxes of a multi-select question not yet confirmed (an
// unconfirmed box is no answer, here or in any other surface).
func (s *QState) DraftValue() json.RawMessage {
	v := s.acceptedDraft()
	checked := s.unconfirmed()
	if s.Typing == "" && checked == nil {
		return v
	}
	obj := map[string]any{}
	if filled(v) {
		_ = json.Unmarshal(s.WireAnswer(), &obj) // the object form, to hold the rest beside it
	}
	if s.Typing != "" {
		obj["typing"] = s.Typing
	}
	if checked != nil {
		obj["checked"] = checked
	}
	b, _ := json.Marshal(obj)
	return b
}

// unconfirmed is the boxes checked in a multi-select question not yet
// answered, as a draft's "checked" holds them: the labels, and Other's text
// (any element that is no label); nil when there are none.
func (s *QState) unconfirmed() []string {
	if s.Answered || !s.Q.IsMulti() || !s.HasOptions() || !anyChecked(s) {
		return nil
	}
	out := []string{}
	for i, o := range s.Q.Options {
		if s.Checked[i] {
			out = append(out, o.Label)
		}
	}
	if s.Checked[s.Other()] {
		out = append(out, s.Custom)
	}
	return out
}

// acceptedDraft is the draft of what the user accepted (see DraftValue).
func (s *QState) acceptedDraft() json.RawMessage {
	if !s.Answered {
		return json.RawMessage("null")
	}
	full := s.WireAnswer()
	want, ok, err := socketproto.NormalizeAnswer(s.Q, full)
	if err != nil || !ok {
		return full
	}
	var simple any
	switch {
	case s.Notes != "", s.digest() != "":
	case !s.HasOptions() || (!s.Q.IsMulti() && s.Choice == s.Other()):
		simple = s.Custom
	case s.Q.IsMulti() && !s.Checked[s.Other()]:
		simple = want.SelectedOptions
	case !s.Q.IsMulti():
		simple = want.SelectedOption
	}
	if simple != nil {
		b, _ := json.Marshal(simple)
		if got, ok, err := socketproto.NormalizeAnswer(s.Q, b); err == nil && ok && reflect.DeepEqual(got, want) {
			return b
		}
	}
	return full
}

// sameAnswer reports whether two drafts of the question mean the same:
// missing, null and blank are all "none"; else what the normaliser makes of
// them ({"selected":["A"]} and "A" are one answer), or their compact JSON.
func (s *QState) sameAnswer(a, b json.RawMessage) bool {
	if socketproto.DraftTyping(a) != socketproto.DraftTyping(b) ||
		!slices.Equal(socketproto.DraftChecked(a), socketproto.DraftChecked(b)) {
		return false // what is being typed or checked is part of the draft too
	}
	fa, fb := filled(a), filled(b)
	if !fa || !fb {
		return fa == fb
	}
	na, oka, erra := socketproto.NormalizeAnswer(s.Q, a)
	nb, okb, errb := socketproto.NormalizeAnswer(s.Q, b)
	if erra == nil && errb == nil && oka && okb {
		return reflect.DeepEqual(na, nb)
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// blankString reports whether raw is a JSON string of only spaces. A null
// is no string (json.Unmarshal would leave str empty and say nothing): it
// is "no draft yet", never "left empty".
func blankString(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	var str string
	return len(t) > 0 && t[0] == '"' && json.Unmarshal(t, &str) == nil && strings.TrimSpace(str) == ""
}

func filled(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && string(t) != "null" && string(t) != `""`
}

// takeDraft makes the question's answer the daemon's draft: the latest edit
// wins, wherever it was made. What only this surface has — where the focus
// is, the filter, text typed into an open input — stays.
func (s *QState) takeDraft(raw json.RawMessage) {
	s.Known = raw
	fresh := NewQState(s.Q)
	fresh.Cursor, fresh.Filter = s.Cursor, s.Filter
	fresh.Known, fresh.inflight, fresh.reqID = s.Known, s.inflight, s.reqID
	fresh.approvals = s.approvals
	fresh.Typing = socketproto.DraftTyping(raw)
	checked := socketproto.DraftChecked(raw)
	if fresh.Typing != "" || checked != nil {
		if _, answered, err := socketproto.NormalizeAnswer(s.Q, raw); err == nil && !answered {
			// Only what is being typed or checked: nothing accepted.
			fresh.Custom = s.Custom
			fresh.check(checked)
			*s = *fresh
			return
		}
	}
	if s.Optional() && !s.HasOptions() && blankString(raw) {
		fresh.Custom, fresh.Answered = "", true // left empty on purpose: "" (null is "not yet")
		*s = *fresh
		return
	}
	if !filled(raw) {
		fresh.Custom = s.Custom // typed, not accepted: not part of any draft
		*s = *fresh
		return
	}
	a, answered, err := socketproto.NormalizeAnswer(s.Q, raw)
	if err != nil || !answered {
		return
	}
	fresh.Notes = a.Notes
	if s.HasOptions() {
		for i, o := range s.Q.Options {
			if o.Label == a.SelectedOption {
				fresh.Choice, fresh.Cursor = i, i
			}
			for _, l := range a.SelectedOptions {
				if l == o.Label {
					fresh.Checked[i] = true
				}
			}
		}
		if a.WasCustom {
			fresh.Custom = a.Custom
			fresh.Checked[fresh.Other()] = true
			if !s.Q.IsMulti() {
				fresh.Choice, fresh.Cursor = fresh.Other(), fresh.Other()
			}
		}
	} else {
		fresh.Custom = a.Answer.Joined()
	}
	fresh.Answered = true
	*s = *fresh
}

// check ticks the boxes a draft's "checked" names: an option by its label,
// Other by any other text, which becomes Other's.
func (s *QState) check(labels []string) {
	if !s.Q.IsMulti() || !s.HasOptions() {
		return
	}
	for _, l := range labels {
		i := slices.IndexFunc(s.Q.Options, func(o socketproto.Option) bool { return o.Label == l })
		if i < 0 && !s.NoOther() {
			i = s.Other()
			s.Custom = l
		}
		if i >= 0 {
			s.Checked[i] = true
		}
	}
}

// newReq builds the pane's state for a pending request.
func newReq(p socketproto.Pending) *Req {
	r := &Req{P: p}
	for i, q := range p.Questions {
		s := NewQState(q)
		s.reqID = p.RequestID
		if i < len(p.Draft) {
			s.takeDraft(p.Draft[i])
		}
		r.Qs = append(r.Qs, s)
	}
	return r
}

// update takes the daemon's new view of the request (a draft, a status). A
// draft that differs from the one the pane knew is an edit made elsewhere
// (the pending file, another pane), newer than this pane's: it wins. While
// this pane's own draft of a question is on its way, what the daemon says
// of that question is older than it, and is not taken.
func (r *Req) update(p socketproto.Pending) {
	r.P = p
	for i, s := range r.Qs {
		var d json.RawMessage
		if i < len(p.Draft) {
			d = p.Draft[i]
		}
		if s.inflight > 0 || s.sameAnswer(d, s.Known) {
			continue
		}
		s.takeDraft(d)
	}
}

// index is question s's position in the request, -1 when not there.
func (r *Req) index(s *QState) int {
	for i, q := range r.Qs {
		if q == s {
			return i
		}
	}
	return -1
}

// answers is the request's answers in progress, as drafts: what changes
// when an answer changes, here or elsewhere.
func (r *Req) answers() string {
	var b strings.Builder
	for _, s := range r.Qs {
		b.Write(s.DraftValue())
		b.WriteByte(0)
	}
	return b.String()
}

// OnSubmit reports whether the Submit tab is showing.
func (r *Req) OnSubmit() bool { return len(r.Qs) > 1 && r.Tab >= len(r.Qs) }

// Current is the question on screen, nil on the Submit tab.
func (r *Req) Current() *QState {
	if r.Tab < len(r.Qs) {
		return r.Qs[r.Tab]
	}
	return nil
}

// --- the model's events -------------------------------------------------------

// Find returns the request with id, or nil.
func (m *Model) Find(id string) *Req {
	for _, r := range m.Reqs {
		if r.P.RequestID == id {
			return r
		}
	}
	return nil
}

// Focused is the request on screen, nil when none waits.
func (m *Model) Focused() *Req { return m.Find(m.Focus) }

// FocusIndex is the focused request's position, -1 when none.
func (m *Model) FocusIndex() int {
	for i, r := range m.Reqs {
		if r.P.RequestID == m.Focus {
			return i
		}
	}
	return -1
}

// Snapshot replaces the set of requests with the daemon's, keeping the
// user's progress on every request still waiting. It returns the ids that
// disappeared while the pane was not listening.
func (m *Model) Snapshot(pending []socketproto.Pending) (gone []string) {
	keep := map[string]*Req{}
	for _, r := range m.Reqs {
		keep[r.P.RequestID] = r
	}
	var reqs []*Req
	for _, p := range pending {
		if r := keep[p.RequestID]; r != nil {
			r.update(p)
			r.Sending = false
			reqs = append(reqs, r)
			delete(keep, p.RequestID)
			continue
		}
		reqs = append(reqs, newReq(p))
	}
	for id := range keep {
		gone = append(gone, id)
	}
	sort.Strings(gone)
	oldIdx := m.FocusIndex()
	m.Reqs = reqs
	m.sortReqs()
	m.refocus(oldIdx)
	return gone
}

// Add queues a new request. It never takes the focus from a request being
// answered: it is only focused when nothing else is.
func (m *Model) Add(p socketproto.Pending) bool {
	if r := m.Find(p.RequestID); r != nil {
		r.update(p)
		return false
	}
	m.Reqs = append(m.Reqs, newReq(p))
	if n := len(m.Reqs); n > 1 && p.CreatedAt.Before(m.Reqs[n-2].P.CreatedAt) {
		m.sortReqs() // rare: a request older than the newest shown
	}
	if m.Focused() == nil {
		m.Focus = p.RequestID
	}
	return true
}

// Update applies request_updated: a draft from the pending file, a new
// status. It reports whether the request was new.
func (m *Model) Update(p socketproto.Pending) bool {
	if r := m.Find(p.RequestID); r != nil {
		r.update(p)
		return false
	}
	return m.Add(p)
}

// Remove drops a resolved request; the focus moves to the one that took its
// place (or the last one).
func (m *Model) Remove(id string) *Req {
	for i, r := range m.Reqs {
		if r.P.RequestID == id {
			oldIdx := m.FocusIndex()
			m.Reqs = append(m.Reqs[:i], m.Reqs[i+1:]...)
			if m.Focus == id {
				m.Focus = ""
				m.refocus(oldIdx)
			}
			return r
		}
	}
	return nil
}

// Step moves the focus to the previous (-1) or next (+1) waiting request.
func (m *Model) Step(d int) {
	if len(m.Reqs) == 0 {
		return
	}
	i := m.FocusIndex() + d
	if i < 0 {
		i = 0
	}
	if i >= len(m.Reqs) {
		i = len(m.Reqs) - 1
	}
	m.Focus = m.Reqs[i].P.RequestID
}

// refocus keeps the focus if its request is still there, else focuses the
// request now at the old position (or the last one).
func (m *Model) refocus(oldIdx int) {
	if m.Focused() != nil || len(m.Reqs) == 0 {
		if len(m.Reqs) == 0 {
			m.Focus = ""
		}
		return
	}
	if oldIdx < 0 {
		oldIdx = 0
	}
	if oldIdx >= len(m.Reqs) {
		oldIdx = len(m.Reqs) - 1
	}
	m.Focus = m.Reqs[oldIdx].P.RequestID
}

func (m *Model) sortReqs() {
	sort.SliceStable(m.Reqs, func(i, j int) bool {
		return m.Reqs[i].P.CreatedAt.Before(m.Reqs[j].P.CreatedAt)
	})
}

// drawnPreview is option i's preview drawn in the form it names (nil when none).
func (s *QState) drawnPreview(i int) []previewform.Line {
	o := s.Q.Options[i]
	if o.PreviewForm == "" || o.Preview == "" {
		return nil
	}
	if l, ok := s.drawn[i]; ok {
		return l
	}
	if s.drawn == nil {
		s.drawn = map[int][]previewform.Line{}
	}
	s.drawn[i] = previewform.Render(o.PreviewForm, o.Preview)
	return s.drawn[i]
}
