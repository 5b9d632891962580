package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"askuser/socketproto"
)

// An answer choosing an option that approves its preview goes out with
// that preview's digest only when the user has seen it: a digest given
// (--digest, "previewDigest") must be that preview's, else the user is
// asked on the terminal, else nothing is sent (docs/contract.md §6 "Allow
// means seen", §7).
func TestApproveAnswers(t *testing.T) {
	t.Parallel()
	input := "rm -rf build"
	p := socketproto.Pending{Request: socketproto.Request{RequestID: "perm-1", Questions: []socketproto.Question{{
		Question: "Allow the agent to use Bash with the input shown?",
		Options: []socketproto.Option{
			{Label: "Allow", Preview: input, ApprovesPreview: true},
			{Label: "Deny"},
		},
	}}}}
	digest := socketproto.PreviewDigest(input)
	other := socketproto.PreviewDigest("rm -rf /")
	approved := `{"previewDigest":"` + digest + `","selected":["Allow"]}`
	yes := func(int, socketproto.Question, socketproto.Option) (bool, error) { return true, nil }
	no := func(int, socketproto.Question, socketproto.Option) (bool, error) { return false, nil }
	for _, c := range []struct {
		name    string
		answer  string
		given   []string
		confirm confirmFunc
		want    string // the answer sent; "" when refused
		refusal string
	}{
		{"a script, no digest", `"1"`, nil, nil, "", "read it with askuser-client show perm-1, then answer with --digest"},
		{"a script, the digest show printed", `"1"`, []string{digest}, nil, approved, ""},
		{"a script, the label and the digest", `"allow"`, []string{other, digest}, nil, approved, ""},
		{"the digest of another text", `"Allow"`, []string{other}, yes, "", "--digest " + other + " is not the digest of the input \"Allow\" approves (answers[0])"},
		{"two digests, neither this text's", `"Allow"`, []string{other, "sha256:0"}, nil, "", "none of the --digest values (" + other + ", sha256:0) is the digest of the input \"Allow\" approves"},
		{"the object form with its digest", approved, nil, nil, approved, ""},
		{"the object form, notes kept", `{"selected":["Allow"],"notes":"once","previewDigest":"` + digest + `"}`, nil, nil,
			`{"selected":["Allow"],"notes":"once","previewDigest":"` + digest + `"}`, ""},
		{"the object form with a wrong digest", `{"selected":["Allow"],"previewDigest":"` + other + `"}`, []string{digest}, yes, "", "previewDigest is not the digest"},
		{"on a terminal, approved", `1`, nil, yes, approved, ""},
		{"on a terminal, not approved", `1`, nil, no, "", "not approved"},
		{"Deny needs nothing", `"2"`, nil, nil, `"2"`, ""},
		{"typed text needs nothing", `{"custom":"1"}`, nil, nil, `{"custom":"1"}`, ""},
	} {
		got, err := approveAnswers(p, []json.RawMessage{json.RawMessage(c.answer)}, c.given, c.confirm)
		if c.refusal != "" {
			if err == nil || !strings.Contains(err.Error(), c.refusal) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.refusal)
			}
			if err != nil && strings.Contains(err.Error(), digest) {
				t.Errorf("%s: the refusal gives the digest away: %v", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !sameJSON(t, got[0], c.want) {
			t.Errorf("%s: sends %s, want %s", c.name, got[0], c.want)
		}
	}
	if _, err := approveAnswers(p, []json.RawMessage{json.RawMessage(`1`)}, nil, no); !errors.As(err, new(notApproved)) {
		t.Errorf("no at the question: %v", err)
	}
}

func sameJSON(t *testing.T, a json.RawMessage, b string) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}
