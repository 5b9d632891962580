package views

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"askuser/socketproto"
)

func TestEmptyState(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Has("askuser — nothing waiting", "No questions waiting", "/run/user/1000/askuser/askuserd.sock")
}

func TestSingleQuestionChooseWithEnter(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(socketproto.Snapshot{State: "waiting_for_user", Pending: []socketproto.Pending{pending("req-1", dbQuestion())}})
	h.Has("askuser — 1 waiting", "claude-main", "3m ago", "Database", "Which database should we use?",
		"> 1. PostgreSQL (Recommended)", "Battle-tested relational DB", "2. SQLite", "4. Other (type your answer)")
	h.Press("<Down>", "<Enter>")
	a := h.Answers("req-1")
	if len(a) != 1 || a[0]["selected"].([]any)[0] != "SQLite" {
		t.Fatalf("answers %v", a)
	}
	h.Has("Sending…")
	h.Event(socketproto.RequestResolved{RequestID: "req-1", Outcome: "answered", Via: "pane"})
	h.Has("Answer to “Which database should we use?” sent.", "No questions waiting")
	h.HasNot("req-1")
}

func TestNumberKeysChooseAtOnce(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion())))
	h.Press("3")
	if got := selected(t, h.Answers("req-1")[0]); len(got) != 1 || got[0] != "MongoDB" {
		t.Fatalf("selected %v, want MongoDB", got)
	}
}

func TestJKMoveAndOtherTyped(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion())))
	h.Press("j", "j", "k")
	h.Has("> 2. SQLite")
	h.Press("0")
	h.Has("> 4. Other (type your answer)", "> type your answer")
	h.Press("DynamoDB", "<Enter>")
	a := h.Answers("req-1")[0]
	if a["custom"] != "DynamoDB" || len(selected(t, a)) != 0 {
		t.Fatalf("answer %v, want custom DynamoDB", a)
	}
}

func TestOtherEscKeepsTextAndReturnsToList(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion())))
	h.Press("<Down>", "<Down>", "<Down>", "<Enter>", "Cassandra", "<Esc>")
	if len(h.D.Sent()) != 0 {
		t.Fatalf("Esc in Other's input sent %v", h.D.Sent())
	}
	h.Has("> 4. Other: Cassandra")
	h.Press("<Enter>") // reopens the input with the text
	h.Has("> Cassandra")
	h.Press("<Enter>")
	if a := h.Answers("req-1")[0]; a["custom"] != "Cassandra" {
		t.Fatalf("answer %v", a)
	}
}

func TestLongListScrolls(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", frameworkQuestion(40))))
	h.Has("1. Framework 01", "6. Framework 06", "  ↓ ", "more…")
	h.HasNot("Framework 40", "  ↑ ")
	for range 30 {
		h.Press("<Down>")
	}
	h.Has("> 31. Framework 31", "↑ ", "more…")
	h.Press("<End>")
	h.Has("> 41. Other (type your answer)", "  ↑ 23 more…")
	h.HasNot("  ↓ ")
}

// A list uses the room the terminal has: in 200×60, twenty options are all
// on screen, with no "↓ N more…" over rows left empty.
func TestLongListUsesTheRoom(t *testing.T) {
	t.Parallel()
	h := newH(t, 200, 60)
	h.Event(snap(pending("req-1", frameworkQuestion(20))))
	h.Has("1. Framework 01", "20. Framework 20", "21. Other (type your answer)")
	h.HasNot("more…")
}

func TestShortTerminalScrollsList(t *testing.T) {
	t.Parallel()
	h := newH(t, 40, 12)
	q := dbQuestion()
	q.Options = append(q.Options, opt("Redis=In-memory store"))
	h.Event(snap(pending("req-1", q)))
	h.Has("> 1. PostgreSQL (Recommended)", "↓ 2 more…")
	h.Press("<Down>", "<Down>", "<Down>", "<Down>")
	h.Has("> 5. Other (type your answer)", "↑ 2 more…")
}

