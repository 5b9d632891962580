package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"askuser/tests/termpane"
	"askuser/tests/testenv"
	"askuser/tests/webpane"
)

// Text typed on the page and not accepted is the draft's "typing"
// (docs/contract.md §4, §6), never an answer: a file save answering the
// other question does not send it.
func TestWebTypedTextIsNotAnAnswer(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 390, 844)
	res := askOnSocket(t, e, `{"requestId":"req-typed",`+strings.TrimPrefix(webTwoQuestions, "{"))
	b.WaitText("Which database should we use?")
	b.Settled()
	b.ClickText("□ Name")
	b.TypeInto(`textarea[data-k^="custom-"]`, "half")
	waitFile(t, e.Pending, "half") // the daemon has the page's text
	if f, _ := os.ReadFile(e.Pending); !strings.Contains(string(f), `"typing": "half"`) {
		t.Errorf("text typed and not accepted reached the daemon as an answer:\n%s", f)
	}

	// The other question answered in the pending file: the request is not
	// complete, whatever was typed.
	testenv.SavePending(t, e, testenv.PendingFile(t, e, "req-typed"), "req-typed", `"SQLite"`)
	b.WaitText("■ Database")
	if out, _, _ := e.Client("", "list", "--json"); !strings.Contains(out, "req-typed") {
		t.Fatalf("a file save answering the other question sent text that was only typed: %s", out)
	}
	select {
	case r := <-res:
		t.Fatalf("answered with text only typed: %+v", r)
	default:
	}

	// Accepted, it is the answer.
	b.ClickText("Next")
	b.WaitText("Review and send", "SQLite", "half")
	b.ClickText("Send answers")
	if r := b.Result(res); !r.Answered || r.Answers[0].Answer.Text != "SQLite" || r.Answers[1].Answer.Text != "half" {
		t.Fatalf("result %+v", r)
	}
}

// Text typed on another surface (a terminal pane) into Other and not
// accepted shows on the page, as typed and not accepted: the view's
// "typing", drawn.
func TestWebTypingFromElsewhereShown(t *testing.T) {
	t.Parallel()
	dir := phoneShots(t)
	e, _, b := webpane.Setup(t, 390, 844)
	if _, _, code := e.Client("", "ask", "--no-wait", "--request-id", "db-1", "--question", "Which database should we use?", "--option", "PostgreSQL", "--option", "SQLite"); code != 0 {
		t.Fatalf("ask --no-wait: exit %d", code)
	}
	b.WaitText("Which database should we use?")
	p := termpane.StartTmuxPane(t, e, 100, 30)
	p.WaitFor("Which database should we use?")
	p.Keys("0") // Other
	p.TypeText("order-proc")
	testenv.WaitTyping(t, e, "db-1", "order-proc")
	b.WaitText("Other, typed and not accepted yet: order-proc")
	b.Screenshot(filepath.Join(dir, "phone-typing-elsewhere.png"))
}

// A dialog keeps its default, focused, while the view changes behind it (a
// request arrives): its buttons are not made again, and Enter still keeps
// the answers.
func TestWebDialogKeepsItsFocus(t *testing.T) {
	t.Parallel()
	dir := phoneShots(t)
	e, _, b := webpane.Setup(t, 390, 844)
	askOnSocket(t, e, `{"requestId":"req-two",`+strings.TrimPrefix(webTwoQuestions, "{"))
	b.WaitText("Which database should we use?")
	b.Settled()
	b.Click(`button.option[data-option="1"]`)
	b.ClickText("Next")
	b.WaitText("■ Database")
	b.ClickText("Decline")
	b.WaitJS(`!document.getElementById('dialog').hidden && document.activeElement && document.activeElement.id === 'dialog-no'`)
	if got := webpane.JSValue[string](b, `document.activeElement.textContent`); got != "Keep answering" {
		t.Fatalf("the dialog's focused button is %q", got)
	}
	b.Eval(`window.__default = document.activeElement`)
	askOnSocket(t, e, `{"requestId":"req-other","questions":[{"question":"Another question?","options":[{"label":"Yes"},{"label":"No"}]}]}`)
	b.WaitText("askuser — 2 waiting")
	b.WaitJS(`window.askuserState.view.requests.length === 2 && !document.getElementById('dialog').hidden`)
	if !webpane.JSValue[bool](b, `document.activeElement === window.__default && document.body.contains(window.__default)`) {
		t.Fatalf("the view's change took the focus from the dialog's default (now on %s)", webpane.JSValue[string](b, `document.activeElement ? document.activeElement.outerHTML : 'nothing'`))
	}
	b.Screenshot(filepath.Join(dir, "phone-dialog-kept.png"))
	b.Run(chromedp.KeyEvent("\r"))
	b.WaitJS(`document.getElementById('dialog').hidden`)
	if out, _, _ := e.Client("", "list", "--json"); !strings.Contains(out, "req-two") {
		t.Fatalf("Enter on the dialog's default declined the request: %s", out)
	}
}
