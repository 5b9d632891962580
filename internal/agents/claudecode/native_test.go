package claudecode

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"askuser/socketproto"
)

func TestRequestStrictFirstThenFlexible(t *testing.T) {
	strict := `{"questions":[{"question":"Which database?","header":"Database","multiSelect":false,"options":[{"label":"PostgreSQL"},{"label":"SQLite"}]}]}`
	r, perr := Request(json.RawMessage(strict), socketproto.DefaultLimits())
	if perr != nil || r.Tool != socketproto.ToolAskUserQuestion {
		t.Fatalf("strict input: tool %q, error %v", r.Tool, perr)
	}
	// A header over 12 characters breaks the strict rules only.
	long := `{"questions":"[{\"question\":\"Which database?\",\"header\":\"Database engine\",\"options\":[{\"label\":\"PostgreSQL\"},{\"label\":\"SQLite\"}]}]"}`
	r, perr = Request(json.RawMessage(long), socketproto.DefaultLimits())
	if perr != nil || r.Tool != socketproto.ToolAskUser {
		t.Fatalf("input the strict rules refuse, questions as JSON text: tool %q, error %v", r.Tool, perr)
	}
	if _, perr := Request(json.RawMessage(`{"questions":[]}`), socketproto.DefaultLimits()); perr == nil || perr.Field != "input.questions" {
		t.Fatalf("no questions: %v", perr)
	}
}

func TestUpdatedInputOfADecline(t *testing.T) {
	qs := []socketproto.Question{{Question: "Which database?"}}
	input := json.RawMessage(`{"questions":[{"question":"Which database?"}],"annotations":{"x":1}}`)
	got, err := UpdatedInput(input, qs, socketproto.CancelledResponse("r1", time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Which database?": socketproto.DeclinedSentence}
	var answers map[string]string
	if err := json.Unmarshal(got["answers"], &answers); err != nil || !reflect.DeepEqual(answers, want) {
		t.Errorf("answers = %s, want %v", got["answers"], want)
	}
	if _, ok := got["annotations"]; ok {
		t.Errorf("a decline keeps no annotations: %v", got)
	}
}

// Whatever the hook does not read is handed back byte for byte: a number
// that float64 cannot hold (1e400) or would round (2^63+1) must neither
// lose the user's answer nor reach Claude Code changed.
func TestUpdatedInputPassesTheRestThrough(t *testing.T) {
	qs := []socketproto.Question{{Question: "Which database?"}}
	input := json.RawMessage(`{"questions":[{"question":"Which database?","extra":1e400}],` +
		`"big":9223372036854775809,"exact":0.1000000000000000055511151231257827,"nested":{"n":-0.0,"s":"\u00e9"}}`)
	resp := socketproto.Response{Answered: true, Answers: []socketproto.Answer{{Question: "Which database?", Answer: socketproto.AnswerValue{Text: "SQLite"}}}}
	got, err := UpdatedInput(input, qs, resp)
	if err != nil {
		t.Fatalf("UpdatedInput: %v", err)
	}
	for key, want := range map[string]string{
		"questions": `[{"question":"Which database?","extra":1e400}]`,
		"big":       `9223372036854775809`,
		"exact":     `0.1000000000000000055511151231257827`,
		"nested":    `{"n":-0.0,"s":"\u00e9"}`,
		"answers":   `{"Which database?":"SQLite"}`,
	} {
		if string(got[key]) != want {
			t.Errorf("%s = %s, want %s", key, got[key], want)
		}
	}
	out, err := json.Marshal(map[string]any{"updatedInput": got})
	if err != nil || !json.Valid(out) {
		t.Fatalf("the hook's output does not encode: %v", err)
	}
}
