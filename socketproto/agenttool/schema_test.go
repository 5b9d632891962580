package agenttool

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"askuser/socketproto"
)

func TestSchemaIsJSONObjectSchema(t *testing.T) {
	for _, tool := range []string{"", socketproto.ToolAskUser, socketproto.ToolAskUserQuestion} {
		raw := Schema(tool)
		var s map[string]any
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%q: schema is not JSON: %v", tool, err)
		}
		if s["type"] != "object" {
			t.Fatalf("%q: type = %v", tool, s["type"])
		}
		walkSchema(t, tool, "", s)
	}
	if Schema("ask_everyone") != nil {
		t.Fatal("unknown tool should have no schema")
	}
}

// walkSchema checks that every property carries a description: the model
// reads them.
func walkSchema(t *testing.T, tool, path string, s map[string]any) {
	t.Helper()
	if props, ok := s["properties"].(map[string]any); ok {
		for name, p := range props {
			pm := p.(map[string]any)
			if d, _ := pm["description"].(string); d == "" {
				t.Errorf("%q: %s.%s has no description", tool, path, name)
			}
			walkSchema(t, tool, path+"."+name, pm)
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		walkSchema(t, tool, path+"[]", items)
	}
}

func TestSchemaBounds(t *testing.T) {
	tests := []struct {
		tool                        string
		maxQ, minO, maxO, maxHeader int
		required                    []string
	}{
		{socketproto.ToolAskUserQuestion, 4, 2, 4, 12, []string{"question", "header", "options", "multiSelect"}},
		{socketproto.ToolAskUser, 16, 0, 64, 40, []string{"question"}},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			var s map[string]any
			if err := json.Unmarshal(Schema(tc.tool), &s); err != nil {
				t.Fatal(err)
			}
			qs := dig(s, "properties", "questions")
			q := dig(qs, "items")
			o := dig(q, "properties", "options")
			checkNum(t, "questions.minItems", qs["minItems"], 1)
			checkNum(t, "questions.maxItems", qs["maxItems"], tc.maxQ)
			checkNum(t, "options.maxItems", o["maxItems"], tc.maxO)
			if tc.minO > 0 {
				checkNum(t, "options.minItems", o["minItems"], tc.minO)
			} else if _, ok := o["minItems"]; ok {
				t.Error("flexible options must not have minItems")
			}
			checkNum(t, "header.maxLength", dig(q, "properties", "header")["maxLength"], tc.maxHeader)
			checkNum(t, "question.maxLength", dig(q, "properties", "question")["maxLength"], socketproto.MaxQuestionChars)
			checkNum(t, "label.maxLength", dig(o, "items", "properties", "label")["maxLength"], socketproto.MaxLabelChars)
			if got := fmt.Sprint(q["required"]); got != fmt.Sprint(toAny(tc.required)) {
				t.Errorf("question.required = %s, want %v", got, tc.required)
			}
			if q["additionalProperties"] != false || dig(o, "items")["additionalProperties"] != false {
				t.Error("questions and options must refuse unknown properties")
			}
		})
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func dig(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		m, _ = m[k].(map[string]any)
	}
	return m
}

func checkNum(t *testing.T, name string, v any, want int) {
	t.Helper()
	if f, ok := v.(float64); !ok || int(f) != want {
		t.Errorf("%s = %v, want %d", name, v, want)
	}
}

