package web

import (
	"encoding/json"
	"fmt"
	"time"

	"askuser/socketproto"
	"askuser/views"
)

// The page never sees agent text raw, nor sends labels back: it gets each
// request with its text cleaned as the terminal pane cleans it (views.Clean:
// control characters, escape sequences and bidi overrides gone) and answers
// by option number. A label the cleaning changed still answers as the label
// the agent sent, and nothing the page sends can name an option that is not
// there.

// pageRequest is a pending request as the page shows it.
type pageRequest struct {
	ID        string         `json:"id"`
	Agent     string         `json:"agent,omitempty"`
	Cwd       string         `json:"cwd,omitempty"`
	CreatedAt time.Time      `json:"createdAt"`
	Status    string         `json:"status"`
	Questions []pageQuestion `json:"questions"`
}

type pageQuestion struct {
	Text    string       `json:"text"`
	Header  string       `json:"header,omitempty"`
	Multi   bool         `json:"multi,omitempty"`
	Options []pageOption `json:"options"`
	Draft   *pageAnswer  `json:"draft"` // the daemon's draft; null when none

	// A typed question (docs/contract.md §3 "Typed answers"): its rule in words, the
	// kind of value typed (for the phone's keyboard), whether it may be
	// left empty, whether it takes only its options, and its default
	// (typed text, or the option in focus).
	Rule          string `json:"rule,omitempty"`
	Kind          string `json:"kind,omitempty"`
	Optional      bool   `json:"optional,omitempty"`
	NoOther       bool   `json:"noOther,omitempty"`
	DefaultText   string `json:"defaultText,omitempty"`
	DefaultOption int    `json:"defaultOption"` // -1: none
}

type pageOption struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	Preview     string `json:"preview,omitempty"`
	Approves    bool   `json:"approves,omitempty"` // Allow means seen: see views/approval.go
}

// pageAnswer is one question's answer as the page holds it: options by
// index, Other checked (or chosen) with its text, a note.
type pageAnswer struct {
	Selected []int  `json:"selected"`
	Other    bool   `json:"other,omitempty"`
	Custom   string `json:"custom,omitempty"`
	Notes    string `json:"notes,omitempty"`
}

func toPage(p socketproto.Pending) pageRequest {
	r := pageRequest{ID: p.RequestID, CreatedAt: p.CreatedAt, Status: string(p.Status)}
	if p.Agent != nil {
		r.Agent = views.Clean(p.Agent.DisplayName(), false)
		r.Cwd = views.Clean(p.Agent.Cwd, false)
	}
	for i, q := range p.Questions {
		pq := pageQuestion{
			Text:          views.Clean(q.Question, true),
			Header:        views.Clean(q.Header, false),
			Multi:         q.IsMulti(),
			Options:       make([]pageOption, 0, len(q.Options)),
			DefaultOption: -1,
		}
		typed(&pq, q)
		for _, o := range q.Options {
			pq.Options = append(pq.Options, pageOption{
				Label:       views.Clean(o.Label, false),
				Description: views.Clean(o.Description, true),
				Preview:     views.Clean(o.Preview, true),
				Approves:    o.ApprovesPreview,
			})
		}
		if i < len(p.Draft) {
			pq.Draft = draftForPage(q, p.Draft[i])
		}
		r.Questions = append(r.Questions, pq)
	}
	return r
}

// typed fills in what the page needs of a typed question, from the same
// rules the terminal pane uses.
func typed(pq *pageQuestion, q socketproto.Question) {
	in := q.Input
	if in == nil {
		return
	}
	pq.Rule = views.Clean(in.Rule(), false)
	pq.Kind = in.Type
	if in.Format != "" {
		pq.Kind = in.Format
	}
	pq.Optional = !in.IsRequired()
	pq.NoOther = in.HasChoices()
	if len(q.Options) == 0 {
		pq.DefaultText = views.Clean(socketproto.DefaultText(q), true)
	}
	if d := socketproto.DefaultLabels(q); len(d) > 0 {
		for i, o := range q.Options {
			if o.Label == d[0] {
				pq.DefaultOption = i
			}
		}
	}
}

// typedProblem is what is wrong with the page's answer to a typed question
// (typed text that breaks its rule), "" when nothing is.
func typedProblem(p socketproto.Pending, i int, a *pageAnswer) string {
	if i < 0 || i >= len(p.Questions) || a == nil || p.Questions[i].Input == nil {
		return ""
	}
	s, err := a.qstate(p.Questions[i])
	if err != nil {
		return err.Error()
	}
	return s.TypedProblem(s.Custom)
}

