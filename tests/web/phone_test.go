package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"askuser/tests/webpane"
)

// The page as a phone user meets it (390×844): each run leaves a screenshot
// in $ASKUSER_WEB_SCREENSHOTS when set (else a temporary directory), and
// every browser test fails on any script error of the page.

func phoneShots(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("ASKUSER_WEB_SCREENSHOTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// An empty inbox is shown as empty at once: no "Connecting…" left over.
func TestWebPhoneEmptyInbox(t *testing.T) {
	t.Parallel()
	dir := phoneShots(t)
	e, _, b := webpane.Setup(t, 390, 844)
	text := b.WaitText("No questions waiting", e.Socket)
	if strings.Contains(text, "Connecting") || strings.Contains(text, "Not connected") {
		t.Fatalf("an empty inbox still says it is connecting:\n%s", text)
	}
	checkLayout(t, b, 390)
	b.Screenshot(filepath.Join(dir, "phone-empty.png"))
}

// After a daemon restart the page reconnects by itself and shows the truth:
// a question answered while it was away is gone, and the queue is empty.
func TestWebPhoneReconnectAfterQueueEmptied(t *testing.T) {
	t.Parallel()
	dir := phoneShots(t)
	e, _, b := webpane.Setup(t, 390, 844)
	e.Client("", "ask", "--no-wait", "--question", "Answered while away?", "--request-id", "req-away")
	b.WaitText("Answered while away?")
	e.StopDaemon()
	b.WaitText("Not connected to askuserd")
	e.StartDaemon()
	if _, stderr, code := e.Client("", "answer", "req-away", "yes"); code != 0 {
		t.Fatalf("answer: %s", stderr)
	}
	b.WaitText("No questions waiting")
	b.WaitGone("Answered while away?")
	b.WaitGone("Not connected to askuserd")
	b.Screenshot(filepath.Join(dir, "phone-reconnected.png"))
}

// A permission prompt shows what Allow approves as it arrives, in the
// page's flow, above the options; read by scrolling the page, Allow is
// taken.
func TestWebPhonePermissionReadAndAllowed(t *testing.T) {
	t.Parallel()
	dir := phoneShots(t)
	e, _, b := webpane.Setup(t, 390, 844)
	res := askOnSocket(t, e, allowBash(60))
	b.WaitText("Allow Bash?", "What “Allow” approves", "line of the command")
	// On screen before anything was tapped, not in a box of its own.
	if top := webpane.JSValue[float64](b, `document.querySelector('pre[data-approves]').getBoundingClientRect().top`); top <= 0 || top >= 844 {
		t.Fatalf("the command Allow approves starts at %v px, not on the first screen", top)
	}
	if got := webpane.JSValue[string](b, `getComputedStyle(document.querySelector('pre[data-approves]')).overflowY`); got != "visible" {
		t.Fatalf("the command scrolls in a box of its own (overflow %q)", got)
	}
	checkLayout(t, b, 390)
	b.Screenshot(filepath.Join(dir, "phone-permission.png"))
	b.Settled()
	b.ReadApproval()
	b.WaitText("— read to the end")
	b.Click(`button.option[data-option="0"]`)
	b.Screenshot(filepath.Join(dir, "phone-permission-read.png"))
	b.ClickText("Send")
	if r := b.Result(res); !r.Answered || r.Answers[0].Answer.Text != "Allow" {
		t.Fatalf("result %+v", r)
	}
	b.WaitText("No questions waiting")
}

// A refusal appears next to what caused it, and in view: Allow tapped
// with its command not read says so under Allow, above the button bar.
func TestWebPhoneRefusalInView(t *testing.T) {
	t.Parallel()
	dir := phoneShots(t)
	e, _, b := webpane.Setup(t, 390, 844)
	askOnSocket(t, e, allowBash(60))
	b.WaitText("Allow Bash?")
	b.Settled()
	b.Click(`button.option[data-option="0"]`)
	b.ClickText("Send")
	b.WaitText(`Not taken: "Allow" approves everything in its preview`)
	b.WaitJS(`(() => { const r = document.querySelector('main .refusal'); if (!r) return false;
		const top = document.getElementById('top').getBoundingClientRect().bottom;
		const bar = document.querySelector('.question > .actions').getBoundingClientRect().top;
		const b = r.getBoundingClientRect();
		return r.previousElementSibling === document.querySelector('button.option[data-option="0"]') && b.top >= top && b.bottom <= bar; })()`)
	b.Screenshot(filepath.Join(dir, "phone-refusal.png"))
}

// Several requests: one at a time, oldest first; ‹ › switch; a new one
// never takes the place of the one being answered; answering one brings
// the next.
func TestWebPhoneSeveralRequests(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 390, 844)
	e.Client("", "ask", "--no-wait", "--question", "First question?", "--option", "Yes", "--option", "No", "--request-id", "req-a")
	b.WaitText("First question?")
	b.Settled()
	b.Click(`button.option[data-option="1"]`)
	e.Client("", "ask", "--no-wait", "--question", "Second question?", "--option", "Yes", "--option", "No", "--request-id", "req-b")
	b.WaitText("askuser — 2 waiting", "1 of 2", "First question?")
	if got := b.Attr(`button.option[data-option="1"]`, "aria-checked"); got != "true" {
		t.Fatalf("the new request changed the one being answered (No checked: %q)", got)
	}
	b.Click(`#next`)
	b.WaitText("2 of 2", "Second question?")
	b.Click(`#prev`)
	b.WaitText("1 of 2", "First question?")
	b.ClickText("Send")
	b.WaitText("Second question?")
	b.WaitGone("First question?")
	if out, _, _ := e.Client("", "list", "--json"); strings.Contains(out, "req-a") || !strings.Contains(out, "req-b") {
		t.Fatalf("after answering the first: %s", out)
	}
}

// The sticky header is one line (title, Notify, Rules) and the asker's line
// at 360×640, however long the agent's name and directory (agent text): the
// asker's line ends in "…", its whole text is its title, and a tap shows it
// whole and another folds it again. With two requests the ‹ › sit on the
// asker's line.
func TestWebHeaderStaysTwoLinesOnASmallPhone(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 360, 640)
	name := strings.Repeat("a-very-long-agent-name-", 8) + "end"
	cwd := "/home/someone/" + strings.Repeat("deeply/nested/directory/", 10) + "project"
	for _, id := range []string{"h1", "h2"} {
		askOnSocket(t, e, `{"requestId":"`+id+`","agent":{"name":"`+name+`","cwd":"`+cwd+`"},"questions":[{"question":"Header `+id+`?","options":[{"label":"Yes"},{"label":"No"}]}]}`)
	}
	b.WaitText("askuser — 2 waiting", "of 2", "Header h") // whichever is on screen: the header is measured
	b.Settled()
	dir := os.Getenv("ASKUSER_WEB_SCREENSHOTS")
	if dir != "" {
		b.Screenshot(filepath.Join(dir, "small-phone-long-agent.png"))
	}
	// One line is the tallest of the bar's buttons; the asker's line the
	// tallest of its own; the header is those two and its padding.
	lines := func() (header, bar, asker float64) {
		v := webpane.JSValue[[]float64](b, `(() => {
			const h = id => document.querySelector(id).getBoundingClientRect().height;
			return [h('#top'), h('#top .bar'), h('#top .asker')]; })()`)
		return v[0], v[1], v[2]
	}
	header, bar, asker := lines()
	if bar > 50 || asker > 50 || header > bar+asker+20 {
		t.Errorf("at 360×640 the header is %.0f px (bar %.0f, asker's line %.0f): want one line and the asker's line", header, bar, asker)
	}
	if h := webpane.JSValue[float64](b, `document.getElementById('title').getBoundingClientRect().height`); h > 30 {
		t.Errorf("the title wraps: %.0f px high", h)
	}
	checkLayout(t, b, 360)
	if title := b.Attr("#who", "title"); !strings.Contains(title, name) || !strings.Contains(title, cwd) {
		t.Errorf("the asker's whole line is not its title: %q", title)
	}
	b.Click("#who")
	b.WaitJS(`document.getElementById('who').getBoundingClientRect().height > 60 && document.getElementById('who').getAttribute('aria-expanded') === 'true'`)
	b.Click("#who")
	b.WaitJS(`document.getElementById('who').getAttribute('aria-expanded') === 'false'`)
	if header2, _, _ := lines(); header2 != header {
		t.Errorf("folded again, the header is %.0f px, was %.0f", header2, header)
	}
}
