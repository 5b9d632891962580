package agenttool

import (
	"encoding/json"
	"testing"
	"time"

	"askuser/socketproto"
)

var (
	answeredAt = time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC)
	dbQuestion = socketproto.Question{
		Question: "Which database should we use?", Header: "Database", MultiSelect: new(false),
		Options: []socketproto.Option{{Label: "PostgreSQL (Recommended)"}, {Label: "SQLite"}, {Label: "MongoDB"}, {Label: "Yes, definitely"}},
	}
	featQuestion = socketproto.Question{
		Question: "Which features?", Header: "Features", MultiSelect: new(true),
		Options: []socketproto.Option{{Label: "Authentication"}, {Label: "REST API"}, {Label: "Caching"}},
	}
	nameQuestion = socketproto.Question{Question: "What should we name this service?"}
)

func mustAnswers(t *testing.T, qs []socketproto.Question, raws ...string) []socketproto.Answer {
	t.Helper()
	rs := make([]json.RawMessage, len(raws))
	for i, r := range raws {
		rs[i] = json.RawMessage(r)
	}
	as, err := socketproto.NormalizeAnswers(qs, rs)
	if err != nil {
		t.Fatal(err)
	}
	return as
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestShapes(t *testing.T) {
	qs := []socketproto.Question{dbQuestion, featQuestion}
	answered := socketproto.BuildResponse("r1", qs, mustAnswers(t, qs, `"sqlite"`, `{"selected":["Authentication"],"custom":"Use Redis too"}`), socketproto.ViaFile, answeredAt)
	withNotes := socketproto.BuildResponse("r2", qs, mustAnswers(t, qs, `{"selected":[1],"notes":"yes, but keep the old table too"}`, `2`), socketproto.ViaPane, answeredAt)
	cancelled := socketproto.CancelledResponse("r3", answeredAt)
	lost := socketproto.Response{RequestID: "r4", Answers: nil, ConnectionLost: true}
	unreachable := socketproto.Response{RequestID: "r6", ConnectionLost: true, Summary: "askuserd could not be reached; the question was not asked."}
	multiline := socketproto.BuildResponse("r5", []socketproto.Question{nameQuestion}, mustAnswers(t, []socketproto.Question{nameQuestion}, `"line one\nline two"`), socketproto.ViaCLI, answeredAt)

	tests := []struct {
		name   string
		r      socketproto.Response
		claude string
		pi     string
		text   string
	}{
		{
			name:   "answered",
			r:      answered,
			claude: `{"answers":{"Which database should we use?":"SQLite","Which features?":"Authentication, Use Redis too"}}`,
			pi: `{"answered":true,"answers":[` +
				`{"question":"Which database should we use?","answer":"SQLite","selectedOption":"SQLite","wasCustom":false},` +
				`{"question":"Which features?","answer":["Authentication","Use Redis too"],"selectedOptions":["Authentication"],"custom":"Use Redis too","wasCustom":true}]}`,
			text: "Which database should we use?: SQLite\nWhich features?: Authentication, Use Redis too\n",
		},
		{
			name:   "notes",
			r:      withNotes,
			claude: `{"annotations":{"Which database should we use?":{"notes":"yes, but keep the old table too"}},"answers":{"Which database should we use?":"PostgreSQL (Recommended)","Which features?":"REST API"}}`,
			pi: `{"answered":true,"answers":[` +
				`{"question":"Which database should we use?","answer":"PostgreSQL (Recommended)","selectedOption":"PostgreSQL (Recommended)","wasCustom":false,"notes":"yes, but keep the old table too"},` +
				`{"question":"Which features?","answer":["REST API"],"selectedOptions":["REST API"],"wasCustom":false}]}`,
			text: "Which database should we use?: PostgreSQL (Recommended)\n  note: yes, but keep the old table too\nWhich features?: REST API\n",
		},
		{
			name:   "cancelled",
			r:      cancelled,
			claude: `{"answers":{},"cancelled":true}`,
			pi:     `{"answered":false,"answers":[],"cancelled":true}`,
			text:   "The user declined to answer; proceed without these answers.\n",
		},
		{
			name:   "connection lost",
			r:      lost,
			claude: `{"answers":{},"connectionLost":true}`,
			pi:     `{"answered":false,"answers":[],"connectionLost":true}`,
			text:   "The connection to askuserd was lost before the user answered.\n",
		},
		{
			name:   "never reached",
			r:      unreachable,
			claude: `{"answers":{},"connectionLost":true}`,
			pi:     `{"answered":false,"answers":[],"connectionLost":true}`,
			text:   "askuserd could not be reached; the question was not asked.\n",
		},
		{
			name:   "multi-line answer",
			r:      multiline,
			claude: `{"answers":{"What should we name this service?":"line one\nline two"}}`,
			pi:     `{"answered":true,"answers":[{"question":"What should we name this service?","answer":"line one\nline two","custom":"line one\nline two","wasCustom":true}]}`,
			text:   "What should we name this service?: line one\n  line two\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := marshal(t, ClaudeShape(tc.r)); got != tc.claude {
				t.Errorf("claude\n got: %s\nwant: %s", got, tc.claude)
			}
			if got := marshal(t, PiShape(tc.r)); got != tc.pi {
				t.Errorf("pi\n got: %s\nwant: %s", got, tc.pi)
			}
			if got := TextShape(tc.r); got != tc.text {
				t.Errorf("text\n got: %q\nwant: %q", got, tc.text)
			}
		})
	}
}
