package socketproto

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

var answeredAt = time.Date(2026, 11, 21, 22, 0, 0, 123456789, time.FixedZone("CET", 3600))

func mustAnswers(t *testing.T, qs []Question, raws ...string) []Answer {
	t.Helper()
	rs := make([]json.RawMessage, len(raws))
	for i, r := range raws {
		rs[i] = json.RawMessage(r)
	}
	as, err := NormalizeAnswers(qs, rs)
	if err != nil {
		t.Fatal(err)
	}
	return as
}

func TestBuildResponse(t *testing.T) {
	qs := []Question{dbQuestion, nameQuestion, featQuestion}
	as := mustAnswers(t, qs, `1`, `"order-processor"`, `{"selected":["REST API","Authentication"],"notes":"JWT, not sessions"}`)
	r := BuildResponse("req-123", qs, as, ViaPane, answeredAt)

	if !r.Answered || r.Cancelled || r.RequestID != "req-123" || r.AnsweredVia != ViaPane {
		t.Fatalf("flags: %+v", r)
	}
	if want := time.Date(2026, 11, 21, 21, 0, 0, 0, time.UTC); !r.AnsweredAt.Equal(want) || r.AnsweredAt.Location() != time.UTC {
		t.Fatalf("answeredAt = %v, want %v in UTC", r.AnsweredAt, want)
	}
	wantBy := map[string]string{
		"Which database should we use?":     "PostgreSQL (Recommended)",
		"What should we name this service?": "order-processor",
		"Which features?":                   "Authentication, REST API",
	}
	if len(r.AnswersByQuestion) != len(wantBy) {
		t.Fatalf("answersByQuestion = %v", r.AnswersByQuestion)
	}
	for k, v := range wantBy {
		if r.AnswersByQuestion[k] != v {
			t.Fatalf("answersByQuestion[%q] = %q, want %q", k, r.AnswersByQuestion[k], v)
		}
	}
	wantSummary := `Asked "Which database should we use?"; the user chose PostgreSQL (Recommended).` +
		` Asked "What should we name this service?"; the user answered "order-processor".` +
		` Asked "Which features?"; the user chose Authentication and REST API. Note: JWT, not sessions.`
	if r.Summary != wantSummary {
		t.Fatalf("summary\n got: %s\nwant: %s", r.Summary, wantSummary)
	}

	b, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), `{"type":"ask_user_response","requestId":"req-123","answered":true,"cancelled":false,"answers":[`) ||
		!strings.Contains(string(b), `"answeredAt":"2026-11-21T21:00:00Z"`) {
		t.Fatalf("encoded: %s", b)
	}
	back, derr := DecodeFromDaemon(b[:len(b)-1])
	if derr != nil {
		t.Fatal(derr)
	}
	if got := back.(Response); got.Summary != r.Summary || got.Answers[2].Answer.Joined() != "Authentication, REST API" || !got.Answers[2].Answer.IsList {
		t.Fatalf("round trip: %+v", got)
	}
}

func TestSummarySentences(t *testing.T) {
	tests := []struct {
		name string
		q    Question
		raw  string
		want string
	}{
		{"chosen", dbQuestion, `"SQLite"`, `Asked "Which database should we use?"; the user chose SQLite.`},
		{"typed on options", dbQuestion, `"CockroachDB"`, `Asked "Which database should we use?"; the user answered "CockroachDB".`},
		{"three chosen", featQuestion, `[1,2,3]`, `Asked "Which features?"; the user chose Authentication, REST API and Caching.`},
		{"chosen and typed", featQuestion, `["Authentication","Use Redis too"]`, `Asked "Which features?"; the user chose Authentication, and answered "Use Redis too".`},
		{"typed multi", featQuestion, `"GraphQL"`, `Asked "Which features?"; the user answered "GraphQL".`},
		{"multi-line folded", Question{Question: "Name?\nPlease."}, `"a\nb"`, `Asked "Name? Please."; the user answered "a b".`},
		{"note ending in a period", nameQuestion, `{"custom":"svc","notes":"Keep it short."}`, `Asked "What should we name this service?"; the user answered "svc". Note: Keep it short.`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			qs := []Question{tc.q}
			r := BuildResponse("r", qs, mustAnswers(t, qs, tc.raw), ViaCLI, answeredAt)
			if r.Summary != tc.want {
				t.Fatalf("\n got: %s\nwant: %s", r.Summary, tc.want)
			}
		})
	}
}

func TestCancelledResponse(t *testing.T) {
	r := CancelledResponse("req-9", answeredAt)
	b, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"ask_user_response","requestId":"req-9","answered":false,"cancelled":true,"answers":[],"answersByQuestion":{},"answeredAt":"2026-11-21T21:00:00Z","summary":"The user declined to answer; proceed without these answers."}` + "\n"
	if string(b) != want {
		t.Fatalf("\n got: %s\nwant: %s", b, want)
	}
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
	qs := []Question{dbQuestion, featQuestion}
	answered := BuildResponse("r1", qs, mustAnswers(t, qs, `"sqlite"`, `["Authentication","Use Redis too"]`), ViaFile, answeredAt)
	withNotes := BuildResponse("r2", qs, mustAnswers(t, qs, `{"selected":[1],"notes":"yes, but keep the old table too"}`, `2`), ViaPane, answeredAt)
	cancelled := CancelledResponse("r3", answeredAt)
	lost := Response{RequestID: "r4", Answers: nil, ConnectionLost: true}
	multiline := BuildResponse("r5", []Question{nameQuestion}, mustAnswers(t, []Question{nameQuestion}, `"line one\nline two"`), ViaCLI, answeredAt)

	tests := []struct {
		name   string
		r      Response
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
			text: "Which database should we use?: PostgreSQL (Recommended) (note: yes, but keep the old table too)\nWhich features?: REST API\n",
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
