package web

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"askuser/socketproto"
	"askuser/socketproto/askclient"
	"askuser/tests/termpane"
	"askuser/tests/testenv"
	"askuser/tests/webpane"
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

func TestWebAnswersSingleSelect(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 390, 844)
	b.WaitText("No questions waiting", e.Socket)

	cmd, out, errb := e.StartClient(dbQuestion, "ask", "-")
	b.WaitText("askuser — 1 waiting", "Which database should we use?", "PostgreSQL (Recommended)", "Battle-tested relational DB", "Other (type your answer)")
	// How long ago it was asked is the view's words ("just now", as the
	// terminal pane says it), never the page's own count.
	b.WaitJS(`(() => { const v = window.askuserState.view, r = v && v.requests[v.focus];
		return !!r && r.age === 'just now' && document.querySelector('#who .age').textContent === r.age; })()`)
	b.WaitText("asked just now")
	b.Settled()
	b.Click(`button.option[data-option="1"]`)
	b.WaitText("Preview: SQLite", `sql.Open("sqlite", "app.db")`)
	b.ClickText("Send")
	r, code := testenv.WaitClient(t, cmd, out, errb)
	// The page is its own surface: the agent, history and every other
	// surface hear "web", never "pane".
	if code != 0 || !r.Answered || r.AnsweredVia != socketproto.ViaWeb || r.Answers[0].Answer.Text != "SQLite" {
		t.Fatalf("exit %d, result %+v", code, r)
	}
	b.WaitText("No questions waiting", "Answer to “Which database should we use?” sent.")
	testenv.FileHas(t, e.StateFile("history.jsonl"), `"via":"web"`)
}

func TestWebMultiSelectWithOtherAndNote(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 390, 844)
	cmd, out, errb := e.StartClient(featuresQuestion, "ask", "-")
	b.WaitText("Which features?", "Choose any number")
	b.Settled()
	b.Click(`button.option[data-option="0"]`)
	b.Click(`button.option.other`)
	b.TypeInto(`textarea[data-k^="custom-"]`, "Use Redis too")
	b.ClickText("Add a note")
	b.TypeInto(`textarea[data-k^="notes-"]`, "keep the old table too")
	b.ClickText("Send")
	r, code := testenv.WaitClient(t, cmd, out, errb)
	a := r.Answers[0]
	if code != 0 || !r.Answered || !reflect.DeepEqual(a.Answer.List, []string{"Authentication", "Use Redis too"}) ||
		!reflect.DeepEqual(a.SelectedOptions, []string{"Authentication"}) || a.Custom != "Use Redis too" || !a.WasCustom ||
		a.Notes != "keep the old table too" {
		t.Fatalf("exit %d, answer %+v", code, a)
	}
}

func TestWebNoneOfThese(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 390, 844)
	cmd, out, errb := e.StartClient(featuresQuestion, "ask", "-")
	b.WaitText("Which features?")
	b.Settled()
	b.ClickText("Send")
	b.WaitText("None of these for “Which features?”?")
	b.ClickText("Back")
	b.WaitGone("None of these for")
	b.ClickText("Send")
	b.WaitText("None of these for “Which features?”?")
	b.ClickText("None of these")
	r, code := testenv.WaitClient(t, cmd, out, errb)
	a := r.Answers[0]
	if code != 0 || !r.Answered || !a.Answer.IsList || len(a.Answer.List) != 0 || len(a.SelectedOptions) != 0 {
		t.Fatalf("exit %d, answer %+v", code, a)
	}
}

