package views

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"askuser/socketproto"
	"askuser/views/panecore"
)

// Space never submits a single-select question (it used to, mid-typing).
func TestSpaceNeverSubmitsSingleSelect(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion())))
	h.Press("<Space>", "<Down>", "<Space>")
	if len(h.D.Sent())+len(h.D.Drafts()) != 0 {
		t.Fatalf("Space sent %v %v", h.D.Sent(), h.D.Drafts())
	}
	h.HasNot("✓", "Sending")
}

func (h *H) drafts(want ...string) {
	h.t.Helper()
	var got []string
	for _, d := range h.D.Drafts() {
		got = append(got, strings.TrimSpace(string(rune('0'+d.Index))+" "+string(d.Answer)))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		h.t.Fatalf("drafts sent:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), h.Screen())
	}
}

// The title's age stays current: "just now" turns into "1m ago", and the
// pane asks for one redraw at the moment it changes, not a redraw loop.
func TestAgeStaysCurrentWithOneTimer(t *testing.T) {
	t.Parallel()
	c := &clock{t: testNow}
	h := newH(t, 80, 24, func(o *Options) { o.Now = c.Now })
	var wakes []time.Duration
	h.On(func() {
		next := h.A.Pane.onWake
		h.A.Pane.onWake = func(d time.Duration) { wakes = append(wakes, d); next(d) }
	})
	p := pending("req-1", dbQuestion())
	p.CreatedAt = testNow.Add(-10 * time.Second)
	h.Event(snap(p))
	h.Has("just now")
	var last time.Duration
	h.On(func() { last = wakes[len(wakes)-1] })
	if want := 50*time.Second + 5*time.Millisecond; last != want {
		t.Fatalf("next wake in %v, want %v", last, want)
	}
	c.Add(60 * time.Second)
	h.Has("1m ago")
	h.HasNot("just now")
	for _, c := range []struct{ age, want time.Duration }{
		{0, time.Minute}, {70 * time.Second, 50 * time.Second}, {59*time.Minute + 30*time.Second, 30 * time.Second},
		{90 * time.Minute, 30 * time.Minute}, {50 * time.Hour, 22 * time.Hour},
	} {
		if got := panecore.UntilAgeChanges(c.age); got != c.want {
			t.Errorf("panecore.UntilAgeChanges(%v) = %v, want %v", c.age, got, c.want)
		}
	}
}

// previewQuestion has a preview of n lines on its first option.
func previewQuestion(n int) socketproto.Question {
	q := dbQuestion()
	var lines []string
	for i := 1; i <= n; i++ {
		lines = append(lines, "preview line "+string(rune('0'+i)))
	}
	q.Options[0].Preview = strings.Join(lines, "\n")
	return q
}

// At 40×12 the focused option, a line of its description (or a marker) and
// a line of its preview show, with the notices and banners a real pane has;
// the preview's position never reads "1–0", however far } goes.
func TestFortyByTwelvePreviewAndDescription(t *testing.T) {
	t.Parallel()
	h := newH(t, 40, 12)
	p := pending("req-1", previewQuestion(5), nameQuestion())
	p.Agent.Cwd = "/home/me/a/rather/long/project/directory/name"
	h.Event(snap(p, pending("req-2", nameQuestion())))
	h.Event(socketproto.RequestResolved{RequestID: "req-9", Outcome: "answered", Via: "file"})
	h.Event(socketproto.StateDirError{Path: "/s", Error: "a notice that is long enough to want two lines at forty columns."})
	h.Has("> 1. PostgreSQL (Recommended)", "Battle-tested", "preview line 1", "Preview 1–")
	for range 6 {
		h.Press("}")
		h.HasNot("–0 of", "1–0", "2–1")
	}
	h.Has("preview line 5")
	// Every banner at once: they give way to the question.
	h.Event(connLost{Err: "Not connected to askuserd: it died; it is started again in a few seconds, unless its service manager does it first. Nothing you typed is lost. (Socket: /run/user/1000/askuser/askuserd.sock)"})
	h.On(func() { h.A.Pane.word = notTaken })
	h.Has("⚠ Not connected", "Which database", "> 1. PostgreSQL (Recommended)", "Battle-tested", "preview line")
	// A description taller than the room: a marker says there is more.
	q := dbQuestion()
	q.Options[0].Description = strings.Repeat("a long description ", 20) + "END"
	q.Options[0].Preview = "one\ntwo\nthree"
	h = newH(t, 40, 12)
	h.Event(snap(pending("req-3", q, nameQuestion())))
	h.Has("> 1. PostgreSQL (Recommended)", "↕ more of this option", "one")
}

// Below 40×12 the pane says so rather than overlap text, and no key but
// quitting acts on a question that is not on screen.
func TestTooSmall(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{39, 24}, {80, 11}, {30, 8}, {20, 5}} {
		h := newH(t, size[0], size[1])
		h.Event(snap(pending("req-1", dbQuestion())))
		h.Has("terminal too")
		h.HasNot("Which database")
		h.Press("1", "<Enter>", "<Esc>")
		if len(h.D.Sent()) != 0 {
			t.Fatalf("%v: keys acted on a question not on screen: %v", size, h.D.Sent())
		}
		h.Resize(40, 12)
		h.Has("Which database", "> 1. PostgreSQL")
	}
	h := newH(t, 30, 8)
	h.Press("q")
	select {
	case <-h.A.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("q does not quit a pane too small to draw")
	}
}

