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
		{"chosen and typed", featQuestion, `{"selected":["Authentication"],"custom":"Use Redis too"}`, `Asked "Which features?"; the user chose Authentication, and answered "Use Redis too".`},
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
