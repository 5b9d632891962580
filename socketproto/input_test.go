package socketproto

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// typedQ decodes one question with the given input the way the daemon
// does, so the options an enum or boolean implies are filled in.
func typedQ(t *testing.T, input string) Question {
	t.Helper()
	line := `{"type":"ask_user_request","questions":[{"question":"Q?","input":` + input + `}]}`
	m, e := DecodeFromClient([]byte(line))
	if e != nil {
		t.Fatalf("decode %s: %v", input, e)
	}
	r := m.(AskUserRequest)
	if e := ValidateRequest(r.Request, DefaultLimits()); e != nil {
		t.Fatalf("validate %s: %v", input, e)
	}
	return r.Questions[0]
}

func TestDecodeAndValidateInput(t *testing.T) {
	tests := []struct {
		name, input string
		field       string // "" means accepted
		msg         string
	}{
		{name: "number", input: `{"type":"integer","minimum":1,"maximum":10}`},
		{name: "email", input: `{"type":"string","format":"email","maxLength":80}`},
		{name: "enum", input: `{"type":"string","enum":["a","b"],"default":"b"}`},
		{name: "array", input: `{"type":"array","items":{"type":"string","enum":["x","y"]},"maxItems":1}`},
		{name: "boolean optional", input: `{"type":"boolean","required":false,"default":true}`},
		{name: "type wrongly typed", input: `{"type":3}`, field: "questions[0].input.type"},
		{name: "minimum wrongly typed", input: `{"type":"number","minimum":"1"}`, field: "questions[0].input.minimum"},
		{name: "minLength not whole", input: `{"type":"string","minLength":2.5}`, field: "questions[0].input.minLength"},
		{name: "input not an object", input: `"number"`, field: "questions[0].input"},
		{name: "unknown type", input: `{"type":"date"}`, field: "questions[0].input.type", msg: "must be one of"},
		{name: "missing type", input: `{}`, field: "questions[0].input.type", msg: "missing"},
		{name: "unknown format", input: `{"type":"string","format":"phone"}`, field: "questions[0].input.format"},
		{name: "format on number", input: `{"type":"number","format":"email"}`, field: "questions[0].input.format"},
		{name: "bad pattern", input: `{"type":"string","pattern":"(["}`, field: "questions[0].input.pattern", msg: "regular expression"},
		{name: "min over max", input: `{"type":"number","minimum":5,"maximum":1}`, field: "questions[0].input.minimum"},
		{name: "negative length", input: `{"type":"string","minLength":-1}`, field: "questions[0].input.minLength"},
		{name: "length on number", input: `{"type":"number","maxLength":3}`, field: "questions[0].input.maxLength"},
		{name: "empty enum", input: `{"type":"string","enum":[]}`, field: "questions[0].input.enum"},
		{name: "array without items", input: `{"type":"array"}`, field: "questions[0].input.items"},
		{name: "array of numbers", input: `{"type":"array","items":{"type":"number","enum":["1"]}}`, field: "questions[0].input.items.type"},
		{name: "default breaks rule", input: `{"type":"integer","maximum":3,"default":7}`, field: "questions[0].input.default", msg: "7 is more than 3"},
		{name: "default not in enum", input: `{"type":"string","enum":["a"],"default":"z"}`, field: "questions[0].input.default"},
		{name: "duplicate enum values", input: `{"type":"string","enum":["a","a"]}`, field: "questions[0].options[1].label", msg: "duplicate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := `{"type":"ask_user_request","questions":[{"question":"Q?","input":` + tt.input + `}]}`
			m, e := DecodeFromClient([]byte(line))
			if e == nil {
				e = ValidateRequest(m.(AskUserRequest).Request, DefaultLimits())
			}
			if tt.field == "" {
				if e != nil {
					t.Fatalf("refused: %v", e)
				}
				return
			}
			if e == nil {
				t.Fatalf("accepted; want an error on %s", tt.field)
			}
			if e.Field != tt.field || e.Code != CodeInvalidRequest || !strings.Contains(e.Message, tt.msg) {
				t.Fatalf("got %s %q (field %s); want field %s, message with %q", e.Code, e.Message, e.Field, tt.field, tt.msg)
			}
		})
	}
}

func TestInputOptionsAgree(t *testing.T) {
	tests := []struct {
		name, question string
		field          string
	}{
		{name: "options with a number", question: `{"question":"Q?","options":[{"label":"a"},{"label":"b"}],"input":{"type":"number"}}`, field: "questions[0].options"},
		{name: "enum options described", question: `{"question":"Q?","options":[{"label":"a","description":"A"},{"label":"b"}],"input":{"type":"string","enum":["a","b"]}}`},
		{name: "enum options differ", question: `{"question":"Q?","options":[{"label":"a"},{"label":"c"}],"input":{"type":"string","enum":["a","b"]}}`, field: "questions[0].options[1].label"},
		{name: "array single-select", question: `{"question":"Q?","multiSelect":false,"input":{"type":"array","items":{"type":"string","enum":["a"]}}}`, field: "questions[0].multiSelect"},
		{name: "multiSelect on a string", question: `{"question":"Q?","multiSelect":true,"input":{"type":"string"}}`, field: "questions[0].multiSelect"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, e := DecodeFromClient([]byte(`{"type":"ask_user_request","questions":[` + tt.question + `]}`))
			if e == nil {
				e = ValidateRequest(m.(AskUserRequest).Request, DefaultLimits())
			}
			if (e == nil) != (tt.field == "") || (e != nil && e.Field != tt.field) {
				t.Fatalf("got %v; want error on %q", e, tt.field)
			}
		})
	}
}

