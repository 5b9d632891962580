package main

import (
	"encoding/json"
	"strings"
	"testing"

	"askuser/socketproto"
)

// An option number the question does not have is refused with the reason
// and nothing is sent (docs/contract.md §3); --text sends it as typed text on purpose.
// A misspelt label among labels of a multi-select is refused the same way,
// and [] is "none of these".
func TestAnswerRefusesSlipsAndTakesTextOnPurpose(t *testing.T) {
	sock, park := parkingDaemon(t)
	multi := true
	ask := func(id string, qs ...socketproto.Question) {
		t.Helper()
		park(socketproto.Request{RequestID: id, Questions: qs})
	}
	proceed := socketproto.Question{Question: "Proceed?", Options: []socketproto.Option{{Label: "Yes"}, {Label: "No"}}}
	colours := socketproto.Question{Question: "Colours?", MultiSelect: &multi, Options: []socketproto.Option{{Label: "Red"}, {Label: "Blue"}}}
	ask("two-options", proceed, socketproto.Question{Question: "Name?"})
	ask("colours", colours)
	ask("none", colours)

	run := func(args ...string) (int, string, string) {
		return runCommand(append([]string{"answer", "--socket", sock}, args...)...)
	}
	result := func(id string) []socketproto.Answer {
		t.Helper()
		var stdout, stderr strings.Builder
		if code := dispatch([]string{"wait", "--socket", sock, id, "--format", "pi"}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("wait %s: exit %d; stderr %s", id, code, stderr.String())
		}
		var got struct{ Answers []socketproto.Answer }
		if err := json.Unmarshal([]byte(stdout.String()), &got); err != nil {
			t.Fatalf("wait %s: %s (%v)", id, stdout.String(), err)
		}
		return got.Answers
	}

	if code, _, stderr := run("two-options", "5", "7"); code != exitFailed ||
		!strings.Contains(stderr, `answers[0]: 5 is not an option number: this question has options 1 to 2; to send "5" as your own answer, use askuser-client answer --text`) {
		t.Errorf("an option number out of range: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := run("colours", "Red, Bleu"); code != exitFailed ||
		!strings.Contains(stderr, `answers[0]: "Bleu" names no option of this question, while "Red" does: check the spelling`) {
		t.Errorf("a misspelt label: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := run("two-options", "Yes", "Use", "Redis"); code != exitFailed ||
		!strings.Contains(stderr, `two-options has 2 questions, and 3 answers were given: an answer with spaces goes in quotes (askuser-client answer two-options Yes 'Use Redis')`) {
		t.Errorf("an answer with spaces, unquoted: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := run("two-options", "--text", "5", "7"); code != exitOK {
		t.Fatalf("--text: exit %d, stderr %q", code, stderr)
	}
	if got := result("two-options"); len(got) != 2 || got[0].Custom != "5" || !got[0].WasCustom || got[1].Answer.Text != "7" {
		t.Errorf("--text 5 7: %+v", got)
	}
	if code, _, stderr := run("colours", "Red, Blue"); code != exitOK {
		t.Fatalf("two labels: exit %d, stderr %q", code, stderr)
	}
	if got := result("colours"); len(got) != 1 || strings.Join(got[0].SelectedOptions, "+") != "Red+Blue" {
		t.Errorf("Red, Blue: %+v", got)
	}
	if code, _, stderr := run("none", "--answers", "[[]]"); code != exitOK {
		t.Fatalf("none of these: exit %d, stderr %q", code, stderr)
	}
	if got := result("none"); len(got) != 1 || !got[0].Answer.IsList || len(got[0].Answer.List) != 0 {
		t.Errorf("none of these: %+v", got)
	}
}
