package tests

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"askuser/socketproto"
	"askuser/socketproto/askclient"
)

// The web pane (docs/contract.md §12) in a real browser: headless Chromium driven over
// the DevTools protocol, against the real daemon and the real `askuserd web`.

const dbQuestion = `{"questions":[{"question":"Which database should we use?","header":"Database","options":[
 {"label":"PostgreSQL (Recommended)","description":"Battle-tested relational DB"},
 {"label":"SQLite","description":"Lightweight, file-based","preview":"db, _ := sql.Open(\"sqlite\", \"app.db\")\ndefer db.Close()"}]}]}`

const featuresQuestion = `{"questions":[{"question":"Which features?","header":"Features","multiSelect":true,"options":[
 {"label":"Authentication","description":"Log in with passkeys"},
 {"label":"Billing"},
 {"label":"Search"}]}]}`

const webTwoQuestions = `{"questions":[
 {"question":"Which database should we use?","header":"Database","options":[{"label":"PostgreSQL (Recommended)"},{"label":"SQLite"}]},
 {"question":"What should we name this service?","header":"Name"}]}`

// webSetup starts a daemon, `askuserd web`, and a browser logged in to it.
func webSetup(t *testing.T, width, height int) (*Env, *webPane, *browser) {
	t.Helper()
	e := NewEnv(t)
	e.StartDaemon()
	w := startWeb(t, e)
	b := newBrowser(t, width, height)
	b.open(w)
	return e, w, b
}

func TestWebAnswersSingleSelect(t *testing.T) {
	t.Parallel()
	e, _, b := webSetup(t, 390, 844)
	b.waitText("No questions waiting", e.Socket)

	cmd, out, errb := e.StartClient(dbQuestion, "ask", "-")
	b.waitText("askuser — 1 waiting", "Which database should we use?", "PostgreSQL (Recommended)", "Battle-tested relational DB", "Other (type your answer)")
	// How long ago it was asked is the view's words ("just now", as the
	// terminal pane says it), never the page's own count.
	b.waitJS(`(() => { const v = window.askuserState.view, r = v && v.requests[v.focus];
		return !!r && r.age === 'just now' && document.querySelector('#who .age').textContent === r.age; })()`)
	b.waitText("asked just now")
	b.settled()
	b.click(`button.option[data-option="1"]`)
	b.waitText("Preview: SQLite", `sql.Open("sqlite", "app.db")`)
	b.clickText("Send")
	r, code := waitClient(t, cmd, out, errb)
	// The page is its own surface: the agent, history and every other
	// surface hear "web", never "pane".
	if code != 0 || !r.Answered || r.AnsweredVia != socketproto.ViaWeb || r.Answers[0].Answer.Text != "SQLite" {
		t.Fatalf("exit %d, result %+v", code, r)
	}
	b.waitText("No questions waiting", "Answer to “Which database should we use?” sent.")
	fileHas(t, e.stateFile("history.jsonl"), `"via":"web"`)
}

func TestWebMultiSelectWithOtherAndNote(t *testing.T) {
	t.Parallel()
	e, _, b := webSetup(t, 390, 844)
	cmd, out, errb := e.StartClient(featuresQuestion, "ask", "-")
	b.waitText("Which features?", "Choose any number")
	b.settled()
	b.click(`button.option[data-option="0"]`)
	b.click(`button.option.other`)
	b.typeInto(`textarea[data-k^="custom-"]`, "Use Redis too")
	b.clickText("Add a note")
	b.typeInto(`textarea[data-k^="notes-"]`, "keep the old table too")
	b.clickText("Send")
	r, code := waitClient(t, cmd, out, errb)
	a := r.Answers[0]
	if code != 0 || !r.Answered || !reflect.DeepEqual(a.Answer.List, []string{"Authentication", "Use Redis too"}) ||
		!reflect.DeepEqual(a.SelectedOptions, []string{"Authentication"}) || a.Custom != "Use Redis too" || !a.WasCustom ||
		a.Notes != "keep the old table too" {
		t.Fatalf("exit %d, answer %+v", code, a)
	}
}