func TestFilterKeepsOriginalNumbers(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	q := frameworkQuestion(12)
	q.Options[6].Label = "Koa"
	h.Event(snap(pending("req-1", q)))
	h.Press("/", "koa")
	h.Has("/ koa", "7. Koa", "13. Other")
	h.HasNot("Framework 01")
	h.Press("<Enter>") // keep the filter, back to the list
	h.Has("> 7. Koa")
	h.Press("<Esc>") // clears the filter, cancels nothing
	h.Has("Framework 01", "Framework 02", "> 7. Koa")
	if len(h.D.Sent()) != 0 {
		t.Fatalf("sent %v", h.D.Sent())
	}
	h.Press("/", "koa", "<Enter>", "2") // numbers point at the original options
	if got := selected(t, h.Answers("req-1")[0]); got[0] != "Framework 02" {
		t.Fatalf("selected %v, want Framework 02", got)
	}
}

func TestFilterEnterSelectsFocused(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion())))
	h.Press("/", "lite", "<Enter>", "<Enter>")
	if got := selected(t, h.Answers("req-1")[0]); got[0] != "SQLite" {
		t.Fatalf("selected %v", got)
	}
}

func TestLongQuestionScrollsWithPgDn(t *testing.T) {
	t.Parallel()
	h := newH(t, 40, 12)
	text := strings.Repeat("word ", 80) + "THE-END?"
	h.Event(snap(pending("req-1", question(text, "", "Yes", "No"))))
	h.HasNot("THE-END?")
	h.Has("lines 1–", "PgUp/PgDn")
	for range 40 {
		h.Press("<PgDn>")
	}
	h.Has("THE-END?", "1. Yes")
	h.Press("<PgUp>")
	h.HasNot("THE-END?")
}

// PgDn moves a long question by a page (what is on screen, less a line
// kept for context), not by one line.
func TestPgDnScrollsAPage(t *testing.T) {
	t.Parallel()
	h := newH(t, 60, 20)
	var lines []string
	for i := 1; i <= 60; i++ {
		lines = append(lines, fmt.Sprintf("line-%02d", i))
	}
	h.Event(snap(pending("req-1", question(strings.Join(lines, "\n"), "", "Yes", "No"))))
	first := regexp.MustCompile(`lines 1–(\d+) of`).FindStringSubmatch(h.Screen())
	if first == nil {
		t.Fatalf("no position line:\n%s", h.Screen())
	}
	shown, _ := strconv.Atoi(first[1])
	if shown < 5 {
		t.Fatalf("only %d lines shown:\n%s", shown, h.Screen())
	}
	h.Press("<PgDn>")
	// The last line of the first page is kept at the top of the second.
	h.Has(fmt.Sprintf("lines %d–", shown), fmt.Sprintf("line-%02d", shown))
	h.HasNot(fmt.Sprintf("line-%02d", shown-1))
	h.Press("<PgUp>")
	h.Has("lines 1–", "line-01")
}

func TestLongDescriptionScrolls(t *testing.T) {
	t.Parallel()
	h := newH(t, 40, 12)
	q := question("Pick", "", "A=x", "B")
	q.Options[0].Description = strings.Repeat("detail ", 60) + "LAST-WORD"
	h.Event(snap(pending("req-1", q)))
	h.HasNot("LAST-WORD")
	h.Has("more of this option")
	for range 40 {
		h.Press("<PgDn>")
	}
	h.Has("LAST-WORD")
}

