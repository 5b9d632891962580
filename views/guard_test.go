package views

import (
	"strings"
	"sync"
	"testing"
	"time"

	"askuser/tests/testdaemon"
)

// clock is a test clock that moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// guarded is a pane with the default input guard on a clock the test moves.
func guarded(t *testing.T, w, hh int) (*H, *clock) {
	c := &clock{t: testNow}
	h := newH(t, w, hh, func(o *Options) {
		o.Now = c.Now
		o.InputGuard = 400 * time.Millisecond
	})
	return h, c
}

func (h *H) hintRow() string {
	lines := h.Lines()
	return lines[len(lines)-1]
}

// Moving and scrolling are never ignored; choosing, declining, opening an
// input, typing and pasting are, after a change of question on screen that
// the user did not make.
func TestGuardIgnoresOnlyAnsweringKeys(t *testing.T) {
	t.Parallel()
	h, _ := guarded(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion(), nameQuestion()), pending("req-2", dbQuestion())))
	h.Press("<Down>", "j")
	h.Has("> 3. MongoDB")
	h.Press("<Esc>", "0", "n", "<Space>", "<Enter>")
	h.HasNot("Discard", "> type your answer", "Note:", "MongoDB ✓", "■")
	h.Press("svc")
	h.paste("pasted")
	h.HasNot("svc", "pasted")
	if len(h.D.Sent())+len(h.D.Drafts()) != 0 {
		t.Fatalf("sent %v while settling", h.D.Sent())
	}
}

// The hint line ends "settling…" by itself: one redraw when the guard ends.
func TestGuardEndsWithARedraw(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24, func(o *Options) {
		o.Now = time.Now
		o.InputGuard = 50 * time.Millisecond
	})
	h.Event(snap(pending("req-1", dbQuestion())))
	testdaemon.Eventually(t, "the hint line to stop saying settling", func() (bool, string) {
		row := h.hintRow()
		return !strings.Contains(row, "settling"), row
	})
	h.Press("1")
	h.Answers("req-1")
}
