package webpane

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// TouchOn turns on touch input in the browser: a touch then makes the
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

// Finger puts a finger down at (x, y) (down) or lifts it.
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

// Until waits, in the page, for the first frame at which cond holds: at
// most 5 s.
func (b *Browser) Until(cond string) {
	b.t.Helper()
	ok := JSValue[bool](b, `new Promise(res => { const end = performance.now() + 5000;
		const f = () => { if (`+cond+`) res(true); else if (performance.now() > end) res(false); else requestAnimationFrame(f); }; f(); })`)
	if !ok {
		b.t.Fatalf("the page did not come to %s within 5 s:\n%s", cond, b.TextNow())
	}
}

// OptionCentre scrolls option k to the middle of the window when it is not
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

// TapWhile taps option aim with a finger held 80–120 ms, the way a thumb
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
	time.Sleep(hold - time.Since(start)) // a thumb's tap lasts hold, the timing under test (negative: at once)
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