func TestApplyInputFillsOptions(t *testing.T) {
	b := typedQ(t, `{"type":"boolean"}`)
	if len(b.Options) != 2 || b.Options[0].Label != "Yes" || b.Options[1].Label != "No" || b.IsMulti() {
		t.Fatalf("boolean: %+v", b)
	}
	a := typedQ(t, `{"type":"array","items":{"type":"string","enum":["x","y","z"]}}`)
	if len(a.Options) != 3 || !a.IsMulti() {
		t.Fatalf("array: %+v", a)
	}
	if !a.Input.HasChoices() || typedQ(t, `{"type":"string"}`).Input.HasChoices() {
		t.Fatal("HasChoices")
	}
}

func TestNormalizeTypedAnswer(t *testing.T) {
	const (
		integer = `{"type":"integer","minimum":1,"maximum":10}`
		number  = `{"type":"number","minimum":0}`
		email   = `{"type":"string","format":"email"}`
		short   = `{"type":"string","minLength":2,"maxLength":5,"pattern":"^[a-z]+$"}`
		date    = `{"type":"string","format":"date"}`
		dtime   = `{"type":"string","format":"date-time"}`
		uri     = `{"type":"string","format":"uri"}`
		enum    = `{"type":"string","enum":["small","large"]}`
		boolean = `{"type":"boolean"}`
		array   = `{"type":"array","items":{"type":"string","enum":["x","y","z"]},"minItems":1,"maxItems":2}`
		opt     = `{"type":"integer","required":false}`
	)
	tests := []struct {
		name, input, raw string
		json             string // the answer's JSON; "" when not answered
		rule             string // substring of a RuleError; "" means none
	}{
		{name: "integer number", input: integer, raw: `3`, json: `3`},
		{name: "integer string", input: integer, raw: `" 7 "`, json: `7`},
		{name: "integer 3.0", input: integer, raw: `3.0`, rule: "3.0 is a whole number written with a point or an exponent, which an integer's reader may refuse; write 3"},
		{name: "integer typed object", input: integer, raw: `{"custom":"4"}`, json: `4`},
		{name: "integer too big", input: integer, raw: `11`, rule: "11 is more than 10"},
		{name: "integer too small", input: integer, raw: `"0"`, rule: "0 is less than 1"},
		{name: "integer not whole", input: integer, raw: `2.5`, rule: "not a whole number"},
		{name: "integer not a number", input: integer, raw: `"three"`, rule: `"three" is not a number`},
		{name: "integer not answered", input: integer, raw: `""`},
		{name: "number negative refused", input: number, raw: `-1.5`, rule: "less than 0"},
		{name: "number fraction", input: number, raw: `"2.25"`, json: `2.25`},
		{name: "email", input: email, raw: `"a@example.com"`, json: `"a@example.com"`},
		{name: "email with name refused", input: email, raw: `"A <a@example.com>"`, rule: "not an email"},
		{name: "email refused", input: email, raw: `"nobody"`, rule: "not an email"},
		{name: "length short", input: short, raw: `"a"`, rule: "too short"},
		{name: "length long", input: short, raw: `"abcdef"`, rule: "too long"},
		{name: "pattern", input: short, raw: `"AB"`, rule: "pattern"},
		{name: "pattern ok", input: short, raw: `"ab"`, json: `"ab"`},
		{name: "date", input: date, raw: `"2026-11-21"`, json: `"2026-11-21"`},
		{name: "date refused", input: date, raw: `"21/11/2026"`, rule: "not a date"},
		{name: "date-time", input: dtime, raw: `"2026-11-21T21:00:00Z"`, json: `"2026-11-21T21:00:00Z"`},
		{name: "date-time refused", input: dtime, raw: `"2026-11-21"`, rule: "RFC 3339"},
		{name: "uri", input: uri, raw: `"https://example.com/x"`, json: `"https://example.com/x"`},
		{name: "uri refused", input: uri, raw: `"example.com"`, rule: "not a URI"},
		{name: "enum label", input: enum, raw: `"Large"`, json: `"large"`},
		{name: "enum number", input: enum, raw: `1`, json: `"small"`},
		{name: "enum other refused", input: enum, raw: `"medium"`, rule: "not one of the choices"},
		{name: "boolean true", input: boolean, raw: `true`, json: `true`},
		{name: "boolean no", input: boolean, raw: `"no"`, json: `false`},
		{name: "boolean y", input: boolean, raw: `"y"`, json: `true`},
		{name: "boolean 2", input: boolean, raw: `2`, json: `false`},
		{name: "boolean object", input: boolean, raw: `{"selected":["Yes"]}`, json: `true`},
		{name: "boolean other refused", input: boolean, raw: `"maybe"`, rule: "neither Yes nor No"},
		{name: "array", input: array, raw: `["z","x"]`, json: `["x","z"]`},
		{name: "array too many", input: array, raw: `"x, y, z"`, rule: "3 choices chosen"},
		{name: "array none refused", input: array, raw: `[]`, rule: "0 choices chosen"},
		{name: "array other refused", input: array, raw: `["w"]`, rule: "not one of the choices"},
		{name: "optional blank is empty", input: opt, raw: `""`, json: `null`},
		{name: "optional null is not yet", input: opt, raw: `null`},
		{name: "optional given", input: opt, raw: `-4`, json: `-4`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := typedQ(t, tt.input)
			a, answered, err := NormalizeAnswer(q, json.RawMessage(tt.raw))
			if tt.rule != "" {
				var re *RuleError
				if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.rule) || re.Rule != q.Input.Rule() {
					t.Fatalf("err %v; want a rule error with %q", err, tt.rule)
				}
				return
			}
			if err != nil {
				t.Fatalf("err %v", err)
			}
			if answered != (tt.json != "") {
				t.Fatalf("answered %v", answered)
			}
			if !answered {
				return
			}
			got, _ := json.Marshal(a.Answer)
			if string(got) != tt.json {
				t.Fatalf("answer %s; want %s", got, tt.json)
			}
			// The typed value survives the trip to the agent.
			var back Answer
			b, _ := json.Marshal(a)
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if again, _ := json.Marshal(back.Answer); string(again) != tt.json || back.Answer.Joined() != a.Answer.Joined() {
				t.Fatalf("round trip: %s (%q); want %s (%q)", again, back.Answer.Joined(), tt.json, a.Answer.Joined())
			}
		})
	}
}