func TestWebNoneOfThese(t *testing.T) {
	t.Parallel()
	e, _, b := webSetup(t, 390, 844)
	cmd, out, errb := e.StartClient(featuresQuestion, "ask", "-")
	b.waitText("Which features?")
	b.settled()
	b.clickText("Send")
	b.waitText("None of these for “Which features?”?")
	b.clickText("Back")
	b.waitGone("None of these for")
	b.clickText("Send")
	b.waitText("None of these for “Which features?”?")
	b.clickText("None of these")
	r, code := waitClient(t, cmd, out, errb)
	a := r.Answers[0]
	if code != 0 || !r.Answered || !a.Answer.IsList || len(a.Answer.List) != 0 || len(a.SelectedOptions) != 0 {
		t.Fatalf("exit %d, answer %+v", code, a)
	}
}

func TestWebSeveralQuestions(t *testing.T) {
	t.Parallel()
	e, _, b := webSetup(t, 390, 844)
	cmd, out, errb := e.StartClient(webTwoQuestions, "ask", "-")
	b.waitText("□ Database", "□ Name", "✓ Submit", "Which database should we use?")
	b.settled()
	// Submit with a question unanswered jumps to it.
	b.clickText("✓ Submit")
	b.waitText("Review and send", "(not answered)", "Questions 1 and 2 are not answered yet.")
	b.clickText("Send answers")
	b.waitText("Question 1 is not answered yet.")
	b.click(`button.option[data-option="0"]`)
	b.clickText("Next")
	b.waitText("What should we name this service?", "■ Database")
	b.typeInto(`textarea[data-k^="custom-"]`, "order-processor")
	b.clickText("Next")
	b.waitText("Review and send", "PostgreSQL (Recommended)", "order-processor")
	b.clickText("Send answers")
	r, code := waitClient(t, cmd, out, errb)
	if code != 0 || !r.Answered || r.Answers[0].Answer.Text != "PostgreSQL (Recommended)" || r.Answers[1].Answer.Text != "order-processor" {
		t.Fatalf("exit %d, result %+v", code, r)
	}
}

func TestWebDeclineAsksBeforeDiscarding(t *testing.T) {
	t.Parallel()
	e, _, b := webSetup(t, 390, 844)
	cmd, out, errb := e.StartClient(webTwoQuestions, "ask", "-")
	b.waitText("Which database should we use?")
	b.settled()
	b.click(`button.option[data-option="1"]`)
	b.clickText("Next")
	b.waitText("What should we name this service?", "■ Database")
	b.clickText("Decline")
	b.waitText("Discard 1 answer?")
	// Keeping the answers is what the dialog offers first: the button
	// that throws them away is neither the highlighted one nor focused.
	if got := jsValue[string](b, `document.querySelector('#dialog button.primary').textContent + '|' + document.activeElement.textContent`); got != "Keep answering|Keep answering" {
		t.Fatalf("the discard dialog's default (highlighted | focused): %q", got)
	}
	b.clickText("Keep answering")
	b.waitGone("Discard 1 answer?")
	b.waitText("■ Database")
	b.clickText("Decline")
	b.clickText("Discard and decline")
	r, code := waitClient(t, cmd, out, errb)
	if code != 3 || !r.Cancelled || r.Answered {
		t.Fatalf("exit %d, result %+v", code, r)
	}
	b.waitText("declined.", "No questions waiting")
}