func TestWebSeveralQuestions(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 390, 844)
	cmd, out, errb := e.StartClient(webTwoQuestions, "ask", "-")
	b.WaitText("□ Database", "□ Name", "✓ Submit", "Which database should we use?")
	b.Settled()
	// Submit with a question unanswered jumps to it.
	b.ClickText("✓ Submit")
	b.WaitText("Review and send", "(not answered)", "Questions 1 and 2 are not answered yet.")
	b.ClickText("Send answers")
	b.WaitText("Question 1 is not answered yet.")
	b.Click(`button.option[data-option="0"]`)
	b.ClickText("Next")
	b.WaitText("What should we name this service?", "■ Database")
	b.TypeInto(`textarea[data-k^="custom-"]`, "order-processor")
	b.ClickText("Next")
	b.WaitText("Review and send", "PostgreSQL (Recommended)", "order-processor")
	b.ClickText("Send answers")
	r, code := testenv.WaitClient(t, cmd, out, errb)
	if code != 0 || !r.Answered || r.Answers[0].Answer.Text != "PostgreSQL (Recommended)" || r.Answers[1].Answer.Text != "order-processor" {
		t.Fatalf("exit %d, result %+v", code, r)
	}
}

func TestWebDeclineAsksBeforeDiscarding(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 390, 844)
	cmd, out, errb := e.StartClient(webTwoQuestions, "ask", "-")
	b.WaitText("Which database should we use?")
	b.Settled()
	b.Click(`button.option[data-option="1"]`)
	b.ClickText("Next")
	b.WaitText("What should we name this service?", "■ Database")
	b.ClickText("Decline")
	b.WaitText("Discard 1 answer?")
	// Keeping the answers is what the dialog offers first: the button
	// that throws them away is neither the highlighted one nor focused.
	if got := webpane.JSValue[string](b, `document.querySelector('#dialog button.primary').textContent + '|' + document.activeElement.textContent`); got != "Keep answering|Keep answering" {
		t.Fatalf("the discard dialog's default (highlighted | focused): %q", got)
	}
	b.ClickText("Keep answering")
	b.WaitGone("Discard 1 answer?")
	b.WaitText("■ Database")
	b.ClickText("Decline")
	b.ClickText("Discard and decline")
	r, code := testenv.WaitClient(t, cmd, out, errb)
	if code != 3 || !r.Cancelled || r.Answered {
		t.Fatalf("exit %d, result %+v", code, r)
	}
	b.WaitText("declined.", "No questions waiting")
}

// A question arrives in an open page, and one answered in the terminal pane
// leaves it, without a reload.
func TestWebLiveArrivalAndAnswerElsewhere(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 1280, 800)
	navs := webpane.JSValue[int](b, `performance.getEntriesByType('navigation').length`)
	b.WaitText("No questions waiting")

	cmd, out, errb := e.StartClient(dbQuestion, "ask", "-")
	b.WaitText("askuser — 1 waiting", "Which database should we use?")
	tp := termpane.StartSim(t, e, 100, 30)
	tp.WaitFor("Which database should we use?")
	tp.Key(tcell.KeyRune, '2')
	r, code := testenv.WaitClient(t, cmd, out, errb)
	if code != 0 || r.Answers[0].Answer.Text != "SQLite" {
		t.Fatalf("exit %d, result %+v", code, r)
	}
	b.WaitText("was answered elsewhere (pane)", "No questions waiting")
	reloaded := webpane.JSValue[bool](b, `performance.getEntriesByType('navigation')[0].type === 'reload'`)
	if reloaded || navs != 1 {
		t.Fatalf("the page reloaded")
	}
}

// Drafts are the daemon's: typed on the page, they show in the pending file
// and the terminal pane; chosen in the terminal pane, they show on the page.
func TestWebDraftsShared(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 390, 844)
	e.StartClient(webTwoQuestions, "ask", "-")
	b.WaitText("Which database should we use?")
	tp := termpane.StartSim(t, e, 100, 30)
	tp.WaitFor("Which database should we use?")
	b.Settled()

	// Page → pending file and terminal pane, once accepted.
	b.ClickText("□ Name")
	b.TypeInto(`textarea[data-k^="custom-"]`, "order-processor")
	b.ClickText("Next")
	waitFile(t, e.Pending, `"answer": "order-processor"`)
	tp.WaitFor("■ Name")

	// Terminal pane → page: choosing SQLite there checks it here.
	tp.Key(tcell.KeyRune, '2')
	waitFile(t, e.Pending, `"answer": "SQLite"`)
	b.ClickText("Database")
	b.WaitJS(`document.querySelector('button.option[data-option="1"]').getAttribute('aria-checked') === 'true'`)
	b.WaitText("■ Database", "■ Name")
}

