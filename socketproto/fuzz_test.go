package socketproto

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzDecodeFromClient: no line crashes the decoder; every error is a
// well-formed protocol error; and a request that passes ValidateRequest
// survives Encode and a second decode unchanged (what the daemon stores and
// replays is what the agent asked).
func FuzzDecodeFromClient(f *testing.F) {
	for _, s := range []string{
		`{"type":"hello","protocol":1,"client":"x/1"}`,
		`{"type":"ask_user_request","requestId":"req-1","tool":"ask_user_question","questions":[{"question":"Which database?","header":"DB","multiSelect":false,"options":[{"label":"PostgreSQL (Recommended)","description":"d"},{"label":"SQLite","preview":"x\ny"}]}],"metadata":{"source":"setup"},"agent":{"id":"a","name":"n","cwd":"/"},"wait":false}`,
		`{"type":"ask_user_request","questions":[{"question":"Name?"},{"question":"More?","multiSelect":true,"options":[]}]}`,
		`{"type":"ask_user_request","questions":[{"question":"Q?","options":[{"label":"a"},{"label":"a"}]}]}`,
		`{"type":"ask_user_request","questions":[{"question":"\u001b[31m"}]}`,
		`{"type":"ask_user_request","questions":"x"}`,
		`{"type":"ask_user_request","metadata":{ "a" : [1, 2.50, "<&>"] },"questions":[{"question":"Q?"}]}`,
		`{"type":"answer","requestId":"r","answers":["a",1,["b"],{"selected":["c"]}]}`,
		`{"type":"cancel","requestId":"r","via":"pane"}`,
		`{"type":"draft","requestId":"r","index":1,"answer":{"selected":["c"],"notes":"n"},"via":"pane"}`,
		`{"type":"draft","requestId":"r","index":0,"answer":null}`,
		`{"type":"subscribe","role":"pane"}`,
		`{"type":"wait","requestId":"r"}`,
		`{"type":"ask_user_request","questions":[{"question":"N?","input":{"type":"integer","minimum":1,"maximum":10,"required":false,"default":3}}]}`,
		`{"type":"ask_user_request","questions":[{"question":"E?","input":{"type":"string","format":"email","minLength":3,"pattern":"^[a-z@.]+$","default":"a@b.c"}}]}`,
		`{"type":"ask_user_request","questions":[{"question":"S?","input":{"type":"string","enum":["<a>","b"],"default":"<a>"}}]}`,
		`{"type":"ask_user_request","questions":[{"question":"T?","input":{"type":"array","items":{"type":"string","enum":["x","y"]},"default":[ "x" ]}}]}`,
		`{"type":"ask_user_request","questions":[{"question":"B?","input":{"type":"boolean","default":true}}]}`,
		`{"type":"list"}`, `{"type":"status"}`, `{"type":5}`, `null`, `[]`, `{`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, perr := DecodeFromClient(line)
		if perr != nil {
			if msg != nil {
				t.Fatal("message and error together")
			}
			if perr.Code == "" || perr.Message == "" {
				t.Fatalf("incomplete error %+v", perr)
			}
			if perr.RequestID != "" && !requestIDPattern.MatchString(perr.RequestID) {
				t.Fatalf("error echoes an invalid id %q", perr.RequestID)
			}
			if _, err := Encode(perr); err != nil {
				t.Fatalf("error does not encode: %v", err)
			}
			return
		}
		b, err := Encode(msg)
		if err != nil {
			t.Fatalf("decoded message does not encode: %v", err)
		}
		req, ok := msg.(AskUserRequest)
		if !ok || ValidateRequest(req.Request, DefaultLimits()) != nil {
			return
		}
		again, perr := DecodeFromClient(bytes.TrimSuffix(b, []byte("\n")))
		if perr != nil {
			t.Fatalf("re-decoding %s: %v", b, perr)
		}
		req2 := again.(AskUserRequest)
		if !sameJSON(req.Metadata, req2.Metadata) {
			t.Fatalf("metadata changed: %s -> %s", req.Metadata, req2.Metadata)
		}
		req.Metadata, req2.Metadata = nil, nil
		if !reflect.DeepEqual(req, req2) {
			t.Fatalf("round trip changed the request\n was: %#v\n now: %#v", req, req2)
		}
		if err := ValidateRequest(req2.Request, DefaultLimits()); err != nil {
			t.Fatalf("valid request became invalid: %v", err)
		}
	})
}