func TestPreviewBesideAndBelow(t *testing.T) {
	t.Parallel()
	q := dbQuestion()
	q.Options[0].Preview = "db, _ := sql.Open(\"pgx\", url)\nPREVIEW-LINE-2"
	for _, c := range []struct {
		w, h   int
		beside bool
	}{{100, 30, true}, {50, 24, false}} {
		t.Run(fmt.Sprint(c.w), func(t *testing.T) {
			h := newH(t, c.w, c.h)
			h.Event(snap(pending("req-1", q)))
			h.Has("Preview", "PREVIEW-LINE-2")
			lines := h.Lines()
			for _, l := range lines {
				if strings.Contains(l, "1. PostgreSQL") {
					if got := strings.Contains(l, "Preview") || strings.Contains(l, "sql.Open"); got != c.beside {
						t.Fatalf("preview beside the list = %v, want %v\n%s", got, c.beside, h.Screen())
					}
				}
			}
			h.Press("<Down>", "<Down>") // MongoDB has no preview
			h.HasNot("PREVIEW-LINE-2")
		})
	}
}

func TestNoteGoesWithTheAnswer(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion())))
	h.Press("n", "keep the old table", "<Enter>")
	h.Has("Note: keep the old table")
	h.Press("1")
	a := h.Answers("req-1")[0]
	if a["notes"] != "keep the old table" || selected(t, a)[0] != "PostgreSQL (Recommended)" {
		t.Fatalf("answer %v", a)
	}
}

func TestFreeTextQuestion(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", nameQuestion())))
	h.Has("What should we name this service?", "> type your answer")
	h.Press("<Enter>")
	h.Has("Type an answer first")
	if len(h.D.Sent()) != 0 {
		t.Fatal("an empty answer was sent")
	}
	h.Press("order-processor", "<Enter>")
	if a := h.Answers("req-1")[0]; a["custom"] != "order-processor" {
		t.Fatalf("answer %v", a)
	}
}

func TestQuitKeyOnlyOutsideTextInput(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", nameQuestion())))
	h.Press("quiet")
	h.Has("> quiet")
	select {
	case <-h.A.Done():
		t.Fatal("q in the text input quit the pane")
	default:
	}
	h.Event(snap(pending("req-2", dbQuestion())))
	h.Press("q")
	select {
	case <-h.A.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("q did not quit")
	}
}

func TestCtrlCQuits(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", nameQuestion())))
	h.Scr.InjectKey(tcell.KeyCtrlC, 0, tcell.ModNone)
	select {
	case <-h.A.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl-C did not quit")
	}
	if len(h.D.Sent()) != 0 {
		t.Fatalf("quitting sent %v: the request must stay with the daemon", h.D.Sent())
	}
}

func TestMultiSelect(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	q := multi(question("Which features?", "Features", "Authentication=OAuth2 + JWT", "REST API", "Admin Dashboard"))
	h.Event(snap(pending("req-1", q)))
	h.Has("> [ ] 1. Authentication", "[ ] 4. Other (type your answer)")
	h.Press("<Space>", "<Down>", "<Down>", "<Space>")
	h.Has("[x] 1. Authentication", "> [x] 3. Admin Dashboard")
	h.Press("<Down>", "<Space>", "Use Redis too", "<Enter>")
	h.Has("[x] 4. Other: Use Redis too")
	if len(h.D.Sent()) != 0 {
		t.Fatal("sent before Enter on the list")
	}
	h.Press("<Enter>")
	a := h.Answers("req-1")[0]
	got := selected(t, a)
	if len(got) != 2 || got[0] != "Authentication" || got[1] != "Admin Dashboard" || a["custom"] != "Use Redis too" {
		t.Fatalf("answer %v", a)
	}
}

func TestMultiSelectUntoggle(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", multi(question("Which?", "", "A", "B", "C")))))
	h.Press("1", "2", "1", "<Down>", "<Enter>") // Enter on the checked B confirms
	if got := selected(t, h.Answers("req-1")[0]); len(got) != 1 || got[0] != "B" {
		t.Fatalf("selected %v, want [B]", got)
	}
}

