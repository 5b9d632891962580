package views

import (
	"strings"
	"testing"
)

// At 80 columns, with the longest hint line (a single-select list), the hint
// line still says how to quit and how to see every key.
func TestHintLineKeepsQuitAndKeysAt80Columns(t *testing.T) {
	h := newH(t, 80, 24)
	h.Event(snap(pending("r1", dbQuestion())))
	h.Sync()
	lines := h.Lines()
	last := lines[len(lines)-1]
	for _, want := range []string{"? keys", "q quit", "↑↓ move"} {
		if !strings.Contains(last, want) {
			t.Errorf("hint line at 80 columns lacks %q: %q", want, last)
		}
	}
	// Narrower still: the pinned two stay.
	h.Resize(40, 12)
	lines = h.Lines()
	if last = lines[len(lines)-1]; !strings.Contains(last, "? keys") || !strings.Contains(last, "q quit") {
		t.Errorf("hint line at 40 columns: %q", last)
	}
}

// ? lists every key of the key table, scrolls, and closes with Esc; q there
// closes the list rather than quitting.
func TestQuestionMarkListsEveryKey(t *testing.T) {
	h := newH(t, 100, 30)
	h.Event(snap(pending("r1", dbQuestion())))
	h.Press("?")
	h.Has("Every key, where it applies and what it does", "Ctrl-C (everywhere): quit the pane")
	for range 20 {
		h.Press("<PgDn>")
	}
	h.Has("close the list of keys")
	h.Press("q")
	h.HasNot("Every key, where it applies")
	h.Has("Which database should we use?", "> 1. PostgreSQL")
	h.Press("?", "<Esc>")
	h.HasNot("Every key, where it applies")
}

// The first screen says what to try; a demo pane says it is one at any
// width.
func TestFirstScreenAndDemoLabel(t *testing.T) {
	h := newH(t, 80, 24)
	h.Has("No questions waiting", "askuserd --demo", "askuser-client ask --question", "askuser-client integrate")
	d := newH(t, 40, 12, func(o *Options) { o.Demo = true })
	d.Event(snap(DemoRequests(testNow)...))
	d.Sync()
	if top := d.Lines()[0]; !strings.Contains(top, "DEMO") {
		t.Errorf("a demo pane at 40 columns does not say so: %q", top)
	}
}
