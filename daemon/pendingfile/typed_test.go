package pendingfile

import (
	"encoding/json"
	"strings"
	"testing"

	"askuser/socketproto"
)

// portQuestion is a typed question: a whole number with bounds and a default.
func portQuestion() socketproto.Question {
	lo, hi := 1024.0, 65535.0
	return socketproto.Question{
		Question: "Which port?",
		Input: &socketproto.Input{Type: socketproto.InputInteger, Minimum: &lo, Maximum: &hi,
			Default: json.RawMessage(`8080`)},
	}
}

// The rule is written beside a typed question, for reading: someone
// answering in an editor sees what the answer must be.
func TestRenderRule(t *testing.T) {
	opt := false
	email := socketproto.Question{Question: "Email?", Input: &socketproto.Input{Type: "string", Format: "email", Required: &opt}}
	out := string(Render([]socketproto.Pending{pending("r1", portQuestion(), email, nameQuestion)}))
	for _, want := range []string{
		`"rule": "a whole number from 1024 to 65535; default: 8080"`,
		`"rule": "an email address; optional (may be left empty); \"\" leaves it empty"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
	if strings.Count(out, `"rule"`) != 2 {
		t.Errorf("a question without input has a rule:\n%s", out)
	}
}

// "rule" is for reading only: whatever a save makes of it, the file parses.
func TestRuleIgnoredOnRead(t *testing.T) {
	for _, v := range []string{`"anything"`, `7`, `null`, `{"x": 1}`} {
		saved := `{"requests": [{"requestId": "r", "questions": [{"question": "Which port?", "rule": ` + v + `, "answer": 8080}]}]}`
		f, err := Parse([]byte(saved))
		if err != nil {
			t.Fatalf("rule %s: %v", v, err)
		}
		if got := string(f.Requests[0].Questions[0].Answer); got != `8080` {
			t.Errorf("rule %s: answer %s", v, got)
		}
	}
}

// A saved answer that breaks its rule is reported with where it is in the
// file and the rule, and kept as the draft; one that keeps it resolves the
// request with the typed value.
func TestMergeTypedAnswer(t *testing.T) {
	p := []socketproto.Pending{pending("r1", portQuestion())}
	save := func(answer string) []Action {
		f, err := Parse([]byte("{\"requests\": [\n  {\"requestId\": \"r1\", \"questions\": [{\"question\": \"Which port?\", \"answer\": " + answer + "}]}]}"))
		if err != nil {
			t.Fatal(err)
		}
		return Merge(f, p)
	}
	acts := save(`"80"`)
	if len(acts) != 2 || acts[0].Kind != Report || acts[1].Kind != SetDraft {
		t.Fatalf("got %+v", acts)
	}
	if e := acts[0].Error; !strings.Contains(e, "line 2, column 3") || !strings.Contains(e, "80 is less than 1024") ||
		!strings.Contains(e, "rule: a whole number from 1024 to 65535") {
		t.Errorf("report %q", e)
	}
	if d := string(acts[1].Draft[0]); d != `"80"` {
		t.Errorf("draft %s, want the answer kept", d)
	}
	acts = save(`"8443"`)
	if len(acts) != 1 || acts[0].Kind != Resolve {
		t.Fatalf("got %+v", acts)
	}
	if b, _ := json.Marshal(acts[0].Answers[0].Answer); string(b) != `8443` {
		t.Errorf("answer %s, want the number 8443", b)
	}
}
