package web

import (
	"encoding/json"
	"time"

	"askuser/socketproto/agenttext"
	"askuser/views/panecore"
)

// What the page is sent: the core's view, as it is, with the agents' text
// cleaned as every surface cleans it (agenttext: control characters,
// escape sequences and bidi overrides gone). The page lays it out with
// textContent only, so no markup an agent sends is ever markup.

// message is one message of the event stream.
type message struct {
	Type string         `json:"type"` // "view"
	Now  time.Time      `json:"now"`  // the server's clock, for the ages the page keeps current
	View *panecore.View `json:"view"`
}

// encodeView is the view as the page gets it, without the clock (so that
// an unchanged view is known by its bytes).
func encodeView(v panecore.View) []byte {
	v = cleanView(v)
	b, _ := json.Marshal(v)
	return b
}

// frame wraps an encoded view into a stream message.
func frame(view []byte) []byte {
	b, _ := json.Marshal(message{Type: "view", Now: time.Now()})
	// {"type":"view","now":"…","view":null} with the view put in place.
	b = b[:len(b)-len("null}")]
	b = append(b, view...)
	return append(b, '}')
}

// cleanView copies what agents (or the pending file) wrote, cleaned: the
// view's slices are shared with the core's later views and are not changed.
func cleanView(v panecore.View) panecore.View {
	rs := make([]panecore.RequestView, len(v.Requests))
	for i, r := range v.Requests {
		r.Agent = agenttext.Clean(r.Agent, false)
		r.About = agenttext.Clean(r.About, false)
		qs := make([]panecore.QuestionView, len(r.Questions))
		for j, q := range r.Questions {
			q.Question = agenttext.Clean(q.Question, true)
			q.Header = agenttext.Clean(q.Header, false)
			q.TabLabel = agenttext.Clean(q.TabLabel, false)
			q.Custom = agenttext.Clean(q.Custom, true)
			q.Typing = agenttext.Clean(q.Typing, true)
			q.Notes = agenttext.Clean(q.Notes, true)
			q.Summary = agenttext.Clean(q.Summary, true)
			os := make([]panecore.OptionView, len(q.Options))
			for k, o := range q.Options {
				o.Label = agenttext.Clean(o.Label, false)
				o.Description = agenttext.Clean(o.Description, true)
				o.Preview = agenttext.Clean(o.Preview, true)
				os[k] = o
			}
			q.Options = os
			qs[j] = q
		}
		r.Questions = qs
		rs[i] = r
	}
	v.Requests = rs
	if v.Input != nil {
		in := *v.Input
		in.Text = agenttext.Clean(in.Text, true)
		v.Input = &in
	}
	return v
}
