package views

import (
	"strings"
	"testing"
	"time"
)

// Text typed and not accepted goes to the daemon as the draft's "typing"
// when the pane closes (Ctrl-C), and, while typing goes on, on the pane's
// next wake; an accepted answer clears it.
func TestTypedTextIsKeptAsADraft(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", nameQuestion())))
	h.Press("order-proc")
	if d := h.D.Drafts(); len(d) != 0 {
		t.Fatalf("a draft for every key: %v", d)
	}
	h.On(h.A.Pane.flushTyping)
	h.drafts(`0 {"typing":"order-proc"}`)
}

func TestTypedTextGoesOnTheNextWake(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", nameQuestion(), dbQuestion())))
	h.Press("order")
	for deadline := time.Now().Add(5 * time.Second); len(h.D.Drafts()) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("typed text never sent on a wake")
		}
	}
	h.drafts(`0 {"typing":"order"}`)
	h.Press("-proc", "<Enter>")
	h.drafts(`0 {"typing":"order"}`, `0 "order-proc"`)
}

// A draft with typed text opens the input with it, not accepted.
func TestDraftTypingOpensTheInput(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(withDraft(pending("req-1", nameQuestion(), dbQuestion()), `{"typing":"order-proc"}`)))
	h.Has("> order-proc")
	h.Press("<Tab>", "<Tab>")
	if strings.Contains(h.Text(), "→ order-proc") {
		t.Fatalf("typed text shown as an answer:\n%s", h.Screen())
	}
}