// waitFile waits until the file at path holds sub.
func waitFile(t *testing.T, path, sub string) {
	t.Helper()
	testenv.FileHas(t, path, sub)
}

// The guard: a tap on content that just changed under it is not taken.
func TestWebGuardIgnoresTapOnNewContent(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	// A long guard, so that the tap lands inside it however slow this
	// machine is: the rule is tested, not the clock.
	e.WriteConfig("[ui]\ninput_guard = \"3s\"\n")
	e.StartDaemon()
	w := webpane.Start(t, e)
	b := webpane.NewBrowser(t, 390, 844)
	b.Open(w)
	b.WaitText("No questions waiting")

	cmd, out, errb := e.StartClient(dbQuestion, "ask", "-")
	b.WaitJS(`document.querySelector('button.option[data-option="1"]') && window.askuserState.view.settling`)
	b.Click(`button.option[data-option="1"]`) // choosing which one Send takes is looking, not answering
	b.ClickText("Send")
	b.WaitText("Not taken: the question on screen just changed")
	if out, _, _ := e.Client("", "list", "--json"); !strings.Contains(out, "Which database") {
		t.Fatalf("the tap during the guard answered: %s", out)
	}
	b.Settled()
	b.ClickText("Send")
	r, code := testenv.WaitClient(t, cmd, out, errb)
	if code != 0 || r.Answers[0].Answer.Text != "SQLite" {
		t.Fatalf("exit %d, result %+v", code, r)
	}
}

// Allow means seen: an option that approves its preview is not taken until
// the whole preview was on screen. The preview is on the page as the
// question arrives, before the options, and read by scrolling the page.
func TestWebAllowNeedsThePreviewRead(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 390, 844)
	res := askOnSocket(t, e, allowBash(120))
	b.WaitText("Allow Bash?", "What “Allow” approves", "line of the command")
	b.Settled()
	b.Click(`button.option[data-option="0"]`)
	b.ClickText("Send")
	b.WaitText(`Not taken: "Allow" approves everything in its preview`)
	// The refusal is drawn next to the option it concerns, and in view.
	if near := webpane.JSValue[bool](b, `(() => { const r = document.querySelector('main .refusal'); const o = document.querySelector('button.option[data-option="0"]');
		return !!r && r.previousElementSibling === o && r.getBoundingClientRect().top >= 0 && r.getBoundingClientRect().bottom <= innerHeight; })()`); !near {
		t.Fatalf("the refusal is not next to Allow, in view:\n%s", b.TextNow())
	}
	// A jump to the end is not reading it: the lines between were never on
	// screen. The page says how much was read.
	webpane.JSValue[bool](b, `(async () => { `+webpane.FrameJS+`
		const p = document.querySelector('pre[data-approves]');
		window.scrollTo(0, window.scrollY + p.getBoundingClientRect().bottom - innerHeight / 2);
		await frame(); await frame();
		return true; })()`)
	b.WaitJS(`window.askuserState.view.requests[0].questions[0].options[0].readPercent > 0`)
	switch title := webpane.JSValue[string](b, `document.querySelector('.preview-title').textContent`); {
	case strings.Contains(title, "read to the end") && !strings.Contains(title, "read it to the end"):
		t.Fatalf("a jump to the end of the preview counted as reading it: %q", title)
	case !strings.Contains(title, "% of it)"):
		t.Fatalf("the preview's title does not say how much was read: %q", title)
	}
	b.ReadApproval()
	b.WaitText("— read to the end")
	b.Click(`button.option[data-option="0"]`)
	b.ClickText("Send")
	if r := b.Result(res); !r.Answered || r.Answers[0].Answer.Text != "Allow" {
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

// askOnSocket asks the request (JSON) through the typed client and returns
// where its result will come.
func askOnSocket(t *testing.T, e *testenv.Env, req string) <-chan socketproto.Response {
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
