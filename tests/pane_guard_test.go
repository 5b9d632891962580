package tests

import (
	"strings"
	"testing"
	"time"

	"askuser/tests/termpane"
	"askuser/tests/testenv"
)

// docs/contract.md §6 "No answer the user has not seen", in a real terminal: with two
// requests waiting, 1 then Enter 100 ms later answers the first and leaves
// the second waiting; Enter once the pane has settled answers it. The guard
// is set long here (2 s) so that a slow machine cannot make the test pass or
// fail by timing; the default is pinned by the config's own test.
func TestPaneTmuxGuardTwoRequests(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.WriteConfig("[ui]\ninput_guard = \"2s\"\n")
	e.StartDaemon()
	p := termpane.StartTmuxPane(t, e, 80, 24)
	p.WaitFor("No questions waiting")
	first, out1, err1 := e.StartClient("", "ask", "--request-id", "deploy", "--question", "Deploy to staging?", "--option", "Yes", "--option", "No")
	p.WaitFor("Deploy to staging?")
	second, out2, err2 := e.StartClient("", "ask", "--request-id", "push", "--question", "Force-push to main?", "--option", "Yes", "--option", "No")
	p.WaitFor("askuser — 2 waiting")
	p.WaitGone("settling…")

	p.RawKeys("1")
	// The user's own timing under test: Enter 100 ms after 1, well inside
	// the 2 s guard.
	time.Sleep(100 * time.Millisecond)
	p.RawKeys("Enter")
	if r, code := testenv.WaitClient(t, first, out1, err1); code != 0 || r.Answers[0].Answer.Text != "Yes" {
		t.Fatalf("the first request: exit %d, %+v", code, r)
	}
	// Enter came while the second request was settling (or, on a slow
	// machine, while the first was still being sent): either way not taken.
	p.WaitFor("Force-push to main?", "askuser — 1 waiting")
	p.WaitGone("settling…")
	if stdout, _, _ := e.Client("", "list", "--json"); !strings.Contains(stdout, `"push"`) {
		t.Fatalf("the second request is no longer waiting:\n%s\n%s", stdout, p.Capture())
	}

	p.RawKeys("Enter") // settled: the user has seen it
	if r, code := testenv.WaitClient(t, second, out2, err2); code != 0 || r.Answers[0].Answer.Text != "Yes" || r.AnsweredVia != "pane" {
		t.Fatalf("the second request: exit %d, %+v", code, r)
	}
}

// The user's own Tab does not start the guard (docs/contract.md §6): letters typed right
// after it, with a long guard, go into the answer in a real terminal.
func TestPaneTmuxOwnTabKeepsTheNextKeys(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.WriteConfig("[ui]\ninput_guard = \"2s\"\n")
	e.StartDaemon()
	p := termpane.StartTmuxPane(t, e, 100, 30)
	p.WaitFor("No questions waiting")
	req := `{"requestId":"tab-1","questions":[
	  {"question":"Which database should we use?","header":"Database","options":[{"label":"PostgreSQL"},{"label":"SQLite"}]},
	  {"question":"What should we name this service?","header":"Name"}]}`
	ask, out, errb := e.StartClient(req, "ask", "-", "--format", "text")
	p.WaitFor("□ Database  □ Name")
	p.WaitGone("settling…")
	// Tab and the letters in one go, as a quick typist sends them: nothing
	// waits for the pane to settle.
	p.RawKeys("Tab")
	p.Tmux("send-keys", "-l", "svc")
	p.WaitFor("What should we name this service?")
	if screen := p.Capture(); strings.Contains(screen, "Not taken") || strings.Contains(screen, "settling…") {
		t.Fatalf("keys typed after the user's own Tab were not taken:\n%s", screen)
	}
	p.WaitFor("> svc")
	p.Keys("Enter")
	p.WaitFor("Database")
	p.Keys("BTab", "BTab", "2")
	p.WaitFor("→ SQLite", "→ svc")
	p.Keys("Enter")
	wantAnswered(t, ask, out, errb, "Which database should we use?: SQLite\nWhat should we name this service?: svc\n")
}

