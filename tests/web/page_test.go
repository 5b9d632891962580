package web

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"askuser/tests/testenv"
	"askuser/tests/webpane"
)

// Agent text is shown literally: markup, entities, bidi controls and
// javascript: URLs are text on the page, never code or links.
func TestWebShowsAgentTextLiterally(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 390, 844)
	q := "Run <script>alert(1)</script> & <img src=x onerror=alert(2)> &amp; &lt;b&gt; now?"
	label := "javascript:alert(3)"
	desc := "see https://example.com and \u202Egnp.exe\u202C here"
	req, _ := json.Marshal(map[string]any{"questions": []any{map[string]any{
		"question": q, "header": "<b>Hdr</b>",
		"options": []any{
			map[string]any{"label": label, "description": desc, "preview": "<iframe src=javascript:alert(4)></iframe>"},
			map[string]any{"label": "<a href=javascript:alert(5)>click</a>"},
		}}}})
	e.StartClient(string(req), "ask", "-")
	text := b.WaitText("Run <script>alert(1)</script> & <img src=x onerror=alert(2)> &amp; &lt;b&gt; now?",
		"javascript:alert(3)", "<a href=javascript:alert(5)>click</a>", "gnp.exe")
	if strings.Contains(text, "\u202E") || strings.Contains(text, "\u202C") {
		t.Error("a bidi override reached the page")
	}
	b.Settled()
	b.Click(`button.option[data-option="0"]`)
	b.WaitText("<iframe src=javascript:alert(4)></iframe>")
	counts := webpane.JSValue[map[string]float64](b, `({
		scripts: document.querySelectorAll('script').length,
		links: document.querySelectorAll('a').length,
		imgs: document.querySelectorAll('img').length,
		iframes: document.querySelectorAll('iframe').length,
		bold: document.querySelectorAll('main b').length,
	})`)
	want := map[string]float64{"scripts": 3 /* session.js, push.js, app.js */, "links": 0, "imgs": 0, "iframes": 0, "bold": 0}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%d %s elements on the page, want %v: agent text became markup", int(counts[k]), k, v)
		}
	}
	select {
	case msg := <-b.Dialogs:
		t.Fatalf("agent text ran as script: a dialog opened (%q)", msg)
	case <-time.After(200 * time.Millisecond):
	}
}

// The page reconnects by itself after the daemon restarts and shows the
// truth: a request resolved while it was away leaves, one asked since shows.
func TestWebReconnectsAfterDaemonRestart(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 390, 844)
	e.Client("", "ask", "--no-wait", "--question", "Before the restart?", "--request-id", "req-before")
	b.WaitText("Before the restart?")
	e.StopDaemon()
	b.WaitJS(`!!window.askuserState.view.connLost`)
	b.WaitText("Not connected to askuserd")
	e.StartDaemon()
	// While the page was away: the old request answered, a new one asked.
	if _, stderr, code := e.Client("", "answer", "req-before", "yes"); code != 0 {
		t.Fatalf("answer: %s", stderr)
	}
	e.Client("", "ask", "--no-wait", "--question", "After the restart?", "--request-id", "req-after")
	b.WaitText("After the restart?")
	b.WaitGone("Before the restart?")
	b.WaitGone("Not connected to askuserd")
	b.WaitJS(`!window.askuserState.view.connLost`)
}

