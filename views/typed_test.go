package views

import (
	"encoding/json"
	"testing"

	"askuser/socketproto"
)

// typedQuestion is a question with an input, its options filled in as the
// daemon fills them (an enum's values, Yes / No).
func typedQuestion(t *testing.T, text, input string) socketproto.Question {
	t.Helper()
	var in socketproto.Input
	if err := json.Unmarshal([]byte(input), &in); err != nil {
		t.Fatal(err)
	}
	return socketproto.ApplyInput(socketproto.Question{Question: text, Input: &in})
}

// sentAnswer is what the daemon would make of the pane's last answer.
func sentAnswer(t *testing.T, h *H, q socketproto.Question) string {
	t.Helper()
	m := h.LastSent().(socketproto.AnswerRequest)
	a, answered, err := socketproto.NormalizeAnswer(q, m.Answers[0])
	if err != nil || !answered {
		t.Fatalf("the pane sent %s: answered %v, %v", m.Answers[0], answered, err)
	}
	b, _ := json.Marshal(a.Answer)
	return string(b)
}

// A typed number: the rule shows under the question, the input is checked
// as the user types with the problem shown, and Enter is refused until the
// answer keeps the rule.
func TestTypedNumberCheckedAsTyped(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	q := typedQuestion(t, "How many replicas?", `{"type":"integer","minimum":1,"maximum":10}`)
	h.Event(snap(pending("req-1", q)))
	h.Has("How many replicas?", "Answer: a whole number from 1 to 10")
	h.Press("4", "2")
	h.Has("✗ 42 is more than 10")
	h.Press("<Enter>")
	if len(h.D.Sent()) != 0 {
		t.Fatalf("Enter sent an answer that breaks the rule: %v", h.D.Sent())
	}
	h.Has("Not accepted: 42 is more than 10.")
	h.Press("<Bksp>", "<Bksp>", "x")
	h.Has(`✗ "x" is not a number`)
	h.Press("<Bksp>", "7")
	h.HasNot("✗")
	h.Press("<Enter>")
	if got := sentAnswer(t, h, q); got != "7" {
		t.Fatalf("answer %s, want the number 7", got)
	}
}

// A boolean is two options, Yes and No, with no Other.
func TestTypedBooleanIsYesNo(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	q := typedQuestion(t, "Enable TLS?", `{"type":"boolean"}`)
	h.Event(snap(pending("req-1", q)))
	h.Has("> 1. Yes", "2. No", "Answer: Yes or No")
	h.HasNot("Other", "0 other")
	h.Press("0") // no Other to jump to
	if len(h.D.Sent()) != 0 {
		t.Fatalf("0 sent %v", h.D.Sent())
	}
	h.Press("2")
	if got := sentAnswer(t, h, q); got != "false" {
		t.Fatalf("answer %s, want false", got)
	}
}

// An enum is its options, the default focused; an array of enums is a
// multi-select list; neither offers Other.
func TestTypedEnumAndArray(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	size := typedQuestion(t, "Size?", `{"type":"string","enum":["small","medium","large"],"default":"large"}`)
	h.Event(snap(pending("req-1", size)))
	h.Has("> 3. large", "Answer: one of: small, medium, large")
	h.HasNot("Other")
	h.Press("<Enter>")
	if got := sentAnswer(t, h, size); got != `"large"` {
		t.Fatalf("answer %s, want large", got)
	}

	h2 := newH(t, 80, 24)
	tags := typedQuestion(t, "Tags?", `{"type":"array","items":{"type":"string","enum":["x","y","z"]},"maxItems":2}`)
	h2.Event(snap(pending("req-2", tags)))
	h2.Has("> [ ] 1. x", "[ ] 3. z", "Answer: any of: x, y, z; at most 2 choices")
	h2.HasNot("Other")
	h2.Press("1", "2", "3", "<Enter>")
	if len(h2.D.Sent()) != 0 {
		t.Fatalf("three choices of at most two were sent: %v", h2.D.Sent())
	}
	h2.Has("Not sent:", "3 choices chosen")
	h2.Press("3", "<Up>", "<Enter>") // unchecks z, confirms on y
	if got := sentAnswer(t, h2, tags); got != `["x","y"]` {
		t.Fatalf("answer %s", got)
	}
}

// An optional typed question shows its default pre-filled and may be left
// empty: its answer is then null.
func TestTypedOptionalDefaultAndEmpty(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	q := typedQuestion(t, "Port?", `{"type":"integer","required":false,"default":8080}`)
	h.Event(snap(pending("req-1", q)))
	h.Has("> 8080", "optional (may be left empty)")
	h.Press("<Bksp>", "<Bksp>", "<Bksp>", "<Bksp>", "<Enter>")
	if got := sentAnswer(t, h, q); got != "null" {
		t.Fatalf("answer %s, want null", got)
	}
}

// With several questions, Submit takes an optional question not answered
// as left empty, and still stops at a required one.
func TestTypedOptionalSkippedOnSubmit(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	name := nameQuestion()
	email := typedQuestion(t, "Contact?", `{"type":"string","format":"email","required":false}`)
	h.Event(snap(pending("req-1", name, email)))
	h.Press("svc", "<Enter>") // answers the name, moves on to the email
	h.Has("Answer: an email address; optional")
	h.Press("<Tab>", "<Enter>")
	m := h.LastSent().(socketproto.AnswerRequest)
	as, e := socketproto.NormalizeAnswers([]socketproto.Question{name, email}, m.Answers)
	if e != nil {
		t.Fatalf("sent %s: %v", m.Answers, e)
	}
	if !as[1].Answer.IsSkipped() || as[0].Answer.Text != "svc" {
		t.Fatalf("answers %+v", as)
	}
}

// The demo's typed form is a valid request: what the eyes-on check shows
// is what the daemon would accept.
func TestTypedDemoIsValid(t *testing.T) {
	t.Parallel()
	for _, p := range DemoRequests(testNow) {
		if p.RequestID != "demo-5" {
			continue
		}
		if e := socketproto.ValidateRequest(p.Request, socketproto.DefaultLimits()); e != nil {
			t.Fatal(e)
		}
		h := newH(t, 80, 24)
		h.Event(snap(p))
		h.Has("Workers", "Answer: a whole number from 1 to 16", "> 4")
		return
	}
	t.Fatal("no typed demo request")
}

// An optional enum alone in its request can be left empty with `-`:
// choosing an option would send it.
func TestTypedOptionalEnumLeftEmptyAlone(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	q := socketproto.Question{Question: "Which region?", Input: &socketproto.Input{Type: socketproto.InputString, Enum: []string{"eu", "us"}, Required: new(bool)}}
	q = socketproto.ApplyInput(q) // as the daemon decodes it: the enum as options
	h.Event(snap(pending("req-1", q)))
	h.Has("Which region?", "1. eu")
	h.Press("-")
	m, ok := h.LastSent().(socketproto.AnswerRequest)
	if !ok || len(m.Answers) != 1 {
		t.Fatalf("sent %v", h.LastSent())
	}
	if a, answered, err := socketproto.NormalizeAnswer(q, m.Answers[0]); err != nil || !answered || !a.Answer.IsSkipped() {
		t.Fatalf("answer %s: %+v %v %v", m.Answers[0], a, answered, err)
	}
}
