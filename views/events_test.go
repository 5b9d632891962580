package views

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"askuser/socketproto"
	"askuser/tests/testdir"
)

func TestNewRequestShownWhenIdle(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap())
	h.Event(socketproto.RequestAdded{Request: pending("req-1", dbQuestion())})
	h.Has("Which database")
	if h.A.Pane.Bells != 1 {
		t.Fatalf("bells = %d, want 1", h.A.Pane.Bells)
	}
}

func TestBellOnlyForNewRequestsAndWhenOn(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion())))
	h.Event(socketproto.RequestUpdated{Request: pending("req-1", dbQuestion())})
	h.Event(socketproto.RequestAdded{Request: pending("req-2", dbQuestion())})
	h.Event(socketproto.RequestAdded{Request: pending("req-3", dbQuestion())})
	var bells int
	h.On(func() { bells = h.A.Pane.Bells })
	if bells != 2 {
		t.Fatalf("bells = %d, want 2 (one per request_added)", bells)
	}
	quiet := newH(t, 80, 24, func(o *Options) { o.Bell = false })
	quiet.Event(socketproto.RequestAdded{Request: pending("req-1", dbQuestion())})
	quiet.On(func() { bells = quiet.A.Pane.Bells })
	if bells != 0 {
		t.Fatalf("ui.bell = false rang %d times", bells)
	}
}

func withDraft(p socketproto.Pending, drafts ...string) socketproto.Pending {
	for i, d := range drafts {
		if d != "" {
			p.Draft[i] = json.RawMessage(d)
		}
	}
	return p
}

func TestResolvedElsewhereNotices(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ev   socketproto.RequestResolved
		want string
	}{
		{socketproto.RequestResolved{RequestID: "req-1", Outcome: "answered", Via: "file"}, "“What should we name this service?” was answered elsewhere (file)."},
		{socketproto.RequestResolved{RequestID: "req-1", Outcome: "answered", Via: "cli"}, "“What should we name this service?” was answered elsewhere (cli)."},
		{socketproto.RequestResolved{RequestID: "req-1", Outcome: "answered", Via: "web"}, "“What should we name this service?” was answered elsewhere (web)."},
		{socketproto.RequestResolved{RequestID: "req-1", Outcome: "cancelled", Via: "cli"}, "“What should we name this service?” was declined elsewhere (cli)."},
		{socketproto.RequestResolved{RequestID: "req-1", Outcome: "withdrawn", Via: "agent"}, "“What should we name this service?” was withdrawn by its agent."},
		// Wrapped at 80 columns: the question, then how.
		{socketproto.RequestResolved{RequestID: "req-1", Outcome: "withdrawn", Via: "agent", Settled: "allowed in its dialog"},
			"“What should we name this service?” was settled in its agent's own prompt:"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			h := newH(t, 80, 24)
			h.Event(snap(pending("req-1", nameQuestion()), pending("req-2", nameQuestion())))
			h.Press("<C-n>", "kept for two", "<C-p>", "lost with one")
			h.Event(c.ev)
			h.Has(c.want, "askuser — 1 waiting", "> kept for two")
			if c.ev.Settled != "" {
				h.Has(c.ev.Settled + ".")
			}
		})
	}
}

func TestOrphanedMarked(t *testing.T) {
	t.Parallel()
	h := newH(t, 100, 24)
	p := pending("req-1", dbQuestion())
	h.Event(snap(p))
	h.HasNot("agent disconnected")
	p.Status = socketproto.StatusOrphaned
	h.Event(socketproto.RequestUpdated{Request: p})
	h.Has("agent disconnected")
}

func TestUntrustedTextShownLiterally(t *testing.T) {
	t.Parallel()
	h := newH(t, 100, 30)
	q := socketproto.Question{
		Question: "Is [red]this[-] red? \x1b[2J\x1b]0;pwned\x07 \u202Edesrever",
		Header:   "[::b]Hdr",
		Options: []socketproto.Option{
			{Label: "[green]go[-]", Description: "desc \x1b[31mcolour\x1b[0m [yellow]y", Preview: "pre [blue]view\x1b[5m"},
			{Label: "plain"},
		},
	}
	p := pending("req-1", q)
	p.Agent.Name = "\x1b[1mbad[white]agent"
	h.Event(snap(p))
	h.Has("Is [red]this[-] red?", "desrever", "[::b]Hdr", "[green]go[-]", "desc colour [yellow]y", "pre [blue]view", "bad[white]agent")
	h.HasNot("pwned", "\u202E")
	cells, _, _ := h.Scr.GetContents()
	for _, c := range cells {
		for _, r := range c.Runes {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("control character %U on screen\n%s", r, h.Screen())
			}
		}
	}
}

