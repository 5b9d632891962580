package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// Taps on a phone (docs/contract.md §12 "Taps"): real touches, sent as
// Chromium's touch input (Input.dispatchTouchEvent), at the moments
// something else changes the page while a finger is down.

// touchOn turns on touch input in the browser: a touch then makes the
// touchstart, touchend and click a phone makes.
func (b *Browser) TouchOn() {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Call(ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 1}); err != nil {
		b.t.Fatal(err)
	}
	// Safari on an iPhone does not anchor scrolling (CSS overflow-anchor):
	// content that grows above the options moves them there even when
	// Chromium would scroll to keep them. The test taps as on Safari.
	b.Eval(`document.documentElement.style.overflowAnchor = 'none'; document.body.style.overflowAnchor = 'none'`)
	// What each click landed on, and when the fingers came down and
	// lifted (the page's clock): the test's eyes, not the page's.
	b.Eval(`window.__taps = []; window.__touch = {};
		(() => { const s = window.askuserState; let v = s.view; window.__viewAt = performance.now();
			Object.defineProperty(s, 'view', { get: () => v, set: x => { v = x; window.__viewAt = performance.now(); } }); })();
		document.addEventListener('touchstart', ev => { window.__touch.start = ev.timeStamp; }, true);
		document.addEventListener('touchend', ev => { window.__touch.end = ev.timeStamp; }, true);
		document.addEventListener('click', ev => { if (!ev.isTrusted) return; const o = ev.target.closest && ev.target.closest('button.option');
			window.__taps.push(o ? 'option ' + o.dataset.option : 'not an option: ' + (ev.target.id || ev.target.className || ev.target.tagName)); }, true)`)
}

// finger puts a finger down at (x, y) (down) or lifts it.
func (b *Browser) Finger(down bool, x, y float64) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 20*time.Second)
	defer cancel()
	p := input.DispatchTouchEventParams{Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{}}
	if down {
		p = input.DispatchTouchEventParams{Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: []*input.TouchPoint{{X: x, Y: y}}}
	}
	if _, err := chromedp.Call(ctx, input.DispatchTouchEvent, p); err != nil {
		b.t.Fatal(err)
	}
}

// until waits, in the page, for the first frame at which cond holds: at
// most 5 s.
func (b *Browser) Until(cond string) {
	b.t.Helper()
	ok := JSValue[bool](b, `new Promise(res => { const end = performance.now() + 5000;
		const f = () => { if (`+cond+`) res(true); else if (performance.now() > end) res(false); else requestAnimationFrame(f); }; f(); })`)
	if !ok {
		b.t.Fatalf("the page did not come to %s within 5 s:\n%s", cond, b.TextNow())
	}
}

// optionCentre scrolls option k to the middle of the window when it is not
// well inside it (a user brings it into view before tapping) and is where
// a finger taps it.
func (b *Browser) OptionCentre(k int) (x, y float64) {
	b.t.Helper()
	var at struct{ X, Y float64 }
	s := JSValue[string](b, fmt.Sprintf(`(async () => { const o = document.querySelector('button.option[data-option="%d"]');
		let r = o.getBoundingClientRect();
		if (r.top < 200 || r.bottom > innerHeight - 200) { o.scrollIntoView({ block: 'center' });
			await new Promise(f => requestAnimationFrame(() => requestAnimationFrame(f))); r = o.getBoundingClientRect(); }
		return JSON.stringify({ X: r.left + r.width / 2, Y: r.top + r.height / 2 }); })()`, k))
	if err := json.Unmarshal([]byte(s), &at); err != nil {
		b.t.Fatal(err)
	}
	return at.X, at.Y
}