// "None of these" is an answer a multi-select question can be given in the
// pane (docs/contract.md §3, §6), after a confirmation; n leaves the boxes as they were.
func TestMultiSelectNoneOfThese(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	feat := multi(question("Which features?", "Features", "Auth", "API"))
	h.Event(snap(pending("req-1", feat, nameQuestion())))
	h.Press("1", "-")
	h.Has("None of these for “Which features?”? [y/N]")
	h.Press("n")
	h.HasNot("None of these for")
	h.Has("[x] 1. Auth")
	h.Press("-", "y")
	h.Has("What should we name this service?")
	if d := h.D.Drafts(); len(d) == 0 || string(d[len(d)-1].Answer) != "[]" {
		t.Fatalf("drafts %v: want the last one [] (none of these)", d)
	}
	h.Press("svc", "<Enter>")
	h.Has("→ (none of these)", "→ svc")
	h.Press("<Enter>")
	a := h.Answers("req-1")
	if got := selected(t, a[0]); len(got) != 0 || a[0]["custom"] != nil {
		t.Fatalf("answers %v: want nothing selected", a)
	}
}

func TestTabsAndSubmit(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	feat := multi(question("Which features?", "Features", "Auth", "API"))
	h.Event(snap(pending("req-1", dbQuestion(), nameQuestion(), feat)))
	h.Has("← □ Database  □ Service Name  □ Features  ✓ Submit →")
	h.Press("1")
	h.Has("■ Database  □ Service Name", "What should we name this service?")
	h.Press("<Tab>", "<Tab>") // to Submit with questions unanswered
	h.Has("(not answered)", "Questions 2 and 3 are not answered yet.")
	h.HasNot("Press Enter to send")
	h.Press("<Enter>")
	h.Has("Question 2 is not answered yet.", "What should we name this service?")
	if len(h.D.Sent()) != 0 {
		t.Fatal("sent with unanswered questions")
	}
	h.Press("order-processor", "<Enter>")
	h.Has("Which features?")
	h.Press("<Left>", "<BackTab>") // answers survive switching tabs (← in a text input moves the cursor)
	h.Has("PostgreSQL (Recommended) ✓")
	h.Press("<Right>")
	h.Has("> order-processor")
	h.Press("<Tab>", "<Space>", "<Enter>")
	h.Has("■ Database  ■ Service Name  ■ Features", "→ PostgreSQL (Recommended)", "→ order-processor", "→ Auth")
	h.Press("<Enter>")
	a := h.Answers("req-1")
	if len(a) != 3 || selected(t, a[0])[0] != "PostgreSQL (Recommended)" || a[1]["custom"] != "order-processor" || selected(t, a[2])[0] != "Auth" {
		t.Fatalf("answers %v", a)
	}
}

// An optional question left empty keeps nothing from being sent: the
// Submit tab lists it as left empty and says Enter sends, as the core's
// view has it (the pane once counted it as "1 question is not answered yet").
func TestSubmitWithAnOptionalQuestionLeftEmpty(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	no := false
	contact := socketproto.Question{Question: "Who to notify?", Header: "Contact",
		Input: &socketproto.Input{Type: "string", Format: "email", Required: &no}}
	h.Event(snap(pending("req-1", nameQuestion(), contact)))
	h.Press("order-processor", "<Enter>")
	h.Has("Who to notify?")
	h.Press("<Tab>")
	h.Has("→ order-processor", "(left empty)", "Press Enter to send these answers.")
	h.HasNot("not answered")
	h.Press("<Enter>")
	a := h.Answers("req-1")
	if len(a) != 2 || a[0]["custom"] != "order-processor" || a[1] != nil {
		t.Fatalf("answers %v: want the name, and the optional one skipped", a)
	}
}

func TestBackTabAndShiftTab(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion(), nameQuestion())))
	h.Press("<BackTab>") // already first: stays
	h.Has("Which database")
	h.Press("<Tab>", "<BackTab>")
	h.Has("Which database")
}