// A question arrives in an open page, and one answered in the terminal pane
// leaves it, without a reload.
func TestWebLiveArrivalAndAnswerElsewhere(t *testing.T) {
	t.Parallel()
	e, _, b := webSetup(t, 1280, 800)
	navs := jsValue[int](b, `performance.getEntriesByType('navigation').length`)
	b.waitText("No questions waiting")

	cmd, out, errb := e.StartClient(dbQuestion, "ask", "-")
	b.waitText("askuser — 1 waiting", "Which database should we use?")
	tp := startSimPane(t, e, 100, 30)
	tp.waitFor("Which database should we use?")
	tp.key(tcell.KeyRune, '2')
	r, code := waitClient(t, cmd, out, errb)
	if code != 0 || r.Answers[0].Answer.Text != "SQLite" {
		t.Fatalf("exit %d, result %+v", code, r)
	}
	b.waitText("was answered elsewhere (pane)", "No questions waiting")
	reloaded := jsValue[bool](b, `performance.getEntriesByType('navigation')[0].type === 'reload'`)
	if reloaded || navs != 1 {
		t.Fatalf("the page reloaded")
	}
}

// Drafts are the daemon's: typed on the page, they show in the pending file
// and the terminal pane; chosen in the terminal pane, they show on the page.
func TestWebDraftsShared(t *testing.T) {
	t.Parallel()
	e, _, b := webSetup(t, 390, 844)
	e.StartClient(webTwoQuestions, "ask", "-")
	b.waitText("Which database should we use?")
	tp := startSimPane(t, e, 100, 30)
	tp.waitFor("Which database should we use?")
	b.settled()

	// Page → pending file and terminal pane, once accepted.
	b.clickText("□ Name")
	b.typeInto(`textarea[data-k^="custom-"]`, "order-processor")
	b.clickText("Next")
	waitFile(t, e.Pending, `"answer": "order-processor"`)
	tp.waitFor("■ Name")

	// Terminal pane → page: choosing SQLite there checks it here.
	tp.key(tcell.KeyRune, '2')
	waitFile(t, e.Pending, `"answer": "SQLite"`)
	b.clickText("Database")
	b.waitJS(`document.querySelector('button.option[data-option="1"]').getAttribute('aria-checked') === 'true'`)
	b.waitText("■ Database", "■ Name")
}

// waitFile waits until the file at path holds sub.
func waitFile(t *testing.T, path, sub string) {
	t.Helper()
	fileHas(t, path, sub)
}

// The guard: a tap on content that just changed under it is not taken.
func TestWebGuardIgnoresTapOnNewContent(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	// A long guard, so that the tap lands inside it however slow this
	// machine is: the rule is tested, not the clock.
	e.WriteConfig("[ui]\ninput_guard = \"3s\"\n")
	e.StartDaemon()
	w := startWeb(t, e)
	b := newBrowser(t, 390, 844)
	b.open(w)
	b.waitText("No questions waiting")

	cmd, out, errb := e.StartClient(dbQuestion, "ask", "-")
	b.waitJS(`document.querySelector('button.option[data-option="1"]') && window.askuserState.view.settling`)
	b.click(`button.option[data-option="1"]`) // choosing which one Send takes is looking, not answering
	b.clickText("Send")
	b.waitText("Not taken: the question on screen just changed")
	if out, _, _ := e.Client("", "list", "--json"); !strings.Contains(out, "Which database") {
		t.Fatalf("the tap during the guard answered: %s", out)
	}
	b.settled()
	b.clickText("Send")
	r, code := waitClient(t, cmd, out, errb)
	if code != 0 || r.Answers[0].Answer.Text != "SQLite" {
		t.Fatalf("exit %d, result %+v", code, r)
	}
}