// Screenshots of the page at a phone's and a desktop's size, of a question
// with options and a preview and of the multi-question Submit step. They
// are written to $ASKUSER_WEB_SCREENSHOTS when set (the README's
// docs/screenshots/), else to a temporary directory; either way the page
// must fit the width (no horizontal scrolling) with targets of 44 px.
func TestWebScreenshots(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("ASKUSER_WEB_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, size := range []struct {
		name string
		w, h int
	}{{"phone", 390, 844}, {"small-phone", 360, 640}, {"desktop", 1280, 800}} {
		t.Run(size.name, func(t *testing.T) {
			e, _, b := webpane.Setup(t, size.w, size.h)
			askOnSocket(t, e, screenshotQuestions)
			b.WaitText("Which database should we use?")
			b.Settled()
			b.Click(`button.option[data-option="1"]`)
			b.WaitText("Preview: SQLite")
			checkLayout(t, b, size.w)
			if size.name != "small-phone" {
				b.Eval(`window.scrollTo(0, 0)`)
				b.Screenshot(filepath.Join(dir, size.name+"-question.png"))
			}
			b.ClickText("Next")
			b.WaitText("What should we name this service?")
			b.TypeInto(`textarea[data-k^="custom-"]`, "order-processor")
			b.ClickText("Next")
			b.WaitText("Which features?")
			b.Click(`button.option[data-option="0"]`)
			b.Click(`button.option[data-option="2"]`)
			b.ClickText("Next")
			b.WaitText("Review and send", "order-processor", "Authentication, Search")
			checkLayout(t, b, size.w)
			if size.name != "small-phone" {
				b.Eval(`window.scrollTo(0, 0)`)
				b.Screenshot(filepath.Join(dir, size.name+"-submit.png"))
			}
		})
	}
}

const screenshotQuestions = `{"agent":{"name":"claude-main","cwd":"~/src/shop"},"questions":[
 {"question":"Which database should we use?","header":"Database","options":[
  {"label":"PostgreSQL (Recommended)","description":"Battle-tested relational DB"},
  {"label":"SQLite","description":"Lightweight, file-based","preview":"import \"database/sql\"\n\ndb, err := sql.Open(\"sqlite\", \"app.db\")\nif err != nil {\n\treturn err\n}\ndefer db.Close()"},
  {"label":"MongoDB","description":"Documents, no schema"}]},
 {"question":"What should we name this service?","header":"Name"},
 {"question":"Which features?","header":"Features","multiSelect":true,"options":[
  {"label":"Authentication"},{"label":"Billing"},{"label":"Search"}]}]}`

// checkLayout: nothing wider than the screen, and every button a thumb can hit.
func checkLayout(t *testing.T, b *webpane.Browser, width int) {
	t.Helper()
	scroll := webpane.JSValue[float64](b, `document.documentElement.scrollWidth`)
	if int(scroll) > width {
		t.Errorf("at %d px the page is %d px wide: it scrolls sideways", width, int(scroll))
	}
	small := webpane.JSValue[[]string](b, `[...document.querySelectorAll('button')].filter(e => e.offsetParent !== null)
		.filter(e => { const r = e.getBoundingClientRect(); return r.height < 44 || r.width < 44; })
		.map(e => e.textContent + ' ' + Math.round(e.getBoundingClientRect().width) + 'x' + Math.round(e.getBoundingClientRect().height))`)
	if len(small) > 0 {
		t.Errorf("at %d px, buttons smaller than 44 px: %q", width, small)
	}
	font := webpane.JSValue[float64](b, `parseFloat(getComputedStyle(document.querySelector('.option .label') || document.body).fontSize)`)
	if font < 16 {
		t.Errorf("option labels at %v px: too small to read without zoom", font)
	}
}

// In the background, a new question raises a browser notification with its
// text, once the user allowed notifications.
func TestWebNotifiesInTheBackground(t *testing.T) {
	t.Parallel()
	e, w, b := webpane.Setup(t, 390, 844)
	ctx, cancel := context.WithTimeout(b.Ctx, 10*time.Second)
	defer cancel()
	origin := strings.TrimSuffix(w.Base, "/")
	if _, err := chromedp.CallBrowser(ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: cdpbrowser.PermissionSettingGranted, Origin: origin,
	}); err != nil {
		t.Fatal(err)
	}
	b.WaitJS(`Notification.permission === 'granted'`)
	// The tab goes to the background; the notifications it raises are
	// recorded (a headless browser shows none).
	b.Eval(`window.__notes = [];
		Object.defineProperty(document, 'hidden', {get: () => true, configurable: true});
		window.Notification = class { constructor(title, o) { window.__notes.push(title + ' | ' + o.body); } static get permission() { return 'granted'; } }`)
	e.StartClient("", "ask", "--question", "Ship it on Friday?", "--option", "Yes", "--option", "No")
	b.WaitJS(`window.__notes.length === 1`)
	if got := webpane.JSValue[string](b, `window.__notes[0]`); !strings.Contains(got, "Ship it on Friday?") || !strings.HasPrefix(got, "askuser: ") {
		t.Fatalf("notification %q", got)
	}
}