// The prompts stand next to what they ask about, not on the bottom line: the
// long-answer question right under the typed text, the discard question
// above the request's questions.
func TestPromptsStandByWhatTheyAsk(t *testing.T) {
	t.Parallel()
	row := func(lines []string, sub string) int {
		for i, l := range lines {
			if strings.Contains(l, sub) {
				return i
			}
		}
		return -1
	}
	h := newH(t, 80, 40)
	h.Event(snap(pending("req-1", nameQuestion())))
	h.Press("a")
	h.On(func() { h.A.Pane.typeText(strings.Repeat("x", 2100) + "END") })
	h.Press("<Enter>")
	lines := h.Lines()
	ask, end := row(lines, "Answer is long"), row(lines, "END")
	if ask < 0 || end < 0 || ask != end+1 {
		t.Fatalf("the long-answer prompt is on row %d, the typed text ends on row %d; want it right under:\n%s", ask, end, h.Screen())
	}
	h.Press("n", "<Esc>")

	h = newH(t, 80, 40)
	h.Event(snap(pending("req-2", dbQuestion(), nameQuestion())))
	h.Press("1", "<Esc>")
	lines = h.Lines()
	ask, q := row(lines, "Discard 1 answer? [y/N]"), row(lines, "What should we name this service?")
	if ask < 0 || q < 0 || ask > q {
		t.Fatalf("the discard prompt is on row %d, the question on row %d; want it above:\n%s", ask, q, h.Screen())
	}
}

func TestLongAnswerConfirm(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", nameQuestion())))
	long := strings.Repeat("x", 2847)
	h.Press("a") // opens the input with something typed
	h.On(func() { h.A.Pane.typeText(long) })
	h.Press("<Enter>")
	h.Has("Answer is long (2,847 chars). Continue anyway? [Y/n]")
	h.Press("n")
	h.HasNot("Answer is long")
	var got string
	h.On(func() { got = h.A.Pane.input.GetText() })
	if got != long || len(h.D.Sent()) != 0 {
		t.Fatalf("after n: text %d chars, sent %v", len(got), h.D.Sent())
	}
	h.Press("<Enter>", "<Esc>") // Esc also goes back
	h.HasNot("Answer is long")
	h.Press("<Enter>", "y")
	if a := h.Answers("req-1")[0]; a["custom"] != long {
		t.Fatalf("answer has %d chars", len(a["custom"].(string)))
	}
}

func TestLongAnswerEnterAccepts(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24, func(o *Options) { o.SoftLimit = 10 })
	h.Event(snap(pending("req-1", dbQuestion())))
	h.Press("0", "eleven chars", "<Enter>")
	h.Has("Answer is long (12 chars)")
	h.Press("<Enter>")
	if a := h.Answers("req-1")[0]; a["custom"] != "eleven chars" {
		t.Fatalf("answer %v", a)
	}
}

func TestEscWithNothingAnsweredCancels(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion(), nameQuestion())))
	h.Press("<Esc>")
	c, ok := h.LastSent().(socketproto.Cancel)
	if !ok || c.RequestID != "req-1" || c.Via != "pane" {
		t.Fatalf("sent %#v, want a cancel via pane", h.LastSent())
	}
	h.Event(socketproto.RequestResolved{RequestID: "req-1", Outcome: "cancelled", Via: "pane"})
	h.Has("“Which database should we use?” (and 1 more question) declined.", "No questions waiting")
}

func TestEscWithAnswersAsks(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", dbQuestion(), dbQuestionB(), nameQuestion())))
	h.Press("2", "3")
	h.Press("<Left>", "<Esc>")
	h.Has("Discard 2 answers? [y/N]")
	for _, k := range []string{"n", "<Esc>", "<Enter>"} {
		h.Press(k)
		h.HasNot("Discard")
		h.Has("■ Database  ■ Database 2")
		h.Press("<Esc>")
	}
	if len(h.D.Sent()) != 0 {
		t.Fatalf("sent %v", h.D.Sent())
	}
	h.Press("y")
	if c, ok := h.LastSent().(socketproto.Cancel); !ok || c.RequestID != "req-1" {
		t.Fatalf("sent %#v", h.LastSent())
	}
}

func dbQuestionB() socketproto.Question {
	q := dbQuestion()
	q.Question = "Which database for tests?"
	q.Header = "Database 2"
	return q
}

