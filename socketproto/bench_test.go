package socketproto

import (
	"encoding/json"
	"testing"
	"time"
)

// The daemon decodes and validates every request on its accept path, with
// up to 10,000 agents asking at once: these stay cheap.

var benchLine = []byte(`{"type":"ask_user_request","requestId":"req-123","tool":"ask_user_question","questions":[` +
	dbQuestionJSON("orders") + dbQuestionJSON("billing") + dbQuestionJSON("search") +
	`{"question":"Which features?","header":"Features","multiSelect":true,"options":[{"label":"Authentication"},{"label":"REST API"}]}],` +
	`"metadata":{"source":"project-setup"},"agent":{"id":"claude-main","name":"Claude Code","cwd":"/home/u/src/app"}}`)

func dbQuestionJSON(service string) string {
	return `{"question":"Which database should the ` + service + ` service use?","header":"Database","multiSelect":false,"options":[` +
		`{"label":"PostgreSQL (Recommended)","description":"Battle-tested relational DB"},` +
		`{"label":"SQLite","description":"Lightweight, file-based","preview":"db, _ := sql.Open(\"sqlite\", \"app.db\")"},{"label":"MongoDB"}]},`
}

func BenchmarkDecodeFromClient(b *testing.B) {
	b.SetBytes(int64(len(benchLine)))
	for b.Loop() {
		if _, err := DecodeFromClient(benchLine); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateRequest(b *testing.B) {
	m, err := DecodeFromClient(benchLine)
	if err != nil {
		b.Fatal(err)
	}
	r := m.(AskUserRequest).Request
	lim := DefaultLimits()
	for b.Loop() {
		if err := ValidateRequest(r, lim); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNormalizeAnswers(b *testing.B) {
	qs := []Question{dbQuestion, nameQuestion, featQuestion}
	raws := []json.RawMessage{json.RawMessage(`"sqlite"`), json.RawMessage(`"order-processor"`), json.RawMessage(`{"selected":["REST API",1],"custom":"Use Redis too","notes":"n"}`)}
	for b.Loop() {
		if _, err := NormalizeAnswers(qs, raws); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildAndEncodeResponse(b *testing.B) {
	qs := []Question{dbQuestion, nameQuestion, featQuestion}
	raws := []json.RawMessage{json.RawMessage(`1`), json.RawMessage(`"order-processor"`), json.RawMessage(`[1,2]`)}
	as, perr := NormalizeAnswers(qs, raws)
	if perr != nil {
		b.Fatal(perr)
	}
	at := time.Now()
	for b.Loop() {
		if _, err := Encode(BuildResponse("req-123", qs, as, ViaPane, at)); err != nil {
			b.Fatal(err)
		}
	}
}
