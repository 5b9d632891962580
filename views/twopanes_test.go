package views

import (
	"testing"

	"askuser/socketproto"
)

// Two panes on one request agree on a multi-select question whose boxes one
// of them checked without confirming: it is not answered in either, the
// other pane shows the boxes checked, and neither sends them as an answer.
func TestUnconfirmedChecksAreNoAnswerInAnyPane(t *testing.T) {
	t.Parallel()
	features := multi(question("Which features?", "Features", "Auth", "API", "Admin"))
	p := pending("req-1", features, nameQuestion())
	a, b := newH(t, 80, 24), newH(t, 80, 24)
	a.Event(snap(p))
	b.Event(snap(p))
	a.Press("<Space>") // Auth checked, not confirmed
	d := a.D.Drafts()
	if len(d) != 1 {
		t.Fatalf("pane A sent drafts %v, want one", d)
	}
	b.Event(socketproto.RequestUpdated{Request: withDraft(p, string(d[0].Answer))})
	for _, h := range []*H{a, b} {
		h.Has("□ Features", "[x] 1. Auth")
		h.HasNot("■ Features")
	}
	// Pane B answers the other question and submits: it is sent back to
	// the unconfirmed question, and nothing goes out.
	b.Press("<Tab>", "svc", "<Enter>")
	b.Has("□ Features", "[x] 1. Auth")
	b.Press("<Tab>", "<Tab>", "<Enter>")
	if s := b.D.Sent(); len(s) != 0 {
		t.Fatalf("pane B sent %v with a question only checked elsewhere\n%s", s, b.Screen())
	}
	b.Has("Question 1 is not answered yet.", "□ Features", "[x] 1. Auth")
}