// Allow means seen: an option that approves its preview is not taken until
// the whole preview was on screen. The preview is on the page as the
// question arrives, before the options, and read by scrolling the page.
func TestWebAllowNeedsThePreviewRead(t *testing.T) {
	t.Parallel()
	e, _, b := webSetup(t, 390, 844)
	res := askOnSocket(t, e, allowBash(120))
	b.waitText("Allow Bash?", "What “Allow” approves", "line of the command")
	b.settled()
	b.click(`button.option[data-option="0"]`)
	b.clickText("Send")
	b.waitText(`Not taken: "Allow" approves everything in its preview`)
	// The refusal is drawn next to the option it concerns, and in view.
	if near := jsValue[bool](b, `(() => { const r = document.querySelector('main .refusal'); const o = document.querySelector('button.option[data-option="0"]');
		return !!r && r.previousElementSibling === o && r.getBoundingClientRect().top >= 0 && r.getBoundingClientRect().bottom <= innerHeight; })()`); !near {
		t.Fatalf("the refusal is not next to Allow, in view:\n%s", b.textNow())
	}
	// A jump to the end is not reading it: the lines between were never on
	// screen. The page says how much was read.
	jsValue[bool](b, `(async () => { `+webFrame+`
		const p = document.querySelector('pre[data-approves]');
		window.scrollTo(0, window.scrollY + p.getBoundingClientRect().bottom - innerHeight / 2);
		await frame(); await frame();
		return true; })()`)
	b.waitJS(`window.askuserState.view.requests[0].questions[0].options[0].readPercent > 0`)
	switch title := jsValue[string](b, `document.querySelector('.preview-title').textContent`); {
	case strings.Contains(title, "read to the end") && !strings.Contains(title, "read it to the end"):
		t.Fatalf("a jump to the end of the preview counted as reading it: %q", title)
	case !strings.Contains(title, "% of it)"):
		t.Fatalf("the preview's title does not say how much was read: %q", title)
	}
	b.readApproval()
	b.waitText("— read to the end")
	b.click(`button.option[data-option="0"]`)
	b.clickText("Send")
	if r := b.result(res); !r.Answered || r.Answers[0].Answer.Text != "Allow" {
		t.Fatalf("result %+v", r)
	}
}

// allowBash is a permission prompt whose Allow approves a command of n lines.
func allowBash(n int) string {
	long := strings.Repeat("line of the command\n", n) + "rm -rf the-end-of-it"
	req, _ := json.Marshal(map[string]any{"questions": []any{map[string]any{
		"question": "Allow Bash?", "header": "Permission",
		"options": []any{
			map[string]any{"label": "Allow", "preview": long, "approvesPreview": true},
			map[string]any{"label": "Deny"},
		}}}})
	return string(req)
}

const webFrame = `const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));`

// readApproval reads the approving preview as a user does: from its top to
// its end, a screenful at a time (what the sticky header and button bar
// leave of it), each step seen by the page before the next.
func (b *browser) readApproval() {
	b.t.Helper()
	jsValue[bool](b, `(async () => { `+webFrame+`
		const view = () => { const top = document.getElementById('top').getBoundingClientRect().bottom;
			const bar = document.querySelector('.question > .actions');
			const bottom = bar && getComputedStyle(bar).position === 'sticky' ? bar.getBoundingClientRect().top : innerHeight;
			return [top, bottom]; };
		let p = document.querySelector('pre[data-approves]');
		window.scrollBy(0, p.getBoundingClientRect().top - view()[0]);
		await frame();
		for (let i = 0; i < 1000; i++) {
			p = document.querySelector('pre[data-approves]');
			const [top, bottom] = view();
			if (p.getBoundingClientRect().bottom <= bottom) break;
			window.scrollBy(0, bottom - top - 40);
			await frame();
		}
		await frame();
		return true; })()`)
}

// result waits for the answer askOnSocket's question gets, failing with what
// the page shows if none comes.
func (b *browser) result(res <-chan socketproto.Response) socketproto.Response {
	b.t.Helper()
	select {
	case r := <-res:
		return r
	case <-time.After(30 * time.Second):
		b.t.Fatalf("no answer came; the page shows:\n%s", b.textNow())
		return socketproto.Response{}
	}
}

// askOnSocket asks the request (JSON) through the typed client and returns
// where its result will come.
func askOnSocket(t *testing.T, e *Env, req string) <-chan socketproto.Response {
	t.Helper()
	var r socketproto.AskUserRequest
	if err := json.Unmarshal([]byte(req), &r); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	out := make(chan socketproto.Response, 1)
	go func() {
		resp, err := askclient.New(askclient.Options{SocketPath: e.Socket}).Ask(ctx, r, nil)
		if err != nil && ctx.Err() == nil {
			t.Errorf("asking: %v", err)
		}
		out <- resp
	}()
	return out
}
