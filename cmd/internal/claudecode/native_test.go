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
	if !reflect.DeepEqual(got["answers"], want) {
		t.Errorf("answers = %v, want %v", got["answers"], want)
	}
	if _, ok := got["annotations"]; ok {
		t.Errorf("a decline keeps no annotations: %v", got)
	}
}