func TestNormalizeAnswersTyped(t *testing.T) {
	qs := []Question{
		typedQ(t, `{"type":"integer","maximum":5}`),
		typedQ(t, `{"type":"string","required":false}`),
	}
	qs[1].Question = "R?"
	as, e := NormalizeAnswers(qs, []json.RawMessage{json.RawMessage(`"3"`), json.RawMessage(`null`)})
	if e != nil {
		t.Fatal(e)
	}
	got, _ := json.Marshal(as)
	if want := `[{"question":"Q?","answer":3,"custom":"3","wasCustom":true},{"question":"R?","answer":null,"wasCustom":false}]`; string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	_, e = NormalizeAnswers(qs, []json.RawMessage{json.RawMessage(`9`), json.RawMessage(`null`)})
	if e == nil || e.Code != CodeInvalidAnswer || e.Field != "answers[0]" || !strings.Contains(e.Message, "rule: a whole number ≤ 5") {
		t.Fatalf("got %v", e)
	}
	r := BuildResponse("r", qs, as, ViaCLI, time.Now())
	if r.AnswersByQuestion["Q?"] != "3" || !strings.Contains(r.Summary, "left it empty") {
		t.Fatalf("response %+v", r)
	}
}

func TestQuestionsWithoutInputUnchanged(t *testing.T) {
	// A bare number out of range is still refused as a slip, and a boolean
	// as an answer is still refused, without input.
	if _, _, err := NormalizeAnswer(dbQuestion, json.RawMessage(`true`)); err == nil {
		t.Fatal("boolean accepted without input")
	}
	a, ok, err := NormalizeAnswer(nameQuestion, json.RawMessage(`3`))
	if err != nil || !ok {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(a.Answer); string(b) != `"3"` {
		t.Fatalf("untyped number carried as %s", b)
	}
}

func TestRule(t *testing.T) {
	tests := []struct{ input, want string }{
		{`{"type":"integer","minimum":1,"maximum":10}`, "a whole number from 1 to 10"},
		{`{"type":"string","format":"email","maxLength":80,"required":false}`, "an email address; at most 80 characters; optional (may be left empty)"},
		{`{"type":"boolean"}`, "Yes or No"},
		{`{"type":"string","enum":["a","b"]}`, "one of: a, b"},
		{`{"type":"array","items":{"type":"string","enum":["a","b"]},"minItems":1}`, "any of: a, b; at least 1 choice"},
		{`{"type":"string","pattern":"^x"}`, "text; matching /^x/"},
	}
	for _, tt := range tests {
		if got := typedQ(t, tt.input).Input.Rule(); got != tt.want {
			t.Errorf("%s: got %q; want %q", tt.input, got, tt.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	if got := DefaultText(typedQ(t, `{"type":"integer","default":4}`)); got != "4" {
		t.Fatalf("DefaultText %q", got)
	}
	if got := DefaultLabels(typedQ(t, `{"type":"boolean","default":false}`)); len(got) != 1 || got[0] != "No" {
		t.Fatalf("DefaultLabels %q", got)
	}
	if got := DefaultLabels(typedQ(t, `{"type":"array","items":{"type":"string","enum":["a","b"]},"default":["b"]}`)); len(got) != 1 || got[0] != "b" {
		t.Fatalf("DefaultLabels %q", got)
	}
}
