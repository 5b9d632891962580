package main

import (
	"strings"
	"testing"
)

func TestParseRequestInput(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		nq    int    // questions expected when it parses
		err   string // substring of the error otherwise
		check func(t *testing.T, tool, id string, wait bool)
	}{
		{name: "request object", in: `{"tool":"ask_user_question","requestId":"r1","questions":[{"question":"a?"},{"question":"b?"}]}`, nq: 2,
			check: func(t *testing.T, tool, id string, _ bool) {
				if tool != "ask_user_question" || id != "r1" {
					t.Errorf("tool %q id %q", tool, id)
				}
			}},
		{name: "wire message with type", in: `{"type":"ask_user_request","questions":[{"question":"a?"}]}`, nq: 1},
		{name: "questions list", in: `[{"question":"a?","options":[{"label":"x"},{"label":"y"}]}]`, nq: 1},
		{name: "single question", in: `{"question":"a?","header":"A"}`, nq: 1},
		{name: "an Allow approving its preview", in: `[{"question":"Run it?","options":[{"label":"Allow","preview":"rm -rf build","approvesPreview":true},{"label":"Deny"}]}]`, nq: 1},
		{name: "empty", in: "  \n", err: "empty input"},
		{name: "syntax error position", in: "{\n  \"questions\": [\n    {\"question\": \"a?\",}\n  ]\n}", err: "line 3, column 23:"},
		{name: "truncated", in: "[{\"question\": \"a?\"", err: "line 1, column 19: unexpected end of input"},
		{name: "two values", in: `[{"question":"a"}] [{"question":"b"}]`, err: "line 1, column 20: more than one JSON value"},
		{name: "scalar", in: `"ask"`, err: "got a string"},
		{name: "other type", in: `{"type":"wait","questions":[]}`, err: `type: must be "ask_user_request"`},
		{name: "unknown top key", in: `{"question":"a?","questions":[{"question":"a?"}]}`, err: `question: unknown field; did you mean "questions"?`},
		{name: "unknown option key", in: `[{"question":"a?","options":[{"label":"x","colour":"d"}]}]`, err: `questions[0].options[0].colour: unknown field; allowed: "approvesPreview", "description", "label", "preview"`},
		{name: "unknown agent key", in: `{"questions":[{"question":"a?"}],"agent":{"ident":"x"}}`, err: `agent.ident: unknown field; allowed: "cwd", "id", "name", "parentId", "subagent"`},
		// Keys are matched exactly as spelled, as the daemon matches them.
		{name: "miscased key", in: `[{"question":"a?","multiselect":true}]`, err: `questions[0].multiselect: unknown field; did you mean "multiSelect"?`},
		{name: "miscased key in a single question", in: `{"question":"a?","Options":[]}`, err: `questions[0].Options: unknown field; did you mean "options"?`},
		{name: "typed input", in: `[{"question":"How many?","input":{"type":"integer","minimum":1}}]`, nq: 1},
		{name: "wrong type names index", in: `[{"question":"a?"},{"question":"b?","options":"x"}]`, err: "questions[1].options: must be a list"},
		{name: "bad request id", in: `{"requestId":"has space","questions":[{"question":"a?"}]}`, err: "requestId: must match"},
		{name: "wait false kept", in: `{"wait":false,"questions":[{"question":"a?"}]}`, nq: 1,
			check: func(t *testing.T, _, _ string, wait bool) {
				if wait {
					t.Errorf("wait:false lost")
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := parseRequestInput([]byte(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(req.Questions) != c.nq {
				t.Errorf("%d questions, want %d", len(req.Questions), c.nq)
			}
			if c.check != nil {
				c.check(t, req.Tool, req.RequestID, req.Waits())
			}
		})
	}
}
