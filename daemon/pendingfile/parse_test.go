package pendingfile

import (
	"errors"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"missing comma", "{\n  \"requests\": [\n    {\"requestId\": \"a\" \"cancel\": true}\n  ]\n}", `line 3, column 23: invalid character '"' after object key:value pair`},
		{"trailing comma", "{\n  \"requests\": [\n    {\"requestId\": \"a\",}\n  ]\n}", "line 3, column 23: invalid character '}' looking for beginning of object key string"},
		{"cut short", "{\n  \"requests\": [\n", "line 3, column 1: the file ends in the middle of its JSON"},
		{"trailing garbage of an in-place write", "{\"requests\": []}\n  ]\n}\n", `line 2, column 3: unexpected "]" after the end of the file's JSON object`},
		{"cancel not a boolean", "{\"requests\": [\n {\"requestId\": \"a\", \"cancel\": \"yes\"}]}", "line 2, column 31: requests.cancel must be a boolean, not string"},
		{"requests not a list", `{"requests": {}}`, "line 1, column 14: requests must be a list, not object"},
		{"not an object", `[1]`, "line 1, column 1: the file must be an object, not array"},
		{"missing requestId", "{\"requests\": [\n  {\"requestId\": \"a\"},\n  {\"cancel\": true}\n]}", `line 3, column 3: this request has no "requestId"`},
		{"columns count characters", "{\"instructions\": \"é–ü\" x}", "line 1, column 24: invalid character 'x' after object key:value pair"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.data))
			if err == nil || err.Error() != tc.want {
				t.Errorf("Parse error\n got: %v\nwant: %s", err, tc.want)
			}
		})
	}
}

func TestParseEmpty(t *testing.T) {
	for _, data := range []string{"", "  \n\t\n"} {
		if _, err := Parse([]byte(data)); !errors.Is(err, ErrEmpty) {
			t.Errorf("Parse(%q) = %v, want ErrEmpty", data, err)
		}
	}
}

func TestParseKeepsRawAnswersAndPositions(t *testing.T) {
	data := `{
  "requests": [
    {"requestId": "a", "questions": [{"question": "q", "answer": [1, "Other text"]}]},
    {"requestId": "b", "cancel": true, "unknownField": {"x": 1}}
  ]
}`
	f, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Requests) != 2 || string(f.Requests[0].Questions[0].Answer) != `[1, "Other text"]` || !f.Requests[1].Cancel {
		t.Errorf("parsed %+v", f)
	}
	if f.Requests[0].At != "line 3, column 5" || f.Requests[1].At != "line 4, column 5" {
		t.Errorf("positions %q, %q", f.Requests[0].At, f.Requests[1].At)
	}
	if !strings.Contains(Instructions, `Set "cancel": true`) {
		t.Error("instructions lost the cancel sentence")
	}
}
