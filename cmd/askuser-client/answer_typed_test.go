package main

import (
	"encoding/json"
	"strings"
	"testing"

	"askuser/socketproto"
)

// A typed question (docs/contract.md §3 "Typed answers") takes only an answer that
// keeps its rule: the refusal names the rule, and the answer reaches the
// agent with its JSON type.
func TestAnswerTyped(t *testing.T) {
	sock, park := parkingDaemon(t)
	lo, no := 1024.0, false
	qs := []socketproto.Question{
		{Question: "Port?", Input: &socketproto.Input{Type: socketproto.InputInteger, Minimum: &lo}},
		{Question: "TLS?", Input: &socketproto.Input{Type: socketproto.InputBoolean}},
		{Question: "Contact?", Input: &socketproto.Input{Type: socketproto.InputString, Format: socketproto.FormatEmail, Required: &no}},
	}
	park(socketproto.Request{RequestID: "typed", Questions: qs})
	run := runCommand
	if code, _, stderr := run("answer", "--socket", sock, "typed", "80", "yes", ""); code != exitFailed ||
		!strings.Contains(stderr, "answers[0]: 80 is less than 1024 (rule: a whole number ≥ 1024)") {
		t.Errorf("a number below the minimum: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := run("answer", "--socket", sock, "typed", "8080", "yes", "someone"); code != exitFailed ||
		!strings.Contains(stderr, "rule: an email address") {
		t.Errorf("not an email: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := run("answer", "--socket", sock, "typed", "8080", "yes", ""); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := run("wait", "--socket", sock, "typed", "--format", "pi")
	if code != exitOK {
		t.Fatalf("wait: exit %d, stderr %q", code, stderr)
	}
	var got struct{ Answers []map[string]any }
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || len(got.Answers) != 3 {
		t.Fatalf("wait: %s (%v)", stdout, err)
	}
	if v, ok := got.Answers[0]["answer"].(float64); !ok || v != 8080 {
		t.Errorf("port: %#v, want the number 8080", got.Answers[0]["answer"])
	}
	if v, ok := got.Answers[1]["answer"].(bool); !ok || !v {
		t.Errorf("TLS: %#v, want true", got.Answers[1]["answer"])
	}
	if v, present := got.Answers[2]["answer"]; !present || v != nil {
		t.Errorf("contact: %#v, want null", v)
	}
}