func TestFreeTextEscWithTextAsks(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", nameQuestion())))
	h.Press("half-typed", "<Esc>")
	h.Has("Discard 1 answer? [y/N]", "> half-typed") // the text stays in view under the question
	h.Press("n")
	h.Has("> half-typed")
	h.Press("-more", "<Enter>")
	if a := h.Answers("req-1")[0]; a["custom"] != "half-typed-more" {
		t.Fatalf("answer %v", a)
	}
}

// TestListWindowGrowsBackAfterResize: options scrolled out of a short
// terminal come back into view when it grows, without a stale "↑ N more…".
func TestListWindowGrowsBackAfterResize(t *testing.T) {
	t.Parallel()
	h := newH(t, 40, 12)
	h.Event(snap(pending("req-1", question("Which database should we use? "+strings.Repeat("More about it. ", 6), "Database",
		"PostgreSQL (Recommended)=Battle-tested relational DB", "SQLite=Lightweight, file-based", "MongoDB=Document store"))))
	h.Press("<End>")
	h.Has("↑ ", "> 4. Other (type your answer)")
	h.Resize(300, 80)
	h.HasNot("↑ ")
	h.Has("1. PostgreSQL (Recommended)", "> 4. Other (type your answer)")
	// Scrolling up in a long list still moves the window only at its edge.
	h = newH(t, 80, 30)
	h.Event(snap(pending("req-2", frameworkQuestion(40))))
	h.Press("<End>", "<Up>")
	h.Has("↑ ", "> 40.")
}

// TestHintsMatchThisDraw: the key hints are worked out after the question is
// laid out, so the very first draw of a question that scrolls offers
// PgUp/PgDn, and one that fits after a resize no longer does.
func TestHintsMatchThisDraw(t *testing.T) {
	t.Parallel()
	h := newH(t, 100, 12)
	text := strings.Repeat("word ", 200) + "THE-END?"
	var first string
	h.Event(snap(pending("req-1", question(text, "", "Yes", "No"))))
	h.on(func() { // read what that one draw left, without drawing again
		cells, w, hh := h.Scr.GetContents()
		for x := 0; x < w; x++ {
			first += string(cells[(hh-1)*w+x].Runes)
		}
	}, false)
	if !strings.Contains(first, "PgUp/PgDn scroll") {
		t.Fatalf("first draw's hints %q lack PgUp/PgDn\n%s", first, h.Screen())
	}
	h.Resize(300, 80)
	h.HasNot("PgUp/PgDn")
	h.Press("/", "ye", "<Enter>")
	h.Has("Esc clear filter")
	h.HasNot("Esc cancel")
}

// TestEscKeepsUnacceptedWork: text typed into Other or a free-text question
// but not yet accepted, boxes checked but not confirmed, and a lone note are
// all work one Esc must not throw away: the discard question comes first.
func TestEscKeepsUnacceptedWork(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		qs   []socketproto.Question
		keys []string
	}{
		{"other text left with Esc", []socketproto.Question{dbQuestion()}, []string{"0", "a long answer", "<Esc>"}},
		{"free text on another tab", []socketproto.Question{dbQuestion(), nameQuestion()}, []string{"<Tab>", "svc", "<BackTab>"}},
		{"boxes not confirmed", []socketproto.Question{multi(dbQuestion())}, []string{"<Space>", "<Down>", "<Space>"}},
		{"a note only", []socketproto.Question{dbQuestion()}, []string{"n", "remember", "<Enter>"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newH(t, 80, 24)
			h.Event(snap(pending("req-1", c.qs...)))
			h.Press(c.keys...)
			h.Press("<Esc>")
			h.Has("Discard 1 answer? [y/N]")
			h.Press("n")
			h.HasNot("Discard")
			if len(h.D.Sent()) != 0 {
				t.Fatalf("sent %v", h.D.Sent())
			}
			h.Press("<Esc>", "y")
			if _, ok := h.LastSent().(socketproto.Cancel); !ok {
				t.Fatalf("sent %v", h.D.Sent())
			}
		})
	}
}

