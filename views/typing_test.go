package views

import (
	"testing"

	"askuser/tests/testdaemon"
)

// Text typed and not accepted goes to the daemon as the draft's "typing" on
// the pane's next wake, by the app's one timer (the rule itself is
// panecore's: testdata/typing-kept-as-a-draft.txtar).
func TestTypedTextGoesOnTheNextWake(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", nameQuestion(), dbQuestion())))
	h.Press("order")
	testdaemon.Eventually(t, "the typed text sent as a draft on a wake", func() (bool, string) {
		return len(h.D.Drafts()) > 0, "no draft sent"
	})
	h.drafts(`0 {"typing":"order"}`)
	h.Press("-proc", "<Enter>")
	h.drafts(`0 {"typing":"order"}`, `0 "order-proc"`)
}