// tapWhile taps option aim with a finger held 80–120 ms, the way a thumb
// taps, while change happens: change starts it once the finger is down,
// and drawn (a JavaScript condition) says the page drew it; the finger
// lifts once both the hold and the drawing are over. The tap must land on
// the option aimed at, and the core must take it: a tap on an option
// moves the choice, which is never refused.
// With shot, a screenshot of the page with the change drawn is saved there
// before the finger lifts.
func (b *Browser) TapWhile(what string, aim int, change func(), drawn, shot string) {
	b.t.Helper()
	x, y := b.OptionCentre(aim)
	if under := JSValue[string](b, fmt.Sprintf(`(() => { const o = document.elementFromPoint(%v, %v); const b = o && o.closest('button.option'); return b ? b.dataset.option : ''; })()`, x, y)); under != fmt.Sprint(aim) {
		b.t.Fatalf("%s: option %d is not under the finger (%q is):\n%s", what, aim, under, b.TextNow())
	}
	n := JSValue[int](b, `window.__taps.length`)
	top := fmt.Sprintf(`document.querySelector('button.option[data-option="%d"]').getBoundingClientRect().top`, aim)
	before := JSValue[float64](b, top)
	// The hold is the real program's timing under test (a thumb's tap
	// lasts about 100 ms), not a wait for something to happen.
	hold := time.Duration(80+rand.IntN(41)) * time.Millisecond
	start := time.Now()
	b.Finger(true, x, y)
	if change != nil {
		change()
	}
	if drawn != "" {
		b.Until(drawn)
	}
	if shot != "" {
		b.Screenshot(shot)
	}
	if d := time.Since(start); d > 400*time.Millisecond {
		b.t.Logf("%s: the change took %v to be drawn: the finger was down that long", what, d)
	}
	time.Sleep(hold - time.Since(start)) // negative: at once
	if moved := JSValue[float64](b, top) - before; moved > 0.5 || moved < -0.5 {
		b.t.Errorf("%s: option %d moved %.0f px under the finger", what, aim, moved)
	}
	b.Finger(false, 0, 0)
	b.Until(fmt.Sprintf(`window.__taps.length > %d`, n))
	if got := JSValue[string](b, fmt.Sprintf(`window.__taps[%d]`, n)); got != fmt.Sprintf("option %d", aim) {
		b.t.Errorf("%s: a tap aimed at option %d landed on %s", what, aim, got)
		return
	}
	b.WaitJS(fmt.Sprintf(`(() => { const s = window.askuserState, v = s.view, r = v && v.requests[v.focus];
		return !s.touched && !!r && r.questions[r.tab].cursor === %d; })()`, aim))
}

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
	e := NewEnv(t)
	e.WriteConfig("[ui]\ninput_guard = \"1s\"\n")
	e.StartDaemon()
	w := Start(t, e)
	b := NewBrowser(t, 390, 844)
	b.Open(w)
	b.TouchOn()
	b.WaitText("No questions waiting")
	askOnSocket(t, e, fourOptions("req-a"))
	b.WaitText("Allow Bash?", "Ask again later")
	b.Settled()
	created := JSValue[string](b, `window.askuserState.view.requests[0].createdAt`)
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
		until := JSValue[string](b, `(window.askuserState.view.notices || []).map(n => n.until || '').filter(Boolean).pop() || ''`)
		leaves, err := time.Parse(time.RFC3339Nano, until)
		if err != nil {
			t.Fatalf("the notice has no time to leave (%q): %v", until, err)
		}
		x := nextAim()
		b.OptionCentre(x)
		time.Sleep(time.Until(leaves) - 40*time.Millisecond) // the moment under test
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
	time.Sleep(time.Until(asked.Add(time.Minute)) - 40*time.Millisecond) // the moment under test
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
		if !JSValue[bool](b, `window.askuserState.view.settling`) {
			t.Logf("round %d: the guard ended before its last tap (a slow machine)", i)
			tap("just after the guard", 3-i%3, nil, "")
			continue
		}
		x := 3 - i%3
		b.OptionCentre(x)
		// The guard's end by the view last sent: what was left then, less
		// the time since it came.
		left := time.Duration(JSValue[float64](b, `(window.askuserState.view.settleLeftNs || 0) / 1e6 - (performance.now() - window.__viewAt)`) * float64(time.Millisecond))
		time.Sleep(left - 40*time.Millisecond) // the moment under test (at most the guard's 1 s)
		tap("the guard ends", x, nil, `!window.askuserState.view.settling`)
	}
	if taps != 30 {
		t.Fatalf("%d taps, want 30", taps)
	}
	b.Screenshot(filepath.Join(dir, "phone-tap-end.png"))
}