// TestPromptsWholeAtFortyColumns: the confirmations wrap on a narrow
// terminal rather than losing their [Y/n] / [y/N].
func TestPromptsWholeAtFortyColumns(t *testing.T) {
	t.Parallel()
	h := newH(t, 40, 12)
	h.Event(snap(pending("req-1", dbQuestion(), nameQuestion())))
	h.Press("1", "z") // typed, so the input is the user's
	h.On(func() { h.A.Pane.typeText(strings.Repeat("z", 2001)) })
	h.Press("<Enter>")
	h.Has("Answer is long (2,001 chars).", "anyway? [Y/n]")
	h.Press("<Esc>", "<Esc>")
	h.Has("Discard 2 answers? [y/N]")
}

// paste sends text as a terminal's bracketed paste: start, the keys, end.
func (h *H) paste(text string) {
	h.t.Helper()
	//lint:ignore SA1019 the paste's start must be in the queue before its keys, as a terminal sends them
	h.Scr.PostEventWait(tcell.NewEventPaste(true))
	for _, r := range text {
		if r == '\n' {
			h.Scr.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
		} else {
			h.Scr.InjectKey(tcell.KeyRune, r, tcell.ModNone)
		}
	}
	//lint:ignore SA1019 and its end after them
	h.Scr.PostEventWait(tcell.NewEventPaste(false))
	select {
	case <-h.keyed:
	case <-time.After(10 * time.Second):
		h.t.Fatalf("paste not handled within 10s\n%s", h.Screen())
	}
	h.Sync()
}

// TestPasteReachesTheInput: a bracketed paste lands in the text input (it
// used to vanish), opens Other on an options list, keeps its newlines and
// loses escape sequences, and never submits by itself.
func TestPasteReachesTheInput(t *testing.T) {
	t.Parallel()
	h := newH(t, 80, 24)
	h.Event(snap(pending("req-1", nameQuestion(), dbQuestion())))
	h.Press("svc-")
	h.paste("pasted red\nsecond line")
	h.Has("> svc-pasted red", "second line")
	h.On(func() { h.A.Pane.Paste(" \x1b[31mno colour\x1b[0m\r\n") }) // what a terminal may hand over whole
	h.Has("second line no colour")
	if len(h.D.Sent()) != 0 {
		t.Fatalf("a paste sent %v", h.D.Sent())
	}
	h.Press("<Enter>") // accepted: on to the options question
	h.Has("Which database")
	h.paste("my own database")
	h.Has("> 4. Other", "> my own database")
	h.Press("<Enter>", "<Enter>")
	a := h.Answers("req-1")
	if a[0]["custom"] != "svc-pasted red\nsecond line no colour\n" || a[1]["custom"] != "my own database" {
		t.Fatalf("answers %v", a)
	}
}

// TestPasteShowsItsEnd: a paste that makes the input taller keeps the cursor
// (the paste's end) in view.
func TestPasteShowsItsEnd(t *testing.T) {
	t.Parallel()
	h := newH(t, 40, 12)
	h.Event(snap(pending("req-1", nameQuestion())))
	h.paste(strings.Repeat("word ", 100) + "END")
	h.Has("END")
	h.Resize(60, 14) // a new width re-wraps; the end stays in view
	h.Has("END")
}

// TestOneRowQuestionSaysThereIsMore: squeezed to a single row, a question
// longer than that row still says it goes on.
func TestOneRowQuestionSaysThereIsMore(t *testing.T) {
	t.Parallel()
	h := newH(t, 40, 12)
	h.Event(snap(pending("req-1", question(strings.Repeat("word ", 40)+"THE-END?", "", "Yes=y\ny\ny", "No=n\nn\nn", "Maybe=m\nm\nm"))))
	h.Has("word word", "> 1. Yes")
	for range 30 {
		h.Press("<PgDn>")
	}
	h.Has("THE-END?")
}
