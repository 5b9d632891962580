package tests

import (
	"strings"
	"testing"

	"askuser/tests/termpane"
	"askuser/tests/testenv"
)

// TestPaneTmuxPasteLongAnswerAndDiscard runs the confirmations in a real
// terminal at 40×12: a pasted answer over the soft limit asks first, n keeps
// the text, y accepts it; Esc with an answer given asks before discarding,
// and Enter there goes back with the answer intact. Agent text with tview
// tags shows as sent.
func TestPaneTmuxPasteLongAnswerAndDiscard(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	p := termpane.StartTmuxPane(t, e, 40, 12)
	p.WaitFor("No questions waiting")
	req := `{"questions":[
	  {"question":"Describe [red]it[-]","header":"About"},
	  {"question":"Proceed?","header":"Go","options":[{"label":"[::b]Yes"},{"label":"No"}]}]}`
	cmd, out, errb := e.StartClient(req, "ask", "-")
	p.WaitFor("Describe [red]it[-]", "□ About")

	long := strings.Repeat("word ", 420) + "END" // 2,103 characters
	p.Paste(long)
	p.WaitFor("END")
	p.Keys("Enter")
	p.WaitFor("Answer is long (2,103 chars).", "[Y/n]")
	p.Keys("n")
	p.WaitGone("Answer is long")
	p.WaitFor("END") // the text stays
	p.Keys("Enter")
	p.WaitFor("[Y/n]")
	p.Keys("y")
	p.WaitFor("■ About", "Proceed?", "1. [::b]Yes")

	p.Keys("Escape")
	p.WaitFor("Discard 1 answer? [y/N]")
	p.Keys("Enter") // back, nothing lost
	p.WaitGone("Discard")
	p.Keys("BTab")
	p.WaitFor("Describe [red]it[-]", "END")
	p.Keys("Tab")
	p.WaitFor("Proceed?")
	p.Keys("1")
	p.WaitFor("■ Go", "■ Describe [red]it[-]", "lines 1–") // the Submit tab, scrolling at this size
	p.Keys("Enter")
	r, code := testenv.WaitClient(t, cmd, out, errb)
	if code != 0 || !r.Answered || r.Answers[0].Answer.Text != long || r.Answers[1].Answer.Text != "[::b]Yes" {
		t.Fatalf("exit %d, result %+v", code, r)
	}

	// Esc, then y, discards: the agent hears the user declined.
	cmd, out, errb = e.StartClient(req, "ask", "-")
	p.WaitFor("Describe [red]it[-]", "□ About")
	p.TypeText("half")
	p.Keys("Escape")
	p.WaitFor("Discard 1 answer? [y/N]")
	p.Keys("y")
	if r, code := testenv.WaitClient(t, cmd, out, errb); code != 3 || !r.Cancelled {
		t.Fatalf("exit %d, result %+v", code, r)
	}
}
