package tests

import (
	"os"
	"strings"
	"testing"
)

// Text typed on the page and not accepted is the draft's "typing"
// (docs/contract.md §4, §6), never an answer: a file save answering the
// other question does not send it.
func TestWebTypedTextIsNotAnAnswer(t *testing.T) {
	t.Parallel()
	e, _, b := webSetup(t, 390, 844)
	res := askOnSocket(t, e, `{"requestId":"req-typed",`+strings.TrimPrefix(webTwoQuestions, "{"))
	b.waitText("Which database should we use?")
	b.settled()
	b.clickText("□ Name")
	b.typeInto(`textarea[data-k^="custom-"]`, "half")
	waitFile(t, e.Pending, "half") // the daemon has the page's text
	if f, _ := os.ReadFile(e.Pending); !strings.Contains(string(f), `"typing": "half"`) {
		t.Errorf("text typed and not accepted reached the daemon as an answer:\n%s", f)
	}

	// The other question answered in the pending file: the request is not
	// complete, whatever was typed.
	pfSave(t, e, pfFile(t, e, "req-typed"), "req-typed", `"SQLite"`)
	b.waitText("■ Database")
	if out, _, _ := e.Client("", "list", "--json"); !strings.Contains(out, "req-typed") {
		t.Fatalf("a file save answering the other question sent text that was only typed: %s", out)
	}
	select {
	case r := <-res:
		t.Fatalf("answered with text only typed: %+v", r)
	default:
	}

	// Accepted, it is the answer.
	b.clickText("Next")
	b.waitText("Review and send", "SQLite", "half")
	b.clickText("Send answers")
	if r := b.result(res); !r.Answered || r.Answers[0].Answer.Text != "SQLite" || r.Answers[1].Answer.Text != "half" {
		t.Fatalf("result %+v", r)
	}
}
