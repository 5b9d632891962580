package tests

import (
	"strings"
	"testing"
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
	p := startTmuxPane(t, e, 40, 12)
	p.waitFor("No questions waiting")
	req := `{"questions":[
	  {"question":"Describe [red]it[-]","header":"About"},
	  {"question":"Proceed?","header":"Go","options":[{"label":"[::b]Yes"},{"label":"No"}]}]}`
	cmd, out, errb := e.StartClient(req, "ask", "-")
	p.waitFor("Describe [red]it[-]", "□ About")

	long := strings.Repeat("word ", 420) + "END" // 2,103 characters
	p.paste(long)
	p.waitFor("END")
	p.keys("Enter")
	p.waitFor("Answer is long (2,103 chars).", "[Y/n]")
	p.keys("n")
	p.waitGone("Answer is long")
	p.waitFor("END") // the text stays
	p.keys("Enter")
	p.waitFor("[Y/n]")
	p.keys("y")
	p.waitFor("■ About", "Proceed?", "1. [::b]Yes")

	p.keys("Escape")
	p.waitFor("Discard 1 answer? [y/N]")
	p.keys("Enter") // back, nothing lost
	p.waitGone("Discard")
	p.keys("BTab")
	p.waitFor("Describe [red]it[-]", "END")
	p.keys("Tab")
	p.waitFor("Proceed?")
	p.keys("1")
	p.waitFor("■ Go", "■ Describe [red]it[-]", "lines 1–") // the Submit tab, scrolling at this size
	p.keys("Enter")
	r, code := waitClient(t, cmd, out, errb)
	if code != 0 || !r.Answered || r.Answers[0].Answer.Text != long || r.Answers[1].Answer.Text != "[::b]Yes" {
		t.Fatalf("exit %d, result %+v", code, r)
	}

	// Esc, then y, discards: the agent hears the user declined.
	cmd, out, errb = e.StartClient(req, "ask", "-")
	p.waitFor("Describe [red]it[-]", "□ About")
	p.typeText("half")
	p.keys("Escape")
	p.waitFor("Discard 1 answer? [y/N]")
	p.keys("y")
	if r, code := waitClient(t, cmd, out, errb); code != 3 || !r.Cancelled {
		t.Fatalf("exit %d, result %+v", code, r)
	}
}