func TestTinyAndHugeAndResize(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{40, 12}, {300, 80}, {20, 5}, {1, 1}} {
		h := newH(t, size[0], size[1])
		h.Event(snap(pending("req-1", dbQuestion(), nameQuestion()), pending("req-2", frameworkQuestion(20))))
		h.Text()
		h.Press("<Down>", "<Tab>", "abc", "<C-n>", "<Down>", "<C-p>")
	}
	h := newH(t, 300, 80)
	h.Event(snap(pending("req-1", nameQuestion())))
	h.Press("typed before resize")
	for _, s := range [][2]int{{40, 12}, {10, 3}, {300, 80}, {80, 24}} {
		h.Resize(s[0], s[1])
	}
	h.Has("> typed before resize")
	h.Resize(40, 12)
	h.Has("What should we name", "> typed before")
}

func TestFortyByTwelveShowsEverything(t *testing.T) {
	t.Parallel()
	h := newH(t, 40, 12)
	h.Event(snap(pending("req-1", dbQuestion(), nameQuestion())))
	h.Has(" 1 waiting · claude-main · 3m ago", "Database", "Which database should we use?", "1. PostgreSQL", "Battle-tested")
	h.Press("<End>")
	h.Has("> 4. Other (type your answer)")
}

func TestEditor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "fake-editor")
	// The "editor" appends a second line to the file it is given.
	testdir.WriteExecutable(t, script, []byte("#!/bin/sh\nprintf ' from the editor\\nsecond line\\n' >> \"$1\"\n"), 0o755)
	h := newH(t, 80, 24, func(o *Options) { o.Editor = script })
	h.Event(snap(pending("req-1", nameQuestion())))
	h.Press("typed", "<C-e>")
	var got string
	h.On(func() { got = h.A.Pane.input.GetText() })
	if got != "typed from the editor\nsecond line" {
		t.Fatalf("input after the editor: %q", got)
	}
	h.Has("> typed from the editor\n   second line") // both lines in view
	h.Press("<Enter>")
	if a := h.Answers("req-1")[0]; a["custom"] != "typed from the editor\nsecond line" {
		t.Fatalf("answer %v", a)
	}
}

func TestEditorFailureKeepsText(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24, func(o *Options) { o.Editor = "/nonexistent/editor" })
	h.Event(snap(pending("req-1", nameQuestion())))
	h.Press("keep me", "<C-e>")
	h.Has("Editor /nonexistent/editor", "> keep me")
	if !strings.Contains(h.Text(), "unchanged") {
		t.Fatal("no word that the text is unchanged")
	}
}

func TestMetadataAndCwdShownLiterally(t *testing.T) {
	t.Parallel()
	h := newH(t, 100, 24)
	p := pending("req-1", dbQuestion())
	p.Metadata = json.RawMessage(`{"source":"project-setup","evil":"[red]x\u001b[2J","n":3}`)
	p.Agent.Cwd = "/home/me/project"
	h.Event(snap(p))
	h.Has("in /home/me/project · evil: [red]x · n: 3 · source: project-setup")
}

func TestDraftReachesUntouchedInput(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", nameQuestion())))
	h.Has("> type your answer")
	h.Event(socketproto.RequestUpdated{Request: withDraft(pending("req-1", nameQuestion()), `"from the file"`)})
	h.Has("> from the file")
	h.Press("<Enter>")
	if a := h.Answers("req-1")[0]; a["custom"] != "from the file" {
		t.Fatalf("answer %v", a)
	}
}

func TestNoteOnFreeTextWithAltN(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", nameQuestion())))
	h.Press("svc")
	h.Key(tcell.KeyRune, 'n', tcell.ModAlt)
	h.Has("Note: ")
	h.Press("temporary name", "<Enter>")
	h.Has("Note: temporary name", "> svc")
	h.Press("<Enter>")
	if a := h.Answers("req-1")[0]; a["custom"] != "svc" || a["notes"] != "temporary name" {
		t.Fatalf("answer %v", a)
	}
}

