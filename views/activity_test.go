package views

import (
	"testing"

	"askuser/socketproto"
)

// A key in the pane tells the daemon the user is here (docs/contract.md §4
// "Activity"), at most once every few seconds however fast they type, so
// that nothing is pushed to their phone while they are at the pane.
func TestKeysTellTheDaemonTheUserIsHere(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion())))
	if n := h.activities(); n != 0 {
		t.Fatalf("%d activity messages before any key", n)
	}
	h.Press("<Down>", "<Up>", "<Down>")
	if n := h.activities(); n != 1 {
		t.Fatalf("%d activity messages after three quick keys, want 1", n)
	}
}

func (h *H) activities() int {
	h.D.mu.Lock()
	defer h.D.mu.Unlock()
	n := 0
	for _, m := range h.D.sent {
		if _, ok := m.(socketproto.Activity); ok {
			n++
		}
	}
	return n
}
