package socketproto

import (
	"encoding/json"
	"strings"
	"testing"
)

// permission is a permission prompt as the hooks ask it: Allow approves the
// tool's whole input, shown as its preview.
func permission() Question {
	return Question{Question: "Run this command?", Options: []Option{
		{Label: "Allow", Preview: "rm -rf ./build\nmake all", ApprovesPreview: true},
		{Label: "Deny"},
	}}
}

// The daemon takes an approving choice only with the digest of the preview
// it holds, whatever form the answer takes, and never says what that is.
func TestNormalizeAnswersHoldsApprovalToItsDigest(t *testing.T) {
	t.Parallel()
	q := permission()
	digest := PreviewDigest(q.Options[0].Preview)
	other := PreviewDigest("rm -rf /")
	for _, c := range []struct {
		name, raw string
		refused   string // "" when taken
	}{
		{"label without digest", `"Allow"`, `answers[0].previewDigest: "Allow" approves everything in its preview`},
		{"number without digest", `1`, `must name that preview as "previewDigest"`},
		{"list without digest", `["Allow"]`, `must name that preview as "previewDigest"`},
		{"object without digest", `{"selected":["Allow"]}`, `must name that preview as "previewDigest"`},
		{"empty digest", `{"selected":["Allow"],"previewDigest":""}`, `must name that preview as "previewDigest"`},
		{"another preview's digest", `{"selected":["Allow"],"previewDigest":"` + other + `"}`, `is not the digest of "Allow"'s preview as the daemon holds it`},
		{"right digest", `{"selected":["Allow"],"previewDigest":"` + digest + `"}`, ""},
		{"right digest by number, with a note", `{"selected":[1],"notes":"ok","previewDigest":"` + digest + `"}`, ""},
		{"deny needs none", `"Deny"`, ""},
		{"typed answer needs none", `{"custom":"only the build dir"}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, e := NormalizeAnswers([]Question{q}, []json.RawMessage{json.RawMessage(c.raw)})
			switch {
			case c.refused == "" && e != nil:
				t.Fatalf("refused: %v", e)
			case c.refused != "" && e == nil:
				t.Fatal("taken; want refused")
			case c.refused != "":
				if e.Code != CodeInvalidAnswer || e.Field != "answers[0].previewDigest" || !strings.Contains(e.Message, c.refused) {
					t.Fatalf("refused with %s %q (field %q), want invalid_answer with %q", e.Code, e.Message, e.Field, c.refused)
				}
				if strings.Contains(e.Message, digest) {
					t.Fatalf("the refusal gives the expected digest away: %q", e.Message)
				}
			}
		})
	}
}

// NormalizeAnswer reads drafts and what a surface shows: it takes the choice
// without the digest, which only a submission needs.
func TestNormalizeAnswerReadsApprovalWithoutDigest(t *testing.T) {
	t.Parallel()
	a, ok, err := NormalizeAnswer(permission(), json.RawMessage(`"Allow"`))
	if err != nil || !ok || a.SelectedOption != "Allow" {
		t.Fatalf("NormalizeAnswer(Allow) = %+v, %v, %v", a, ok, err)
	}
}

func TestWithPreviewDigest(t *testing.T) {
	t.Parallel()
	q := permission()
	digest := PreviewDigest(q.Options[0].Preview)
	for raw, want := range map[string]string{
		`"Allow"`: `{"selected":["Allow"],"previewDigest":"` + digest + `"}`,
		`{"selected":[1],"notes":"a & b","previewDigest":"sha256:0"}`: `{"selected":["Allow"],"notes":"a & b","previewDigest":"` + digest + `"}`,
	} {
		got := WithPreviewDigest(q, json.RawMessage(raw), digest)
		if string(got) != want {
			t.Errorf("WithPreviewDigest(%s) = %s, want %s", raw, got, want)
		}
		if err := CheckApproval(q, got); err != nil {
			t.Errorf("CheckApproval(%s): %v", got, err)
		}
	}
}

func TestPreviewDigest(t *testing.T) {
	t.Parallel()
	d := PreviewDigest("rm -rf ./build")
	if !strings.HasPrefix(d, "sha256:") || len(d) != len("sha256:")+16 || d != PreviewDigest("rm -rf ./build") {
		t.Fatalf("PreviewDigest = %q", d)
	}
	if d == PreviewDigest("rm -rf ./build ") {
		t.Fatal("two previews share a digest")
	}
}

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
