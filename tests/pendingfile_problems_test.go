package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// pfProblems waits until the pending file's read-only "problems" satisfy ok.
func pfProblems(t *testing.T, e *Env, ok func([]string) bool) []string {
	t.Helper()
	var problems []string
	testdaemon.Eventually(t, "the pending file's problems to be as expected", func() (bool, string) {
		data, err := os.ReadFile(e.Pending)
		if err != nil {
			return false, err.Error()
		}
		var f struct {
			Problems []string `json:"problems"`
		}
		if json.Unmarshal(data, &f) == nil && ok(f.Problems) {
			problems = f.Problems
			return true, ""
		}
		return false, string(data)
	})
	return problems
}

// Someone answering only in an editor sees their save revert: the file
// itself says why (line, column, where their version went), and so does
// `askuser-client pending`; the next good save clears it (issue 16 item 6).
func TestPendingFileSaysWhatWasWrongInTheFile(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	c := pfAsk(t, e, "req-1", pfName)
	f := testenv.PendingFile(t, e, "req-1")
	good, _ := json.MarshalIndent(f, "", "  ")
	good = bytes.Replace(good, []byte(`"answer": null`), []byte(`"answer": "orders"`), 1)
	testenv.RenamePending(t, e, bytes.Replace(good, []byte(`"orders"`), []byte(`"orders",`), 1))

	rejected := e.Pending + ".rejected"
	got := pfProblems(t, e, func(p []string) bool { return len(p) == 1 })
	if !strings.HasPrefix(got[0], "line ") || !strings.Contains(got[0], ", column ") || !strings.Contains(got[0], rejected) {
		t.Errorf("problems %q: want the line, the column and where the save is kept", got)
	}
	out, errs, code := e.Client("", "pending")
	if code != 0 || !strings.Contains(out, "Problem with the last save: line ") || !strings.Contains(out, rejected) {
		t.Errorf("pending: exit %d\n%s%s", code, out, errs)
	}

	testenv.RenamePending(t, e, good)
	if r := pfResponse(t, c); r.AnswersByQuestion[pfName.Question] != "orders" {
		t.Errorf("response %+v", r)
	}
	pfAsk(t, e, "req-2", pfName)
	testenv.PendingFile(t, e, "req-2")
	pfProblems(t, e, func(p []string) bool { return len(p) == 0 })
}

// An answer typed under a question whose text was edited cannot be matched:
// it is not taken, the file says so, and the save is kept as .rejected so
// the typed text is not lost.
func TestPendingFileEditedQuestionKeepsTheTypedAnswer(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	pfAsk(t, e, "req-1", pfName, pfDB)
	f := testenv.PendingFile(t, e, "req-1")
	f.Requests[0].Questions[0].Question = "What should we call this service?"
	saved := testenv.SavePending(t, e, f, "req-1", `"a long answer typed with care"`)
	got := pfProblems(t, e, func(p []string) bool { return len(p) > 0 })
	text := strings.Join(got, "\n")
	if !strings.Contains(text, "was its text edited?") || !strings.Contains(text, e.Pending+".rejected") {
		t.Errorf("problems %q", got)
	}
	if kept, err := os.ReadFile(e.Pending + ".rejected"); err != nil || !bytes.Equal(kept, saved) {
		t.Errorf(".rejected: %v\n%s", err, kept)
	}
}
