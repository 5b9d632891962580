package socketproto

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// requestIDPattern is [A-Za-z0-9._:-]{1,128}, checked by hand: the regexp
// with its {1,128} bound expands to 128 states and costs ~0.6 ms to compile at
// every client start.
var requestIDPattern = idMatcher{}

type idMatcher struct{}

func (idMatcher) MatchString(id string) bool {
	if len(id) == 0 || len(id) > MaxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9',
			c == '.', c == '_', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}

// checkRequestID enforces SPEC §4's id pattern; required says whether empty is an error.
func checkRequestID(field, id string, required bool) *Error {
	if id == "" {
		if required {
			return Errf(CodeInvalidRequest, field, "missing")
		}
		return nil
	}
	if !requestIDPattern.MatchString(id) {
		return Errf(CodeInvalidRequest, field, "must match [A-Za-z0-9._:-]{1,128}, got %q", truncateForError(id))
	}
	return nil
}

func truncateForError(s string) string {
	r := []rune(s)
	if len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// decodeAskUserRequest decodes element by element so that a wrongly typed
// field is named with its index: "questions[1].multiSelect".
func decodeAskUserRequest(line []byte, m *AskUserRequest) *Error {
	var top struct {
		RequestID json.RawMessage `json:"requestId"`
		Tool      json.RawMessage `json:"tool"`
		Questions json.RawMessage `json:"questions"`
		Metadata  json.RawMessage `json:"metadata"`
		Agent     json.RawMessage `json:"agent"`
		Wait      json.RawMessage `json:"wait"`
	}
	if err := json.Unmarshal(line, &top); err != nil {
		return jsonFieldError(err, "")
	}
	if e := unmarshalField(top.RequestID, "requestId", &m.RequestID); e != nil {
		return e
	}
	if e := checkRequestID("requestId", m.RequestID, false); e != nil {
		return e
	}
	if e := unmarshalField(top.Tool, "tool", &m.Tool); e != nil {
		return e
	}
	if isNull(top.Wait) {
		m.Wait = nil
	} else {
		var w bool
		if e := unmarshalField(top.Wait, "wait", &w); e != nil {
			return e
		}
		m.Wait = &w
	}
	if !isNull(top.Metadata) {
		if bytes.TrimSpace(top.Metadata)[0] != '{' {
			return Errf(CodeInvalidRequest, "metadata", "must be an object")
		}
		m.Metadata = append(json.RawMessage(nil), top.Metadata...)
	}
	if !isNull(top.Agent) {
		var a Agent
		if e := unmarshalField(top.Agent, "agent", &a); e != nil {
			return e
		}
		m.Agent = &a
	}
	if isNull(top.Questions) {
		return Errf(CodeInvalidRequest, "questions", "missing; give at least one question")
	}
	var rawQs []json.RawMessage
	if e := unmarshalField(top.Questions, "questions", &rawQs); e != nil {
		return e
	}
	m.Questions = make([]Question, len(rawQs))
	for i, rq := range rawQs {
		qf := fieldIndex("questions", i)
		var q struct {
			Question    json.RawMessage `json:"question"`
			Header      json.RawMessage `json:"header"`
			MultiSelect json.RawMessage `json:"multiSelect"`
			Options     json.RawMessage `json:"options"`
			Input       json.RawMessage `json:"input"`
		}
		if e := unmarshalField(rq, qf, &q); e != nil {
			return e
		}
		out := &m.Questions[i]
		if isNull(q.Question) {
			return Errf(CodeInvalidRequest, qf+".question", "missing")
		}
		if e := unmarshalField(q.Question, qf+".question", &out.Question); e != nil {
			return e
		}
		if e := unmarshalField(q.Header, qf+".header", &out.Header); e != nil {
			return e
		}
		if !isNull(q.MultiSelect) {
			var b bool
			if e := unmarshalField(q.MultiSelect, qf+".multiSelect", &b); e != nil {
				return e
			}
			out.MultiSelect = &b
		}
		if !isNull(q.Options) {
			var rawOpts []json.RawMessage
			if e := unmarshalField(q.Options, qf+".options", &rawOpts); e != nil {
				return e
			}
			// An empty list is kept as nil: both mean a free-text question,
			// and a request must read back the same after Encode drops it.
			if len(rawOpts) > 0 {
				out.Options = make([]Option, len(rawOpts))
			}
			for j, ro := range rawOpts {
				of := fieldIndex(qf+".options", j)
				var o struct {
					Label       json.RawMessage `json:"label"`
					Description json.RawMessage `json:"description"`
					Preview     json.RawMessage `json:"preview"`
					Approves    json.RawMessage `json:"approvesPreview"`
				}
				if e := unmarshalField(ro, of, &o); e != nil {
					return e
				}
				if isNull(o.Label) {
					return Errf(CodeInvalidRequest, of+".label", "missing")
				}
				if e := unmarshalField(o.Label, of+".label", &out.Options[j].Label); e != nil {
					return e
				}
				if e := unmarshalField(o.Description, of+".description", &out.Options[j].Description); e != nil {
					return e
				}
				if e := unmarshalField(o.Preview, of+".preview", &out.Options[j].Preview); e != nil {
					return e
				}
				if e := unmarshalField(o.Approves, of+".approvesPreview", &out.Options[j].ApprovesPreview); e != nil {
					return e
				}
			}
		}
		if !isNull(q.Input) {
			in, e := decodeInput(q.Input, qf+".input")
			if e != nil {
				return e
			}
			out.Input = in
			*out = ApplyInput(*out)
		}
	}
	return nil
}

// decodeInput decodes a question's input field by field, so that a wrongly
// typed one is named: "questions[0].input.minimum".
func decodeInput(raw json.RawMessage, f string) (*Input, *Error) {
	var r struct {
		Type, Format, MinLength, MaxLength, Pattern json.RawMessage
		Minimum, Maximum, Enum, Items               json.RawMessage
		MinItems, MaxItems, Required, Default       json.RawMessage
	}
	if e := unmarshalField(raw, f, &r); e != nil {
		return nil, e
	}
	in := &Input{}
	fields := []struct {
		name string
		raw  json.RawMessage
		v    any
	}{
		{"type", r.Type, &in.Type}, {"format", r.Format, &in.Format},
		{"minLength", r.MinLength, &in.MinLength}, {"maxLength", r.MaxLength, &in.MaxLength},
		{"pattern", r.Pattern, &in.Pattern},
		{"minimum", r.Minimum, &in.Minimum}, {"maximum", r.Maximum, &in.Maximum},
		{"enum", r.Enum, &in.Enum}, {"items", r.Items, &in.Items},
		{"minItems", r.MinItems, &in.MinItems}, {"maxItems", r.MaxItems, &in.MaxItems},
		{"required", r.Required, &in.Required},
	}
	for _, x := range fields {
		if e := unmarshalField(x.raw, f+"."+x.name, x.v); e != nil {
			return nil, e
		}
	}
	if !isNull(r.Default) {
		// Kept in the form Encode writes, so a request reads back the same.
		dec := json.NewDecoder(bytes.NewReader(r.Default))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, jsonFieldError(err, f+".default")
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, Errf(CodeInvalidRequest, f+".default", "%v", err)
		}
		in.Default = b
	}
	return in, nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// unmarshalField decodes raw (if present) into v; a mismatch names field.
func unmarshalField(raw json.RawMessage, field string, v any) *Error {
	if isNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return jsonFieldError(err, field)
	}
	return nil
}

func fieldIndex(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}
