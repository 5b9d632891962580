package views

import (
	"strings"
	"sync"
	"testing"
	"time"

	"askuser/socketproto"
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

// docs/contract.md §6 "No answer the user has not seen": with two requests waiting, 1
// then Enter 100 ms later answers the first and leaves the second waiting;
// the same Enter once the guard is over answers it.
func TestGuardKeepsKeysFromTheNextRequest(t *testing.T) {
	t.Parallel()
	h, c := guarded(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion()), pending("req-2", question("Force-push to main?", "", "Yes", "No"))))
	if !strings.Contains(h.hintRow(), "settling…") {
		t.Fatalf("the first request arriving does not settle: %q", h.hintRow())
	}
	h.Press("1") // the first request just appeared: not taken
	h.Has("Not taken: the question on screen just changed")
	if len(h.D.Sent()) != 0 {
		t.Fatalf("sent %v while settling", h.D.Sent())
	}
	c.Add(400 * time.Millisecond)
	h.Sync()
	if strings.Contains(h.hintRow(), "settling") {
		t.Fatalf("still settling after the guard: %q", h.hintRow())
	}
	h.Press("1")
	h.Answers("req-1")
	h.Event(socketproto.RequestResolved{RequestID: "req-1", Outcome: "answered", Via: "pane"})
	h.Has("Force-push to main?", "settling…")
	c.Add(100 * time.Millisecond)
	h.Press("<Enter>")
	if n := len(h.D.Sent()); n != 1 {
		t.Fatalf("Enter 100 ms after the second request appeared sent %v", h.D.Sent())
	}
	h.Has("Force-push to main?", "askuser — 1 waiting")
	c.Add(300 * time.Millisecond)
	h.Press("<Enter>")
	if a := h.Answers("req-2"); selected(t, a[0])[0] != "Yes" {
		t.Fatalf("answers %v", a)
	}
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

// The user's own navigation — [ ], a tab, answering a question and moving
// on — does not start the guard: the keys typed right after are theirs
// (docs/contract.md §6), and none is thrown away.
func TestGuardLeavesTheUsersOwnMovesAlone(t *testing.T) {
	t.Parallel()
	h, c := guarded(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion(), nameQuestion()), pending("req-2", dbQuestion())))
	c.Add(time.Second) // the first request has settled
	h.Press("]")
	h.Has("request 2 of 2")
	h.HasNot("settling…", "Not taken")
	h.Press("[")
	h.Has("request 1 of 2")
	h.Press("2") // answered at once: the next question comes with no guard
	h.Has("What should we name this service?")
	h.HasNot("settling…")
	h.Press("svc", "<Enter>")
	h.Has("→ SQLite", "→ svc")
	h.HasNot("Not taken")
	h.Press("<BackTab>", "<Tab>") // to the name question and back to Submit
	h.Press("<Enter>")
	h.Has("Sending")
	if a := h.Answers("req-1"); selected(t, a[0])[0] != "SQLite" || a[1]["custom"] != "svc" {
		t.Fatalf("answers %v", a)
	}
	// The next request slides in by itself once the first is resolved: that
	// is not the user's move, and the guard holds.
	h.Event(socketproto.RequestResolved{RequestID: "req-1", Outcome: "answered", Via: "pane"})
	h.Has("settling…")
	h.Press("1")
	h.Has("Not taken")
}

// A guard of 0 (ui.input_guard = "0s") turns it off.
func TestGuardOff(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24) // the harness's panes have no guard
	h.Event(snap(pending("req-1", dbQuestion())))
	h.HasNot("settling")
	h.Press("1")
	h.Answers("req-1")
}

// The hint line ends "settling…" by itself: one redraw when the guard ends.
func TestGuardEndsWithARedraw(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24, func(o *Options) {
		o.Now = time.Now
		o.InputGuard = 50 * time.Millisecond
	})
	h.Event(snap(pending("req-1", dbQuestion())))
	eventually(t, func() bool { return !strings.Contains(h.hintRow(), "settling") }, "the hint line still says settling")
	h.Press("1")
	h.Answers("req-1")
}

// eventually polls cond until it holds (10 s at most).
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
	}
}
