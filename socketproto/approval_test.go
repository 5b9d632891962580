package socketproto

import (
	"encoding/json"
	"testing"
)

// ApprovingChoice finds an approving option however the answer names it
// (label, number, list, object), and none for another option, typed text, a
// slip or no answer: a surface then knows when to show the preview first.
func TestApprovingChoice(t *testing.T) {
	t.Parallel()
	q := Question{Question: "Allow the agent to use Bash with the input shown?", Options: []Option{
		{Label: "Allow", Preview: "rm -rf build", ApprovesPreview: true},
		{Label: "Deny"},
		{Label: "Allow, and don't ask again", Preview: "rm -rf build\n\nand from now on: Bash(rm:*)", ApprovesPreview: true},
	}}
	for _, c := range []struct {
		raw  string
		want int
	}{
		{`"Allow"`, 0},
		{`"allow"`, 0},
		{`1`, 0},
		{`"1"`, 0},
		{`["Allow"]`, 0},
		{`{"selected":["Allow"],"previewDigest":"sha256:0000000000000000"}`, 0},
		{`3`, 2},
		{`"Allow, and don't ask again"`, 2},
		{`"Deny"`, -1},
		{`2`, -1},
		{`"allow it"`, -1},
		{`{"custom":"1"}`, -1},
		{`7`, -1},
		{`null`, -1},
		{``, -1},
		{`true`, -1},
	} {
		if got := ApprovingChoice(q, json.RawMessage(c.raw)); got != c.want {
			t.Errorf("ApprovingChoice(%s) = %d, want %d", c.raw, got, c.want)
		}
	}
}