// sameJSON compares two JSON values by meaning; Encode compacts and escapes
// raw metadata, so bytes may differ.
func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// FuzzNormalizeAnswer: no input crashes it, an error never comes with an
// answer, and an answered result always says something: a non-empty answer
// whose selections are real labels, in option order.
func FuzzNormalizeAnswer(f *testing.F) {
	for _, s := range []struct {
		raw   string
		multi bool
		n     uint8
	}{
		{`"SQLite"`, false, 3}, {`2`, false, 3}, {`"2"`, true, 3}, {`"1, 3"`, true, 3},
		{`["Option 1","typed"]`, true, 2}, {`{"selected":["option 2"],"custom":" x ","notes":"n"}`, true, 3},
		{`{"selected":[1],"custom":"y"}`, false, 2}, {`7`, false, 4}, {`2.5`, false, 0}, {`1e400`, false, 2},
		{`"  "`, false, 0}, {`[]`, true, 0}, {`null`, false, 1}, {`true`, false, 1}, {`[[1]]`, true, 2},
		{`",,,"`, true, 2}, {`"Option 1,"`, true, 2}, {`"-0"`, false, 2}, {`-0`, false, 2}, {`0.0e1`, false, 2},
	} {
		f.Add(s.raw, s.multi, s.n)
	}
	f.Fuzz(func(t *testing.T, raw string, multi bool, n uint8) {
		q := Question{Question: "Q?", MultiSelect: &multi, Options: opts(int(n % 8))}
		if n%5 == 4 && len(q.Options) > 1 {
			q.Options[1].Label = "option 1" // labels differing only in case
		}
		a, answered, err := NormalizeAnswer(q, json.RawMessage(raw))
		if err != nil {
			if answered {
				t.Fatal("answered with an error")
			}
			return
		}
		if a.Question != q.Question {
			t.Fatalf("Question = %q", a.Question)
		}
		if _, err := json.Marshal(a); err != nil {
			t.Fatalf("answer does not marshal: %v", err)
		}
		if !answered {
			return
		}
		labelIdx := map[string]int{}
		for i, o := range q.Options {
			labelIdx[o.Label] = i
		}
		if multi {
			if !a.Answer.IsList || len(a.Answer.List) == 0 {
				t.Fatalf("answered multiSelect with no answers: %+v", a)
			}
			for _, s := range a.Answer.List {
				if strings.TrimSpace(s) == "" {
					t.Fatalf("blank answer in %q", a.Answer.List)
				}
			}
			last := -1
			for _, l := range a.SelectedOptions {
				i, ok := labelIdx[l]
				if !ok || i <= last {
					t.Fatalf("selectedOptions %q not labels in option order", a.SelectedOptions)
				}
				last = i
			}
			if len(a.Answer.List) != len(a.SelectedOptions)+btoi(a.WasCustom) {
				t.Fatalf("answer list %q does not match selections %q + custom %q", a.Answer.List, a.SelectedOptions, a.Custom)
			}
		} else {
			if a.Answer.IsList || strings.TrimSpace(a.Answer.Text) == "" {
				t.Fatalf("answered single-select with no answer: %+v", a)
			}
			if a.SelectedOption != "" {
				if _, ok := labelIdx[a.SelectedOption]; !ok || a.Answer.Text != a.SelectedOption || a.WasCustom {
					t.Fatalf("selection inconsistent: %+v", a)
				}
			} else if !a.WasCustom || a.Custom != a.Answer.Text {
				t.Fatalf("typed answer inconsistent: %+v", a)
			}
		}
		if a.WasCustom != (a.Custom != "") {
			t.Fatalf("wasCustom %v with custom %q", a.WasCustom, a.Custom)
		}
		if a.Custom != "" && textProblem(a.Custom, true) != "" {
			t.Fatalf("typed text with control characters: %q", a.Custom)
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
