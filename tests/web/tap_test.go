package web

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"askuser/tests/testenv"
	"askuser/tests/webpane"
)

// Taps on a phone (docs/contract.md §12 "Taps"): real touches, sent as
// Chromium's touch input (Input.dispatchTouchEvent), at the moments
// something else changes the page while a finger is down.

// fourOptions is a permission prompt whose Allow approves a command too
// long to have been read by a jump to the options.
func fourOptions(id string) string {
	long := strings.Repeat("line of the command\n", 80) + "rm -rf the-end-of-it"
	req, _ := json.Marshal(map[string]any{"requestId": id, "questions": []any{map[string]any{
		"question": "Allow Bash?", "header": "Permission",
		"options": []any{
			map[string]any{"label": "Allow", "preview": long, "approvesPreview": true},
			map[string]any{"label": "Deny"},
			map[string]any{"label": "Not now"},
			map[string]any{"label": "Ask again later"},
		}}}})
	return string(req)
}

func colours(id string) string {
	return `{"requestId":"` + id + `","questions":[{"question":"Which colour for ` + id + `?","header":"Colour","options":[
		{"label":"Red"},{"label":"Green"},{"label":"Blue"},{"label":"Yellow"}]}]}`
}

// Thirty taps, each while the page changes above or around the options (a
// second request arriving, a request leaving with a notice, a notice
// leaving, a refusal drawn, the guard ending, an age changing): each lands
// on the option aimed at, never on a neighbour.
func TestWebTapLandsWhereAimed(t *testing.T) {
	t.Parallel()
	dir := phoneShots(t)
	e := testenv.New(t)
	e.WriteConfig("[ui]\ninput_guard = \"1s\"\n")
	e.StartDaemon()
	w := webpane.Start(t, e)
	b := webpane.NewBrowser(t, 390, 844)
	b.Open(w)
	b.TouchOn()
	b.WaitText("No questions waiting")
	askOnSocket(t, e, fourOptions("req-a"))
	b.WaitText("Allow Bash?", "Ask again later")
	b.Settled()
	created := webpane.JSValue[string](b, `window.askuserState.view.requests[0].createdAt`)
	asked, err := time.Parse(time.RFC3339Nano, created)
	if err != nil {
		t.Fatal(err)
	}
	taps := 0
	aim := 1
	nextAim := func() int { aim = aim%3 + 1; return aim } // Deny, Not now, Ask again later in turn
	shot := map[int]string{1: "phone-tap-arrival.png", 2: "phone-tap-notice.png", 19: "phone-tap-refusal.png", 23: "phone-tap-guard-refusal.png"}
	tap := func(what string, k int, change func(), drawn string) {
		t.Helper()
		taps++
		path := ""
		if shot[taps] != "" {
			path = filepath.Join(dir, shot[taps])
		}
		b.TapWhile(fmt.Sprintf("tap %d (%s)", taps, what), k, change, drawn, path)
	}

	// A second request arriving shows the request navigation; the request
	// leaving (answered elsewhere) hides it and says so in a notice; the
	// notice leaves after a few seconds.
	for i := range 6 {
		id := fmt.Sprintf("req-b%d", i)
		tap("a second request arrives", nextAim(), func() { askOnSocket(t, e, colours(id)) },
			`!document.getElementById('reqnav').classList.contains('idle') && document.getElementById('pos').textContent === '1 of 2'`)
		tap("a request leaves with a notice", nextAim(), func() {
			if _, stderr, code := e.Client("", "answer", id, "Red"); code != 0 {
				t.Fatalf("answer %s: %s", id, stderr)
			}
		}, `document.getElementById('reqnav').classList.contains('idle') && document.getElementById('notice').textContent !== ''`)
		// The finger comes down just before the notice is to leave (its
		// time is the view's), and lifts after it left.
		until := webpane.JSValue[string](b, `(window.askuserState.view.notices || []).map(n => n.until || '').filter(Boolean).pop() || ''`)
		leaves, err := time.Parse(time.RFC3339Nano, until)
		if err != nil {
			t.Fatalf("the notice has no time to leave (%q): %v", until, err)
		}
		x := nextAim()
		b.OptionCentre(x)
		time.Sleep(time.Until(leaves) - 40*time.Millisecond) // the moment under test: a tap 40 ms before the page changes by the clock
		tap("a notice leaves", x, nil, `document.getElementById('notice').textContent === ''`)
	}

	// A refusal drawn under Allow (not read yet) while a finger is down
	// on an option below it.
	for range 3 {
		b.Eval(`document.querySelector('button.option[data-option="0"]').click()`)
		b.WaitJS(`(() => { const s = window.askuserState, v = s.view; return !s.touched && v.requests[v.focus].questions[0].cursor === 0; })()`)
		tap("a refusal is drawn above it", nextAim(), func() {
			b.Eval(`document.querySelector('.question > .actions .primary').click()`)
		}, `!!document.querySelector('.option-slot > .refusal')`)
	}

	// The age on screen changes ("just now" → "1m ago").
	x := nextAim()
	b.OptionCentre(x)
	time.Sleep(time.Until(asked.Add(time.Minute)) - 40*time.Millisecond) // the moment under test: a tap 40 ms before the page changes by the clock
	tap("the age changes", x, nil, `document.querySelector('#who .age').textContent !== 'just now'`)

	// The request on screen answered elsewhere: the next slides in and the
	// guard holds answers back; a Send in the guard is refused (its reason
	// drawn), and the guard ends, each while a finger is down.
	current := "req-a"
	for i := range 4 {
		id := fmt.Sprintf("req-g%d", i)
		askOnSocket(t, e, colours(id))
		b.WaitJS(`document.getElementById('pos').textContent === '1 of 2'`)
		answer := "Deny"
		if current != "req-a" {
			answer = "Red"
		}
		if _, stderr, code := e.Client("", "answer", current, answer); code != 0 {
			t.Fatalf("answer %s: %s", current, stderr)
		}
		current = id
		b.WaitJS(fmt.Sprintf(`(() => { const v = window.askuserState.view; return v.settling && v.requests[v.focus].id === %q && !!document.querySelector('button.option[data-option="3"]'); })()`, id))
		tap("a refusal is drawn (the guard)", 1+i%3, func() {
			b.Eval(`document.querySelector('.question > .actions .primary').click()`)
		}, `document.getElementById('said').textContent !== ''`)
		if !webpane.JSValue[bool](b, `window.askuserState.view.settling`) {
			t.Logf("round %d: the guard ended before its last tap (a slow machine)", i)
			tap("just after the guard", 3-i%3, nil, "")
			continue
		}
		x := 3 - i%3
		b.OptionCentre(x)
		// The guard's end by the view last sent: what was left then, less
		// the time since it came.
		left := time.Duration(webpane.JSValue[float64](b, `(window.askuserState.view.settleLeftNs || 0) / 1e6 - (performance.now() - window.__viewAt)`) * float64(time.Millisecond))
		time.Sleep(left - 40*time.Millisecond) // the moment under test (at most the guard's 1 s)
		tap("the guard ends", x, nil, `!window.askuserState.view.settling`)
	}
	if taps != 30 {
		t.Fatalf("%d taps, want 30", taps)
	}
	b.Screenshot(filepath.Join(dir, "phone-tap-end.png"))
}