// draftForPage reads a draft in any form the pending file or a pane wrote
// it (a label, a number, a list, the object form) through the one shared
// normaliser. A draft it cannot read shows as no answer.
func draftForPage(q socketproto.Question, raw json.RawMessage) *pageAnswer {
	a, answered, err := socketproto.NormalizeAnswer(q, raw)
	if err != nil && q.Input != nil {
		// A typed answer against its rule ("11" for 1 to 10) is still the
		// user's draft: the page shows it, with what is wrong, for them to
		// fix. Read as the untyped question it is shown as (read as "no
		// draft", the page would take it for a clearing and empty the box).
		untyped := socketproto.ApplyInput(q)
		untyped.Input = nil
		a, answered, err = socketproto.NormalizeAnswer(untyped, raw)
	}
	if err != nil || !answered {
		return nil
	}
	pa := &pageAnswer{Selected: []int{}, Notes: a.Notes}
	if len(q.Options) == 0 {
		pa.Custom = a.Answer.Joined()
		return pa
	}
	for i, o := range q.Options {
		if o.Label == a.SelectedOption {
			pa.Selected = append(pa.Selected, i)
			continue
		}
		for _, l := range a.SelectedOptions {
			if l == o.Label {
				pa.Selected = append(pa.Selected, i)
				break
			}
		}
	}
	if a.WasCustom {
		pa.Other, pa.Custom = true, a.Custom
	}
	return pa
}

// qstate is the page's answer as the terminal pane's model of a question,
// so that both panes make the same wire answer and the same draft.
func (a pageAnswer) qstate(q socketproto.Question) (*views.QState, error) {
	s := views.NewQState(q)
	s.Notes = views.CleanTyped(a.Notes)
	s.Custom = views.CleanTyped(a.Custom)
	s.Answered = true
	if len(q.Options) == 0 {
		return s, nil
	}
	if !q.IsMulti() && len(a.Selected)+boolInt(a.Other) > 1 {
		return nil, fmt.Errorf("a single-select question takes one choice, got %d", len(a.Selected)+boolInt(a.Other))
	}
	for _, i := range a.Selected {
		if i < 0 || i >= len(q.Options) {
			return nil, fmt.Errorf("no option %d (the question has %d)", i+1, len(q.Options))
		}
		s.Checked[i] = true
		s.Choice = i
	}
	if a.Other {
		s.Checked[s.Other()] = true
		s.Choice = s.Other()
	}
	if !q.IsMulti() && s.Choice < 0 {
		return nil, fmt.Errorf("nothing chosen")
	}
	return s, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// wireAnswers turns the page's answers to a request into what the daemon's
// answer message takes.
// A null answer is an optional typed question left empty (the daemon
// refuses it for any other).
func wireAnswers(p socketproto.Pending, as []*pageAnswer) ([]json.RawMessage, error) {
	if len(as) != len(p.Questions) {
		return nil, fmt.Errorf("%d answers for %d questions", len(as), len(p.Questions))
	}
	out := make([]json.RawMessage, len(as))
	for i, a := range as {
		if a == nil {
			out[i] = json.RawMessage("null")
			continue
		}
		s, err := a.qstate(p.Questions[i])
		if err != nil {
			return nil, fmt.Errorf("question %d: %w", i+1, err)
		}
		out[i] = s.WireAnswer()
		// The page takes an approving option only once all of its preview
		// was read there (app.js), so the answer names that preview's
		// digest, which the daemon requires (docs/contract.md §3).
		q := p.Questions[i]
		if o := socketproto.ApprovingChoice(q, out[i]); o >= 0 {
			out[i] = socketproto.WithPreviewDigest(q, out[i], socketproto.PreviewDigest(q.Options[o].Preview))
		}
	}
	return out, nil
}

// wireDraft is the page's answer so far to question i as a draft message
// carries it (null clears it), in the simplest form, as the terminal pane
// writes it: the pending file then reads as if typed there.
func wireDraft(p socketproto.Pending, i int, a *pageAnswer) (json.RawMessage, error) {
	if i < 0 || i >= len(p.Questions) {
		return nil, fmt.Errorf("no question %d", i+1)
	}
	if a == nil {
		return json.RawMessage("null"), nil
	}
	s, err := a.qstate(p.Questions[i])
	if err != nil {
		return nil, fmt.Errorf("question %d: %w", i+1, err)
	}
	if len(p.Questions[i].Options) == 0 && s.Custom == "" && s.Notes == "" {
		return json.RawMessage("null"), nil
	}
	return s.DraftValue(), nil
}
