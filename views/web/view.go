package web

import (
	"encoding/json"

	"askuser/socketproto/agenttext"
	"askuser/views/panecore"
)

// What the page is sent: the core's view, as it is, with the agents' text
// cleaned as every surface cleans it (agenttext: control characters,
// escape sequences and bidi overrides gone). The page lays it out with
// textContent only, so no markup an agent sends is ever markup.

// message is one message of the event stream. It carries no clock: the
// ages are words in the view, which changes when they do.
type message struct {
	Type string         `json:"type"` // "view"
	View *panecore.View `json:"view"`
}

// encodeView is the view as the page gets it (an unchanged view is known
// by its bytes).
func encodeView(v panecore.View) []byte {
	v = cleanView(v)
	b, _ := json.Marshal(v)
	return b
}

// frameHead is what comes before a view in a stream message, and
// frameTail what comes after: the view itself is written from the
// session's bytes, shared by every stream, never copied per stream.
func frameHead() []byte {
	b, _ := json.Marshal(message{Type: "view"})
	// {"type":"view","view":null} with the view put in place.
	return append([]byte("data: "), b[:len(b)-len("null}")]...)
}

const frameTail = "}\n\n"

// cleanView copies what agents (or the pending file) wrote, cleaned: the
// view's slices are shared with the core's later views and are not changed.
// Only the request on screen goes whole; the others are named (the count,
// the notification of a new one), so that a key typed does not send the
// whole queue again.
func cleanView(v panecore.View) panecore.View {
	rs := make([]panecore.RequestView, len(v.Requests))
	for i, r := range v.Requests {
		if i != v.Focus {
			stub := panecore.RequestView{ID: r.ID, Agent: agenttext.Clean(r.Agent, false), CreatedAt: r.CreatedAt,
				Status: r.Status, Name: agenttext.Clean(r.Name, false)}
			if len(r.Questions) > 0 {
				stub.Questions = []panecore.QuestionView{{Question: agenttext.Clean(r.Questions[0].Question, true)}}
			}
			rs[i] = stub
			continue
		}
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
			q.Listed = agenttext.Clean(q.Listed, true)
			os := make([]panecore.OptionView, len(q.Options))
			for k, o := range q.Options {
				o.Label = agenttext.Clean(o.Label, false)
				o.Description = agenttext.Clean(o.Description, true)
				if len(o.PreviewLines) > 0 {
					// The page draws the lines, made clean by previewform
					// (agenttext); the preview itself need not travel twice.
					o.Preview = ""
				} else {
					o.Preview = agenttext.Clean(o.Preview, true)
				}
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