// The filter: typing moves the focus to the first option it keeps (not
// left on Other); a filter that keeps none says so.
func TestFilterFocusAndNoMatch(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", frameworkQuestion(12))))
	h.Press("<End>")
	h.Has("> 13. Other")
	h.Press("/", "07")
	h.Has("> 7. Framework 07")
	h.Press("<Enter>", "<Enter>")
	if got := selected(t, h.Answers("req-1")[0]); got[0] != "Framework 07" {
		t.Fatalf("selected %v", got)
	}
	h = newH(t, 80, 24)
	h.Event(snap(pending("req-2", frameworkQuestion(12))))
	h.Press("/", "zzz")
	h.Has("no option matches “zzz”", "> 13. Other")
}

// Long typed answers wrap at word boundaries, in the input and on Submit.
func TestTypedTextWrapsAtWords(t *testing.T) {
	t.Parallel()
	h := newH(t, 40, 24)
	h.Event(snap(pending("req-1", nameQuestion(), dbQuestion())))
	words := "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november"
	h.Press(words)
	h.noBrokenWords(words)
	h.Press("<Enter>", "1")
	h.Has("Press Enter to send")
	h.noBrokenWords(words)
}

func (h *H) noBrokenWords(text string) {
	h.t.Helper()
	known := map[string]bool{}
	for _, w := range strings.Fields(text) {
		known[w] = true
	}
	for _, l := range h.Lines() {
		for _, w := range strings.Fields(strings.TrimLeft(l, ">→ ")) {
			if strings.Contains(text, w) && !known[w] && len(w) > 1 {
				h.t.Fatalf("a word is broken across lines: %q\n%s", w, h.Screen())
			}
		}
	}
}

// The hint line says what Enter does where it is: "choose" on a
// single-select list, and in a multi-select's Other input it keeps the
// text (it does not submit).
func TestHintsSayWhatEnterDoes(t *testing.T) {
	t.Parallel()
	h := newH(t, 120, 24)
	h.Event(snap(pending("req-1", dbQuestion())))
	if row := h.hintRow(); !strings.Contains(row, "Enter choose") || strings.Contains(row, "Space") {
		t.Fatalf("single-select hints %q", row)
	}
	h = newH(t, 120, 24)
	h.Event(snap(pending("req-2", multi(dbQuestion()))))
	h.Press("0")
	if row := h.hintRow(); !strings.Contains(row, "Enter keep text") || strings.Contains(row, "submit") || strings.Contains(row, "send") {
		t.Fatalf("multi-select Other hints %q", row)
	}
	h = newH(t, 120, 24)
	h.Event(snap(pending("req-3", nameQuestion())))
	if row := h.hintRow(); !strings.Contains(row, "Enter send") {
		t.Fatalf("free-text hints %q", row)
	}
}

// Every hint the line offers is a key the table handles right there.
func TestHintsAreBindings(t *testing.T) {
	t.Parallel()
	h := newH(t, 300, 24)
	h.Event(snap(pending("req-1", previewQuestion(40), nameQuestion()), pending("req-2", nameQuestion())))
	for _, keys := range [][]string{nil, {"/"}, {"<Esc>", "n"}, {"<Esc>", "<Tab>"}, {"<Tab>"}} {
		h.Press(keys...)
		var hints []string
		h.On(func() { hints = h.A.Pane.hintLine() })
		for _, hint := range hints {
			found := false
			for _, b := range keyTable {
				found = found || b.hint == hint
			}
			if !found {
				t.Fatalf("hint %q is in no binding", hint)
			}
		}
	}
}

// The pane's styles are tcell styles with names, and what an agent sends is
// drawn in the plain one.
func TestStylesAreNamed(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion())))
	var focus, desc tcell.Style
	h.On(func() {
		cells, w, hh := h.Scr.GetContents()
		for y := 0; y < hh; y++ {
			row := ""
			for x := 0; x < w; x++ {
				row += string(cells[y*w+x].Runes)
			}
			if strings.Contains(row, "> 1. PostgreSQL") {
				focus = cells[y*w+strings.Index(row, ">")].Style
			}
			if i := strings.Index(row, "Lightweight"); i >= 0 {
				desc = cells[y*w+i].Style
			}
		}
	})
	if focus != styleFocus || desc != styleQuiet {
		t.Fatalf("focus %v want %v; description %v want %v", focus, styleFocus, desc, styleQuiet)
	}
	_ = json.RawMessage(nil)
}

// A draft from the file reaches a free-text input that shows an accepted
// answer (nothing typed since it opened): the latest edit wins there too.
func TestDraftReachesAnAcceptedInput(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", nameQuestion(), dbQuestion())))
	h.Press("svc", "<Enter>", "<BackTab>")
	h.Has("> svc")
	h.Event(socketproto.OK{RequestID: "req-1"})
	h.Event(socketproto.RequestUpdated{Request: withDraft(pending("req-1", nameQuestion(), dbQuestion()), `"billing"`)})
	h.Has("> billing")
	h.Press("<Enter>", "1", "<Enter>")
	if a := h.Answers("req-1"); a[0]["custom"] != "billing" {
		t.Fatalf("answers %v", a)
	}
}