func TestRequestWithoutQuestionsDoesNotCrash(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-0")))
	h.Has("no questions")
	h.Press("<Tab>", "1", "<Enter>", "<Space>", "/", "n", "<Esc>")
	if c, ok := h.LastSent().(socketproto.Cancel); !ok || c.RequestID != "req-0" {
		t.Fatalf("sent %v", h.D.Sent())
	}
}

func TestNarrowTitleKeepsAgentAndAge(t *testing.T) {
	t.Parallel()
	h := newH(t, 40, 12)
	h.Event(snap(pending("req-1", dbQuestion()), pending("req-2", dbQuestion())))
	h.Has(" 2 waiting · 1/2 · claude-main · 3m ago")
}

// TestTagsNeverTakeEffect: every kind of tview tag an agent might send,
// including the URL tags that tview.Escape does not neutralise, shows as
// typed, and no cell gets a colour, a link or blinking from it.
func TestTagsNeverTakeEffect(t *testing.T) {
	t.Parallel()
	tags := []string{
		"[:::https://evil.example/x]click[:::-]", "[red::u:https://a.b/c]link", "[:::a]w",
		"[red]r[-]", "[#ff0000]hex", "[::bl]blink", `["region"]reg[""]`, "[yellow:blue]yb", "a[b]c[",
	}
	q := socketproto.Question{Question: strings.Join(tags, " "), Header: "[::l]hdr"}
	for _, tg := range tags {
		q.Options = append(q.Options, socketproto.Option{Label: "L" + tg, Description: "D" + tg})
	}
	q.Options[0].Preview = "P" + strings.Join(tags, "\n")
	p := pending("req-1", q)
	p.Agent.Name = "[:::https://evil.example]agent"
	p.Metadata = json.RawMessage(`{"k":"[:::https://evil.example]meta"}`)
	h := newH(t, 300, 80)
	h.Event(snap(p))
	want := []string{"[::l]hdr", "[:::https://evil.example]agent", "k: [:::https://evil.example]meta"}
	want = append(want, tags...)
	for _, tg := range tags[:6] { // the list's first window
		want = append(want, "L"+tg, "D"+tg)
	}
	h.Has(want...)
	h.Has("P" + tags[0])
	h.noStyleFromText()
	h.Press("<End>")
	for _, tg := range tags[6:] {
		h.Has("L"+tg, "D"+tg)
	}
	h.noStyleFromText()
}

// noStyleFromText fails if any cell has a colour, a link or blinking: the
// pane itself uses only the terminal's colours and bold/dim/italic/reverse.
func (h *H) noStyleFromText() {
	h.t.Helper()
	var bad string
	h.On(func() {
		cells, w, _ := h.Scr.GetContents()
		for i, c := range cells {
			fg, bg, attr := c.Style.Decompose()
			if fg != tcell.ColorDefault || bg != tcell.ColorDefault || attr&tcell.AttrBlink != 0 || c.Style != c.Style.Url("") {
				bad = fmt.Sprintf("cell (%d,%d) %q has style %+v", i%w, i/w, string(c.Runes), c.Style)
				return
			}
		}
	})
	if bad != "" {
		h.t.Fatalf("%s\n%s", bad, h.Screen())
	}
}

// TestConnectionLostAtFortyByTwelve: the connection warning takes at most
// three lines, and the question under it stays readable.
func TestConnectionLostAtFortyByTwelve(t *testing.T) {
	t.Parallel()
	h := newH(t, 40, 12)
	h.Event(snap(pending("req-1", dbQuestion())))
	h.Event(connLost{Err: stoppedNotice})
	h.Has("⚠ Not connected", "Which database should we use?", "> 1. PostgreSQL")
}

// stoppedNotice is what panecore.Link says once a daemon it was connected
// to stopped (askuserd stop).
const stoppedNotice = "Not connected to askuserd: it was stopped (askuserd stop, or a signal). Start it again with `askuserd serve`, or quit and run `askuserd`. Nothing you typed is lost. (Socket: /run/user/1000/askuser/askuserd.sock)"

// TestConnectionLostSaysWhatToDo: at a common size the notice is shown
// whole, what to do included.
func TestConnectionLostSaysWhatToDo(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion())))
	h.Event(connLost{Err: stoppedNotice})
	h.Has("⚠ Not connected to askuserd: it was stopped", "`askuserd serve`", "is lost.", "askuserd.sock)", "> 1. PostgreSQL")
}