// TestToolSchemaAgreesWithValidateRequest runs sample tool inputs through a
// minimal schema checker (type, required, additionalProperties, min/maxItems,
// min/maxLength — all the schema uses) and through socketproto.ValidateRequest: within
// what a schema can say, both must give the same verdict.
func TestSchemaAgreesWithValidateRequest(t *testing.T) {
	q := func(fields string) string { return `{"question":"Which database?",` + fields + `}` }
	strictOpts := `"options":[{"label":"A"},{"label":"B"}]`
	strictQ := q(`"header":"DB","multiSelect":false,` + strictOpts)
	nq := func(n int, tmpl func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = tmpl(i)
		}
		return `{"questions":[` + strings.Join(parts, ",") + `]}`
	}
	strictN := func(i int) string {
		return fmt.Sprintf(`{"question":"Q%d?","header":"H","multiSelect":true,%s}`, i, strictOpts)
	}
	optsN := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`{"label":"L%d"}`, i)
		}
		return `"options":[` + strings.Join(parts, ",") + `]`
	}
	samples := []struct {
		tool  string
		input string
	}{
		{socketproto.ToolAskUserQuestion, `{"questions":[` + strictQ + `]}`},
		{socketproto.ToolAskUserQuestion, `{"questions":[]}`},
		{socketproto.ToolAskUserQuestion, nq(4, strictN)},
		{socketproto.ToolAskUserQuestion, nq(5, strictN)},
		{socketproto.ToolAskUserQuestion, `{"questions":[` + q(`"header":"DB","multiSelect":false,`+optsN(1)) + `]}`},
		{socketproto.ToolAskUserQuestion, `{"questions":[` + q(`"header":"DB","multiSelect":false,`+optsN(5)) + `]}`},
		{socketproto.ToolAskUserQuestion, `{"questions":[` + q(`"header":"DB",`+strictOpts) + `]}`},
		{socketproto.ToolAskUserQuestion, `{"questions":[` + q(`"multiSelect":false,`+strictOpts) + `]}`},
		{socketproto.ToolAskUserQuestion, `{"questions":[` + q(`"header":"Twelve chars","multiSelect":false,`+strictOpts) + `]}`},
		{socketproto.ToolAskUserQuestion, `{"questions":[` + q(`"header":"Thirteen char","multiSelect":false,`+strictOpts) + `]}`},
		{socketproto.ToolAskUserQuestion, `{"questions":[` + q(`"header":"","multiSelect":false,`+strictOpts) + `]}`},
		{socketproto.ToolAskUserQuestion, `{"questions":[` + q(`"header":"DB","multiSelect":false,"options":[{"label":""},{"label":"B"}]`) + `]}`},
		{socketproto.ToolAskUserQuestion, `{"questions":[` + strictQ + `],"metadata":{"source":"setup"}}`},
		{socketproto.ToolAskUser, `{"questions":[{"question":"Name?"}]}`},
		{socketproto.ToolAskUser, `{"questions":[]}`},
		{socketproto.ToolAskUser, `{}`},
		{socketproto.ToolAskUser, nq(16, func(i int) string { return fmt.Sprintf(`{"question":"Q%d?"}`, i) })},
		{socketproto.ToolAskUser, nq(17, func(i int) string { return fmt.Sprintf(`{"question":"Q%d?"}`, i) })},
		{socketproto.ToolAskUser, `{"questions":[` + q(optsN(1)) + `]}`},
		{socketproto.ToolAskUser, `{"questions":[` + q(optsN(64)) + `]}`},
		{socketproto.ToolAskUser, `{"questions":[` + q(optsN(65)) + `]}`},
		{socketproto.ToolAskUser, `{"questions":[` + q(`"header":"`+strings.Repeat("h", 40)+`"`) + `]}`},
		{socketproto.ToolAskUser, `{"questions":[` + q(`"header":"`+strings.Repeat("h", 41)+`"`) + `]}`},
		{socketproto.ToolAskUser, `{"questions":[` + q(`"header":""`) + `]}`},
		{socketproto.ToolAskUser, `{"questions":[{"question":"` + strings.Repeat("é", 1000) + `"}]}`},
		{socketproto.ToolAskUser, `{"questions":[{"question":"` + strings.Repeat("é", 1001) + `"}]}`},
		{socketproto.ToolAskUser, `{"questions":[{"question":""}]}`},
		{socketproto.ToolAskUser, `{"questions":[` + q(`"options":[{"label":"A","description":"`+strings.Repeat("d", 1001)+`"}]`) + `]}`},
		{socketproto.ToolAskUser, `{"questions":[` + q(`"options":[{"label":"A","preview":"`+strings.Repeat("p", 4000)+`"}]`) + `]}`},
	}
	for i, tc := range samples {
		t.Run(fmt.Sprintf("%d_%s", i, tc.tool), func(t *testing.T) {
			var schema, input any
			if err := json.Unmarshal(Schema(tc.tool), &schema); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.input), &input); err != nil {
				t.Fatalf("sample is not JSON: %v", err)
			}
			schemaErr := miniSchemaCheck(schema.(map[string]any), input, "")

			line := `{"type":"ask_user_request","tool":"` + tc.tool + `",` + strings.TrimPrefix(tc.input, "{")
			if tc.input == `{}` {
				line = `{"type":"ask_user_request","tool":"` + tc.tool + `"}`
			}
			var valErr *socketproto.Error
			msg, derr := socketproto.DecodeFromClient([]byte(line))
			if derr != nil {
				valErr = derr
			} else {
				valErr = socketproto.ValidateRequest(msg.(socketproto.AskUserRequest).Request, socketproto.DefaultLimits())
			}
			if (schemaErr == "") != (valErr == nil) {
				t.Fatalf("schema says %q, ValidateRequest says %v", schemaErr, valErr)
			}
		})
	}
}

