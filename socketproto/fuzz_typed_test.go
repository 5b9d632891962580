package socketproto

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzNormalizeTyped: no answer crashes a typed question; an error is never
// answered; an answer that is given keeps its rule when read back (its JSON
// normalises again to the same value), and a rule error names the rule.
func FuzzNormalizeTyped(f *testing.F) {
	inputs := []string{
		`{"type":"integer","minimum":1,"maximum":10}`,
		`{"type":"number","required":false}`,
		`{"type":"string","format":"email","maxLength":20}`,
		`{"type":"string","format":"date-time"}`,
		`{"type":"string","pattern":"^[a-z]+$","minLength":2}`,
		`{"type":"string","enum":["a","b","c"]}`,
		`{"type":"boolean","required":false}`,
		`{"type":"array","items":{"type":"string","enum":["x","y","z"]},"minItems":1,"maxItems":2}`,
	}
	for _, raw := range []string{`3`, `"3"`, `""`, `null`, `true`, `"no"`, `["x","y"]`, `"x, z"`, `{"custom":"a@b.c"}`, `2.5`, `1e400`, `"2026-11-21T21:00:00Z"`, `{"selected":[]}`} {
		for i := range inputs {
			f.Add(uint8(i), raw)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, raw string) {
		var in Input
		if err := json.Unmarshal([]byte(inputs[int(which)%len(inputs)]), &in); err != nil {
			t.Fatal(err)
		}
		q := ApplyInput(Question{Question: "Q?", Input: &in})
		a, answered, err := NormalizeAnswer(q, json.RawMessage(raw))
		if err != nil {
			if answered {
				t.Fatal("answered with an error")
			}
			var re *RuleError
			if errors.As(err, &re) && re.Rule != in.Rule() {
				t.Fatalf("rule %q, want %q", re.Rule, in.Rule())
			}
			return
		}
		if !answered {
			return
		}
		b, err := json.Marshal(a.Answer)
		if err != nil {
			t.Fatal(err)
		}
		if a.Answer.IsSkipped() {
			return
		}
		again, ok, err := NormalizeAnswer(q, b)
		if err != nil || !ok {
			t.Fatalf("answer %s does not keep its own rule: %v", b, err)
		}
		if b2, _ := json.Marshal(again.Answer); string(b2) != string(b) {
			t.Fatalf("answer %s reads back as %s", b, b2)
		}
	})
}
