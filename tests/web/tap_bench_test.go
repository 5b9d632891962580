package web

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"askuser/socketproto"
	"askuser/socketproto/askclient"
	"askuser/tests/webpane"
)

// BenchmarkWebTap measures a tap on a phone through a network that adds
// 50 ms each way (a TCP proxy between Chromium and askuserd web, both on
// loopback), with a build without the race detector:
//
//	go test -run '^$' -bench WebTap -benchtime 1x ./tests
//
// What it reports, over 40 real taps (touchstart, 80–120 ms, touchend):
//
//	rtt-p50-ms          a request to askuserd web through the proxy and back
//	drawn-p50/p99-ms    touchend → the frame that draws the option as touched
//	                    (the page's own drawing, before any reply)
//	confirmed-p50/p99-ms touchend → the core's view with the option chosen
//	                    read from the event stream
func BenchmarkWebTap(b *testing.B) {
	e, w := benchWeb(b)
	proxy := slowProxy(b, strings.TrimSuffix(strings.TrimPrefix(w.Base, "http://"), "/"), 50*time.Millisecond)

	client := askclient.New(askclient.Options{SocketPath: e.Socket})
	req := socketproto.AskUserRequest{Request: socketproto.Request{RequestID: "tap", Questions: []socketproto.Question{{
		Question: "Which colour?", Options: []socketproto.Option{{Label: "Red"}, {Label: "Green"}, {Label: "Blue"}}}}}}
	if _, err := client.Park(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	br := webpane.NewBrowser(b, 390, 844)
	br.Run(chromedp.Navigate("http://" + proxy + "/#s=" + w.Secret()))
	br.WaitJS(`document.querySelector('button.option[data-option="2"]')`)
	br.Settled()
	br.TouchOn()

	rtt := make([]float64, 0, 20)
	for range 20 {
		rtt = append(rtt, webpane.JSValue[float64](br, `(async () => { const t = performance.now();
			await (await fetch('/static/manifest.json', { cache: 'no-store' })).text(); return performance.now() - t; })()`))
	}
	// What the page did, by its clock: the frame after the option was
	// marked touched, and the view that chose it.
	br.Eval(`window.__m = {};
		new MutationObserver(() => { const m = window.__m; if (m.aim === undefined || m.mark) return;
			if (document.querySelector('button.option.touched[data-option="' + m.aim + '"]')) { m.mark = performance.now(); requestAnimationFrame(() => { m.drawn = performance.now(); }); } })
			.observe(document.getElementById('main'), { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
		(() => { const s = window.askuserState, set = Object.getOwnPropertyDescriptor(s, 'view').set;
			Object.defineProperty(s, 'view', { get: Object.getOwnPropertyDescriptor(s, 'view').get, set: x => { set(x); const m = window.__m, r = x && x.requests[x.focus];
				if (m.aim !== undefined && !m.confirm && r && r.questions[r.tab].cursor === m.aim) m.confirm = performance.now(); } }); })()`)
	var drawn, confirmed []float64
	for i := range 40 {
		aim := 1 + i%2
		x, y := br.OptionCentre(aim)
		br.Eval(fmt.Sprintf(`window.__m = { aim: %d }`, aim))
		br.Finger(true, x, y)
		time.Sleep(time.Duration(80+i%41) * time.Millisecond) // a thumb's tap: the real program's timing
		br.Finger(false, 0, 0)
		if dir := os.Getenv("ASKUSER_WEB_SCREENSHOTS"); dir != "" && i == 0 {
			br.Until(`window.__m.drawn`)
			br.Screenshot(filepath.Join(dir, "phone-tap-sending.png")) // drawn as touched, before the reply
		}
		br.Until(`window.__m.drawn && window.__m.confirm`)
		drawn = append(drawn, webpane.JSValue[float64](br, `window.__m.drawn - window.__touch.end`))
		confirmed = append(confirmed, webpane.JSValue[float64](br, `window.__m.confirm - window.__touch.end`))
		br.WaitJS(`!window.askuserState.touched`)
	}
	pct := func(xs []float64, p int) float64 { s := slices.Clone(xs); slices.Sort(s); return s[len(s)*p/100] }
	b.ReportMetric(pct(rtt, 50), "rtt-p50-ms")
	b.ReportMetric(pct(drawn, 50), "drawn-p50-ms")
	b.ReportMetric(pct(drawn, 99), "drawn-p99-ms")
	b.ReportMetric(pct(confirmed, 50), "confirmed-p50-ms")
	b.ReportMetric(pct(confirmed, 99), "confirmed-p99-ms")
}

// slowProxy forwards TCP connections from a loopback port to target,
// holding back every piece of data delay in each direction (in order): a
// network with that latency and no limit on bandwidth. It returns its
// address.
func slowProxy(tb testing.TB, target string, delay time.Duration) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				u, err := net.Dial("tcp", target)
				if err != nil {
					c.Close()
					return
				}
				go slowCopy(u, c, delay)
				slowCopy(c, u, delay)
			}()
		}
	}()
	return l.Addr().String()
}

// slowCopy copies from src to dst, each piece delay after it was read.
func slowCopy(dst, src net.Conn, delay time.Duration) {
	type piece struct {
		at   time.Time
		data []byte
	}
	pieces := make(chan piece, 1024)
	go func() {
		defer close(pieces)
		for {
			buf := make([]byte, 32*1024)
			n, err := src.Read(buf)
			if n > 0 {
				pieces <- piece{time.Now().Add(delay), buf[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	for p := range pieces {
		time.Sleep(time.Until(p.at)) // the slow network under measure: each piece is held back for delay
		if _, err := dst.Write(p.data); err != nil {
			break
		}
	}
	for range pieces {
	}
	_ = io.Closer(dst).Close()
	_ = src.Close()
}