// An answer over the soft limit asks first; going back keeps the text.
func TestWebLongAnswerWarns(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 390, 844)
	cmd, out, errb := e.StartClient("", "ask", "--question", "Describe the schema")
	b.WaitText("Describe the schema")
	b.Settled()
	long := strings.Repeat("a", 2846) + "z"
	b.Click(`textarea[data-k^="custom-"]`)
	b.Eval(`(() => { const ta = document.querySelector('textarea[data-k^="custom-"]'); ta.value = '` + long + `'; ta.dispatchEvent(new Event('input')); })()`)
	b.ClickText("Send")
	b.WaitText("Answer is long (2,847 chars). Continue anyway?")
	b.ClickText("Keep editing")
	b.WaitGone("Answer is long")
	if got := webpane.JSValue[int](b, `document.querySelector('textarea[data-k^="custom-"]').value.length`); got != 2847 {
		t.Fatalf("after Keep editing the text is %d characters", got)
	}
	b.ClickText("Send")
	b.ClickText("Continue")
	r, code := testenv.WaitClient(t, cmd, out, errb)
	if code != 0 || r.Answers[0].Answer.Text != long {
		t.Fatalf("exit %d, answer of %d characters", code, len(r.Answers[0].Answer.Text))
	}
}

// Typed questions (docs/contract.md §3): the rule shown, checked as the user types and
// before moving on; Yes / No without Other; an optional one left empty; the
// answers carried with their JSON type.
func TestWebTypedQuestions(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 390, 844)
	res := askOnSocket(t, e, `{"questions":[
	 {"question":"How many replicas?","header":"Replicas","input":{"type":"integer","minimum":1,"maximum":10}},
	 {"question":"Enable caching?","header":"Cache","input":{"type":"boolean"}},
	 {"question":"Who to notify?","header":"Email","input":{"type":"string","format":"email","required":false}}]}`)
	b.WaitText("How many replicas?", "Answer: a whole number from 1 to 10")
	b.Settled()
	b.TypeInto(`textarea[data-k^="custom-"]`, "11")
	b.WaitText("Not accepted yet:")
	// Text against the rule is still the user's draft: the page opened
	// afresh (or told of the draft by the daemon) shows it, not an empty box.
	b.Eval(`location.reload()`)
	b.WaitText("How many replicas?")
	b.WaitJS(`document.querySelector('textarea[data-k^="custom-"]').value === '11'`)
	b.Settled()
	b.ClickText("Next")
	b.WaitText("Not accepted:")
	b.Eval(`document.querySelector('textarea[data-k^="custom-"]').select()`)
	b.Run(chromedp.SendKeys(chromedp.CSS(`textarea[data-k^="custom-"]`), "7"))
	b.WaitGone("Not accepted yet:")
	b.ClickText("Next")
	b.WaitText("Enable caching?", "Yes", "No")
	if strings.Contains(b.TextNow(), "Other (type your answer)") {
		t.Error("a boolean question offers Other")
	}
	b.Click(`button.option[data-option="0"]`)
	b.ClickText("Next")
	b.WaitText("Who to notify?", "optional (may be left empty)")
	b.ClickText("Next")
	b.WaitText("Review and send", "(left empty)")
	b.ClickText("Send answers")
	r := b.Result(res)
	if !r.Answered || string(r.Answers[0].Answer.JSON) != "7" || r.Answers[1].Answer.Text != "Yes" || !r.Answers[2].Answer.IsSkipped() {
		b, _ := json.Marshal(r)
		t.Fatalf("result %s", b)
	}
}