// docs/contract.md §6 "Answers in progress are the daemon's": an answer given in the
// pane is in the pending file within moments, and survives q, a new pane
// and a daemon restart, pre-filled every time.
func TestPaneTmuxDraftSurvivesQuitReopenAndRestart(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	p := termpane.StartTmuxPane(t, e, 100, 30)
	p.WaitFor("No questions waiting")
	req := `{"requestId":"svc-1","questions":[
	  {"question":"Which database should we use?","header":"Database","options":[{"label":"PostgreSQL"},{"label":"SQLite"}]},
	  {"question":"What should we name this service?","header":"Name"}]}`
	if _, errs, code := e.Client(req, "ask", "--no-wait", "-"); code != 0 {
		t.Fatalf("ask --no-wait: exit %d: %s", code, errs)
	}
	p.WaitFor("□ Database  □ Name")
	p.Keys("n")
	p.TypeText("keep the old table")
	p.Keys("Enter")
	p.WaitFor("Note: keep the old table")
	p.Keys("2")
	start := time.Now()
	p.WaitFor("■ Database  □ Name")
	testenv.FileHas(t, e.Pending, `"selected": [`)
	testenv.FileHas(t, e.Pending, `"SQLite"`)
	t.Logf("the pane's answer was in the pending file %v after the key", time.Since(start).Round(time.Millisecond))

	reopened := func(p *termpane.Tmux) {
		t.Helper()
		p.WaitFor("■ Database  □ Name", "> 2. SQLite ✓", "Note: keep the old table")
	}
	p.Keys("C-c") // quits whatever has the keys: a "q" could land in an open input, and be kept as typing
	p = termpane.StartTmuxPane(t, e, 100, 30)
	reopened(p)

	journaled(t, e, "keep the old table")
	e.StopDaemon()
	p.WaitFor("Not connected to askuserd")
	e.StartDaemon()
	p.WaitGone("Not connected")
	p.WaitFor("■ Database  □ Name", "> 2. SQLite ✓")
	p.Keys("C-c") // quits whatever has the keys: a "q" could land in an open input, and be kept as typing
	p = termpane.StartTmuxPane(t, e, 100, 30)
	reopened(p)

	p.Keys("Tab")
	p.WaitFor("What should we name this service?")
	p.TypeText("billing")
	p.Keys("Enter")
	p.WaitFor("→ SQLite", "→ billing")
	p.Keys("Enter")
	out, errs, code := e.Client("", "wait", "svc-1")
	if code != 0 || !strings.Contains(out, `"SQLite"`) || !strings.Contains(out, `"billing"`) || !strings.Contains(out, "keep the old table") {
		t.Fatalf("wait: exit %d\n%s\n%s", code, out, errs)
	}
}

// docs/contract.md §6 "Small terminals" at 40×12 in a real terminal: the focused
// option, a line of its description or a marker, and a line of its preview;
// the preview's position never reads "1–0", however far } scrolls it.
func TestPaneTmuxFortyByTwelve(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	p := termpane.StartTmuxPane(t, e, 40, 12)
	p.WaitFor("No questions waiting")
	req := `{"questions":[
	  {"question":"Which database should we use?","header":"Database","options":[
	    {"label":"PostgreSQL","description":"Battle-tested relational DB","preview":"one\ntwo\nthree\nfour\nfive"},
	    {"label":"SQLite","description":"` + strings.Repeat("a long description ", 20) + `END","preview":"sqlite preview"},
	    {"label":"MongoDB"}]},
	  {"question":"What should we name this service?","header":"Name"}]}`
	if _, errs, code := e.Client(req, "ask", "--no-wait", "-"); code != 0 {
		t.Fatalf("ask --no-wait: exit %d: %s", code, errs)
	}
	p.WaitFor("> 1. PostgreSQL", "Battle-tested", "Preview 1–", "one")
	for range 6 {
		p.RawKeys("}")
	}
	screen := p.WaitFor("five", "of 5")
	if strings.Contains(screen, "–0 of") || strings.Contains(screen, "2–1") {
		t.Fatalf("preview position:\n%s", screen)
	}
	p.RawKeys("Down")
	p.WaitFor("> 2. SQLite", "↕ more of this option", "sqlite preview")

	e.Client("", "ask", "--no-wait", "--question", "Small?", "--option", "Yes", "--option", "No")
	p.Tmux("resize-window", "-x", "30", "-y", "8")
	p.WaitFor("terminal too")
	p.Tmux("resize-window", "-x", "40", "-y", "12")
	p.WaitFor("> 2. SQLite")
}
