package elicit

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"askuser/socketproto"
)

// buildForm builds params and checks that what it makes is a request the
// daemon accepts.
func buildForm(t *testing.T, p Params) *Form {
	t.Helper()
	f, err := Build(p)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if e := socketproto.ValidateRequest(socketproto.Request{Questions: f.Questions}, socketproto.DefaultLimits()); e != nil {
		t.Fatalf("the questions are not a valid request: %v\n%+v", e, f.Questions)
	}
	return f
}

func inputJSON(t *testing.T, in *socketproto.Input) string {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Each field kind of MCP's elicitation schema becomes the typed question
// docs/contract.md §3 describes.
func TestFieldKinds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		prop     string
		required bool
		input    string // the question's input, as JSON
		labels   []string
		multi    bool
		text     string // the question text (after the form's message)
		descs    []string
	}{
		{name: "string enum", prop: `{"type":"string","enum":["red","blue"]}`, required: true,
			input: `{"type":"string","enum":["red","blue"]}`, labels: []string{"red", "blue"}, text: "f"},
		{name: "enum with enumNames", prop: `{"type":"string","title":"Colour","enum":["r","b"],"enumNames":["Red","Blue"]}`, required: true,
			input: `{"type":"string","enum":["r","b"]}`, labels: []string{"r", "b"}, descs: []string{"Red", "Blue"}, text: "Colour"},
		{name: "titled oneOf", prop: `{"type":"string","oneOf":[{"const":"eu","title":"Europe"},{"const":"us","title":"United States"}]}`, required: true,
			input: `{"type":"string","enum":["eu","us"]}`, labels: []string{"eu", "us"}, descs: []string{"Europe", "United States"}, text: "f"},
		{name: "multi-select", prop: `{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1,"maxItems":2}`, required: true,
			input: `{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1,"maxItems":2}`, labels: []string{"a", "b", "c"}, multi: true, text: "f"},
		{name: "multi-select titled", prop: `{"type":"array","items":{"anyOf":[{"const":"a","title":"Alpha"},{"const":"b","title":"Beta"}]}}`, required: true,
			input: `{"type":"array","items":{"type":"string","enum":["a","b"]}}`, labels: []string{"a", "b"}, descs: []string{"Alpha", "Beta"}, multi: true, text: "f"},
		{name: "boolean with default", prop: `{"type":"boolean","title":"Enable TLS?","default":true}`, required: true,
			input: `{"type":"boolean","default":true}`, labels: []string{"Yes", "No"}, text: "Enable TLS?"},
		{name: "email, optional", prop: `{"type":"string","format":"email","description":"where the report goes"}`,
			input: `{"type":"string","format":"email","required":false}`, text: "f\nwhere the report goes"},
		{name: "string bounds and pattern", prop: `{"type":"string","minLength":2,"maxLength":20,"pattern":"^[a-z]+$"}`, required: true,
			input: `{"type":"string","minLength":2,"maxLength":20,"pattern":"^[a-z]+$"}`, text: "f"},
		{name: "pattern Go cannot compile", prop: `{"type":"string","pattern":"^(?!x)"}`, required: true,
			input: `{"type":"string"}`, text: "f\n(must match /^(?!x)/, which the server checks)"},
		{name: "unknown format left out", prop: `{"type":"string","format":"hostname"}`, required: true,
			input: `{"type":"string"}`, text: "f"},
		{name: "integer with bounds and default", prop: `{"type":"integer","minimum":1,"maximum":5,"default":2}`, required: true,
			input: `{"type":"integer","minimum":1,"maximum":5,"default":2}`, text: "f"},
		{name: "number", prop: `{"type":"number","minimum":0.5}`, required: true,
			input: `{"type":"number","minimum":0.5}`, text: "f"},
		{name: "default that breaks the rule dropped", prop: `{"type":"integer","maximum":5,"default":9}`, required: true,
			input: `{"type":"integer","maximum":5}`, text: "f"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			req := `[]`
			if c.required {
				req = `["f"]`
			}
			f := buildForm(t, Params{Message: "Fill it in", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"f":` + c.prop + `},"required":` + req + `}`)})
			q := f.Questions[0]
			if got := inputJSON(t, q.Input); got != c.input {
				t.Errorf("input = %s, want %s", got, c.input)
			}
			if want := "Fill it in\n\n" + c.text; q.Question != want {
				t.Errorf("question = %q, want %q", q.Question, want)
			}
			if q.Header != "f" {
				t.Errorf("header = %q", q.Header)
			}
			var labels, descs []string
			for _, o := range q.Options {
				labels = append(labels, o.Label)
				descs = append(descs, o.Description)
			}
			if !reflect.DeepEqual(labels, c.labels) {
				t.Errorf("options = %q, want %q", labels, c.labels)
			}
			if c.descs != nil && !reflect.DeepEqual(descs, c.descs) {
				t.Errorf("option descriptions = %q, want %q", descs, c.descs)
			}
			if q.IsMulti() != c.multi {
				t.Errorf("multiSelect = %v", q.IsMulti())
			}
		})
	}
}

// Fields are asked in the order the server wrote them; the message heads the
// first question only; two fields of one title stay two questions.
func TestFieldOrderAndTitles(t *testing.T) {
	t.Parallel()
	f := buildForm(t, Params{Message: "Deploy settings", RequestedSchema: json.RawMessage(`{"type":"object","properties":{
		"zeta":{"type":"string","title":"Name"},
		"alpha":{"type":"string","title":"Name"},
		"mid":{"type":"boolean"}}}`)})
	var got []string
	for _, q := range f.Questions {
		got = append(got, q.Question)
	}
	want := []string{"Deploy settings\n\nName", "Name (alpha)", "mid"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("questions = %q, want %q", got, want)
	}
	if !reflect.DeepEqual(f.fields, []string{"zeta", "alpha", "mid"}) {
		t.Fatalf("fields = %q", f.fields)
	}
}

// What askuser cannot ask is refused as a whole, naming the field.
func TestUnsupportedFields(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ schema, want string }{
		{`{"type":"object","properties":{"n":{"type":"object","properties":{"x":{"type":"string"}}}}}`, "properties.n: "},
		{`{"type":"object","properties":{"n":{"type":"array","items":{"type":"string"}}}}`, "properties.n: an array of free values"},
		{`{"type":"object","properties":{"n":{"type":"null"}}}`, `properties.n: type "null"`},
		{`{"type":"array"}`, `requestedSchema.type`},
		{`{"type":"object","properties":[1]}`, `requestedSchema.properties: not an object`},
	} {
		_, err := Build(Params{RequestedSchema: json.RawMessage(c.schema)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.schema, err, c.want)
		}
	}
	if _, err := Build(Params{Mode: "voice"}); err == nil {
		t.Error("an unknown mode was taken")
	}
	if _, err := Build(Params{Mode: ModeURL}); err == nil {
		t.Error("a URL elicitation without a URL was taken")
	}
}

// answer normalises raw answers as the daemon would and returns its result.
func answer(t *testing.T, f *Form, raws ...string) socketproto.Response {
	t.Helper()
	rs := make([]json.RawMessage, len(raws))
	for i, r := range raws {
		rs[i] = json.RawMessage(r)
	}
	as, e := socketproto.NormalizeAnswers(f.Questions, rs)
	if e != nil {
		t.Fatalf("answers refused: %v", e)
	}
	return socketproto.Response{Answered: true, Answers: as}
}

const everyKind = `{"type":"object","properties":{
	"color":{"type":"string","enum":["red","blue"]},
	"count":{"type":"integer","minimum":1,"maximum":5},
	"ratio":{"type":"number"},
	"ok":{"type":"boolean"},
	"name":{"type":"string","maxLength":20},
	"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]}},
	"email":{"type":"string","format":"email"}},
	"required":["color","count","ratio","ok","name","tags"]}`

// An accepted form's content has each field with its JSON type; an optional
// field left empty is absent.
func TestResultTypes(t *testing.T) {
	t.Parallel()
	f := buildForm(t, Params{Message: "Every kind", RequestedSchema: json.RawMessage(everyKind)})
	res := f.Result(answer(t, f, `"blue"`, `"3"`, `2.5`, `"No"`, `"widget"`, `["a","c"]`, `""`))
	got, _ := json.Marshal(res)
	want := `{"action":"accept","content":{"color":"blue","count":3,"name":"widget","ok":false,"ratio":2.5,"tags":["a","c"]}}`
	if string(got) != want {
		t.Fatalf("result = %s\nwant     %s", got, want)
	}
	res = f.Result(answer(t, f, `1`, `5`, `0`, `true`, `"x"`, `[]`, `"me@example.com"`))
	got, _ = json.Marshal(res)
	want = `{"action":"accept","content":{"color":"red","count":5,"email":"me@example.com","name":"x","ok":true,"ratio":0,"tags":[]}}`
	if string(got) != want {
		t.Fatalf("result = %s\nwant     %s", got, want)
	}
}

// The daemon refuses what breaks a field's rule: the form cannot be
// accepted with a value the server did not allow.
func TestRulesRefused(t *testing.T) {
	t.Parallel()
	f := buildForm(t, Params{RequestedSchema: json.RawMessage(everyKind)})
	for i, bad := range []string{`"green"`, `"9"`, `"lots"`, `"maybe"`, `"` + strings.Repeat("x", 21) + `"`, `["d"]`, `"not-an-address"`} {
		if _, _, err := socketproto.NormalizeAnswer(f.Questions[i], json.RawMessage(bad)); err == nil {
			t.Errorf("%s: %s was taken", f.fields[i], bad)
		}
	}
}

func TestDeclineAndURL(t *testing.T) {
	t.Parallel()
	f := buildForm(t, Params{RequestedSchema: json.RawMessage(everyKind)})
	if r := f.Result(socketproto.Response{Cancelled: true}); r.Action != ActionDecline || r.Content != nil {
		t.Errorf("a declined form gave %+v", r)
	}
	if r := Cancel(); r.Action != ActionCancel {
		t.Errorf("Cancel gave %+v", r)
	}

	u := buildForm(t, Params{Mode: ModeURL, Message: "Sign in to the tracker", URL: "https://example.com/auth?x=1", ElicitationID: "e1"})
	q := u.Questions[0]
	if !strings.Contains(q.Question, "https://example.com/auth?x=1") || !strings.HasPrefix(q.Question, "Sign in to the tracker") {
		t.Errorf("the URL question does not show the message and the URL: %q", q.Question)
	}
	if r, _ := json.Marshal(u.Result(answer(t, u, `"`+LabelFinished+`"`))); string(r) != `{"action":"accept"}` {
		t.Errorf("finished gave %s", r)
	}
	if r := u.Result(answer(t, u, `"`+LabelDecline+`"`)); r.Action != ActionDecline {
		t.Errorf("decline gave %+v", r)
	}
	// A URL given without a mode is a URL elicitation.
	if g, err := Build(Params{URL: "https://example.com/"}); err != nil || !g.url {
		t.Errorf("mode inferred from url: %v %+v", err, g)
	}
}

// A form without fields asks for consent: Yes accepts with empty content.
func TestConfirmForm(t *testing.T) {
	t.Parallel()
	f := buildForm(t, Params{Message: "Go ahead?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)})
	if r, _ := json.Marshal(f.Result(answer(t, f, `"Yes"`))); string(r) != `{"action":"accept"}` {
		t.Errorf("yes gave %s", r)
	}
	if r := f.Result(answer(t, f, `"No"`)); r.Action != ActionDecline {
		t.Errorf("no gave %+v", r)
	}
}
