package pendingfile

import (
	"bytes"
	"encoding/json"
	"time"

	"askuser/socketproto"
)

// Instructions is the first field of the file, verbatim from SPEC §5.
const Instructions = "Fill in each \"answer\" (your text, an option's label, or its number) and save. A request is sent when all of its answers are filled. Set \"cancel\": true on a request to decline it."

// File is the pending file as the daemon writes it and as a user saves it.
type File struct {
	Instructions string    `json:"instructions"`
	Requests     []Request `json:"requests"`
}

// Request is one pending request in the file. Only RequestID, Cancel and the
// answers are read back; the rest is there for the user to read.
type Request struct {
	RequestID string          `json:"requestId"`
	Agent     string          `json:"agent,omitempty"`
	AskedAt   string          `json:"askedAt,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	Cancel    bool            `json:"cancel"`
	Questions []Question      `json:"questions"`

	// At is where the request starts in the saved file ("line 7, column 5"),
	// for reporting; Parse fills it in.
	At string `json:"-"`
}

// Question is one question of a request in the file: options are shown by
// label only, so that a user can copy one into "answer".
type Question struct {
	Question    string          `json:"question"`
	Header      string          `json:"header,omitempty"`
	Options     []string        `json:"options,omitempty"`
	MultiSelect *bool           `json:"multiSelect,omitempty"`
	Answer      json.RawMessage `json:"answer"`
}

// nullJSON is how an unanswered question's answer is written.
var nullJSON = json.RawMessage("null")

// Render builds the file for the pending requests (oldest first, as given),
// with each request's draft as its answers. The output is deterministic:
// the same pending set always gives the same bytes, so the watcher can tell
// the daemon's own writes from a user's save by content alone.
func Render(pending []socketproto.Pending) []byte {
	f := File{Instructions: Instructions, Requests: make([]Request, 0, len(pending))}
	for _, p := range pending {
		f.Requests = append(f.Requests, renderRequest(p))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Labels like "A & B" or "<none>" must stay readable for a person editing.
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		// Every field is a string, a bool or JSON the daemon already accepted;
		// a failure here is a bug, not bad input.
		panic("pendingfile: rendering the file: " + err.Error())
	}
	return buf.Bytes()
}

func renderRequest(p socketproto.Pending) Request {
	r := Request{
		RequestID: p.RequestID,
		Agent:     agentName(p.Agent),
		Questions: make([]Question, 0, len(p.Questions)),
	}
	if !p.CreatedAt.IsZero() {
		r.AskedAt = p.CreatedAt.UTC().Format(time.RFC3339)
	}
	if len(bytes.TrimSpace(p.Metadata)) > 0 && !bytes.Equal(bytes.TrimSpace(p.Metadata), nullJSON) {
		r.Metadata = p.Metadata
	}
	for i, q := range p.Questions {
		fq := Question{Question: q.Question, Header: q.Header, Answer: nullJSON}
		if len(q.Options) > 0 {
			fq.Options = make([]string, len(q.Options))
			for j, o := range q.Options {
				fq.Options[j] = o.Label
			}
			multi := q.IsMulti()
			fq.MultiSelect = &multi
		}
		// A draft that is not valid JSON would make the whole file unwritable;
		// it cannot come from Merge, but the file must never be the casualty.
		if i < len(p.Draft) && isFilled(p.Draft[i]) && json.Valid(p.Draft[i]) {
			fq.Answer = p.Draft[i]
		}
		r.Questions = append(r.Questions, fq)
	}
	return r
}

func agentName(a *socketproto.Agent) string {
	switch {
	case a == nil:
		return ""
	case a.Name != "":
		return a.Name
	default:
		return a.ID
	}
}

// isFilled reports whether raw holds some value other than null.
func isFilled(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, nullJSON)
}