// miniSchemaCheck returns "" if v satisfies s, else the first violation.
func miniSchemaCheck(s map[string]any, v any, path string) string {
	num := func(k string) (int, bool) {
		f, ok := s[k].(float64)
		return int(f), ok
	}
	switch s["type"] {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return path + ": not an object"
		}
		props, _ := s["properties"].(map[string]any)
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if _, ok := m[r.(string)]; !ok {
					return path + ": missing " + r.(string)
				}
			}
		}
		for k, e := range m {
			ps, ok := props[k].(map[string]any)
			if !ok {
				if s["additionalProperties"] == false {
					return path + ": unknown " + k
				}
				continue
			}
			if msg := miniSchemaCheck(ps, e, path+"."+k); msg != "" {
				return msg
			}
		}
	case "array":
		l, ok := v.([]any)
		if !ok {
			return path + ": not an array"
		}
		if n, ok := num("minItems"); ok && len(l) < n {
			return path + ": too few"
		}
		if n, ok := num("maxItems"); ok && len(l) > n {
			return path + ": too many"
		}
		items, _ := s["items"].(map[string]any)
		for i, e := range l {
			if msg := miniSchemaCheck(items, e, fmt.Sprintf("%s[%d]", path, i)); msg != "" {
				return msg
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return path + ": not a string"
		}
		if n, ok := num("minLength"); ok && utf8.RuneCountInString(str) < n {
			return path + ": too short"
		}
		if n, ok := num("maxLength"); ok && utf8.RuneCountInString(str) > n {
			return path + ": too long"
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return path + ": not a boolean"
		}
	}
	return ""
}

func TestDescription(t *testing.T) {
	for _, tool := range []string{socketproto.ToolAskUser, socketproto.ToolAskUserQuestion} {
		d := Description(tool)
		for _, must := range []string{"(Recommended)", "Batch related questions", "already answer", "type their own answer", "blocks until the user answers", "headers very short", "cancelled"} {
			if !strings.Contains(d, must) {
				t.Errorf("%s description lacks %q", tool, must)
			}
		}
	}
	if !strings.Contains(Description(socketproto.ToolAskUserQuestion), "1 to 4 questions") || !strings.Contains(Description(socketproto.ToolAskUser), "1 to 16 questions") {
		t.Error("descriptions must state their profile's limits")
	}
	if Description("nope") != "" {
		t.Error("unknown tool should have no description")
	}
}
