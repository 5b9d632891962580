package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// pfPreviewQuestion has an option with a long, multi-line preview (tabs,
// quotes, a bidi control) and one without.
func pfPreviewQuestion() (socketproto.Question, string) {
	var b strings.Builder
	for i := 1; b.Len() < 3800; i++ {
		fmt.Fprintf(&b, "line %03d:\tCREATE TABLE \"t%d\" (id INTEGER PRIMARY KEY); -- \u202eevil\n", i, i)
	}
	b.WriteString("last line, no newline")
	preview := b.String()
	return socketproto.Question{Question: "Which database should we use?", Header: "Database",
		Options: []socketproto.Option{
			{Label: "PostgreSQL", Description: "Relational"},
			{Label: "SQLite", Description: "File-based", Preview: preview},
		}}, preview
}

// pfPreviews waits until the file is rewritten and returns each request's
// previews as the file shows them, by request id, with the raw text.
func pfPreviews(t *testing.T, e *Env, ok func(raw []byte) bool) (map[string]map[string][]string, []byte) {
	t.Helper()
	var previews map[string]map[string][]string
	var raw []byte
	testdaemon.Eventually(t, "the pending file's previews to be as expected", func() (bool, string) {
		data, err := os.ReadFile(e.Pending)
		if err != nil {
			return false, err.Error()
		}
		if !ok(data) {
			return false, string(data)
		}
		var f struct {
			Requests []struct {
				RequestID string `json:"requestId"`
				Questions []struct {
					Previews map[string][]string `json:"previews"`
				} `json:"questions"`
			} `json:"requests"`
		}
		if json.Unmarshal(data, &f) != nil {
			return false, string(data)
		}
		previews = map[string]map[string][]string{}
		for _, r := range f.Requests {
			if len(r.Questions) > 0 {
				previews[r.RequestID] = r.Questions[0].Previews
			}
		}
		raw = data
		return true, ""
	})
	return previews, raw
}

// Every option's preview is in the file, whole, line by line, read-only:
// a save that edits one changes nothing, and answering by label or number
// still works (issue 23 item 7).
func TestPendingFileShowsOptionPreviews(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	q, preview := pfPreviewQuestion()
	c1 := pfAsk(t, e, "req-1", q)
	c2 := pfAsk(t, e, "req-2", q)
	testenv.PendingFile(t, e, "req-1", "req-2")

	got, raw := pfPreviews(t, e, func([]byte) bool { return true })
	for _, id := range []string{"req-1", "req-2"} {
		if lines := got[id]["SQLite"]; strings.Join(lines, "\n") != preview {
			t.Errorf("%s: the file shows SQLite's preview as %d lines, want the whole preview:\n%q", id, len(lines), lines)
		}
		if _, ok := got[id]["PostgreSQL"]; ok || len(got[id]) != 1 {
			t.Errorf("%s: previews %q, want SQLite's only", id, got[id])
		}
	}
	if bytes.ContainsRune(raw, '\u202e') || !bytes.Contains(raw, []byte(`\u202eevil`)) {
		t.Errorf("the bidi control in the preview is not written as an escape")
	}

	// An editor's save that edits a preview and nothing else: no problem,
	// no draft, and the next rewrite shows the preview as it is.
	edited := bytes.ReplaceAll(raw, []byte("line 007:"), []byte("EDITED:"))
	testenv.RenamePending(t, e, edited)
	got, _ = pfPreviews(t, e, func(b []byte) bool { return !bytes.Equal(b, edited) })
	if strings.Join(got["req-1"]["SQLite"], "\n") != preview {
		t.Errorf("after a save that edited the preview, the file shows %q", got["req-1"]["SQLite"])
	}
	pfProblems(t, e, func(p []string) bool { return len(p) == 0 })
	f := testenv.PendingFile(t, e, "req-1", "req-2")
	for _, r := range f.Requests {
		if string(r.Questions[0].Answer) != "null" {
			t.Errorf("%s: answer %s after a save that edited only a preview", r.RequestID, r.Questions[0].Answer)
		}
	}

	// Answers by label and by number, in a save that edits the previews too.
	raw, _ = os.ReadFile(e.Pending)
	raw = bytes.ReplaceAll(raw, []byte("line 003:"), []byte("EDITED:"))
	raw = bytes.Replace(raw, []byte(`"answer": null`), []byte(`"answer": "SQLite"`), 1)
	raw = bytes.Replace(raw, []byte(`"answer": null`), []byte(`"answer": 2`), 1)
	testenv.RenamePending(t, e, raw)
	for _, c := range []*socketproto.Conn{c1, c2} {
		if r := pfResponse(t, c); r.AnswersByQuestion[q.Question] != "SQLite" {
			t.Errorf("response %+v, want SQLite", r)
		}
	}
}
