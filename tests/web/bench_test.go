package web

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"askuser/socketproto"
	"askuser/socketproto/askclient"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
	"askuser/tests/webpane"
)

// BenchmarkWebPane measures the web pane with a build without the race
// detector, the real daemon and headless Chromium:
//
//	go test -run '^$' -bench WebPane -benchtime 1x ./tests
//
// What it reports:
//
//	page-bytes          HTML + JS + CSS of the page, uncompressed
//	script-bytes/lines  the page's script, static/*.js
//	first-question-ms   opening the address → the waiting question on screen
//	visible-p50/p99-ms  a question asked (parked on the socket) → its node in an
//	                    open page, timed in the page (performance.timeOrigin + now)
//	tap-result-p50-ms   a click on Send → the asking agent has its result: the
//	                    page's action → the session's core on the server → askuserd
//	rss-idle-KiB        askuserd web with one page open
//	rss-50pages-KiB     with 50 more sessions, each with an open event stream (HTTP
//	                    clients, not tabs; each session has a core and a daemon link)
//	idle-ticks-30s      CPU clock ticks (1/100 s) over 30 s, no page open
//	idle-ticks-50pages  the same with 50 open streams
func BenchmarkWebPane(b *testing.B) {
	e, w := benchWeb(b)
	client := askclient.New(askclient.Options{SocketPath: e.Socket})
	ctx := context.Background()

	// The page's weight.
	hc, _ := w.HTTPClient()
	total := 0
	for _, p := range []string{"", "static/session.js", "static/app.js", "static/app.css"} {
		resp, err := hc.Get(w.Base + p)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		total += int(n)
	}
	b.ReportMetric(float64(total), "page-bytes")
	// The page's script: every static/*.js, bytes and lines.
	scripts, _ := filepath.Glob("../../views/web/static/*.js")
	var jsBytes, jsLines int
	for _, f := range scripts {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		jsBytes += len(data)
		jsLines += strings.Count(string(data), "\n")
	}
	b.ReportMetric(float64(jsBytes), "script-bytes")
	b.ReportMetric(float64(jsLines), "script-lines")

	// Time to the first question.
	ask := func(id string) {
		req := socketproto.AskUserRequest{Request: socketproto.Request{RequestID: id, Questions: []socketproto.Question{{
			Question: "Which database should we use?", Options: []socketproto.Option{{Label: "PostgreSQL"}, {Label: "SQLite"}}}}}}
		if _, err := client.Park(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	ask("first")
	br := webpane.NewBrowser(b, 390, 844)
	start := time.Now()
	br.Run(chromedp.Navigate(w.LoginURL()))
	br.WaitJS(`document.querySelector('button.option')`)
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "first-question-ms")
	if err := client.Decline(ctx, "first", socketproto.ViaCLI); err != nil {
		b.Fatal(err)
	}
	br.WaitJS(`window.askuserState.view && window.askuserState.view.requests.length === 0`)

	// A question asked → visible in the open page, timed in the page.
	br.Eval(`window.__seen = {}; new MutationObserver(() => {
		const r = document.querySelector('[data-request]');
		if (r && !window.__seen[r.dataset.request]) window.__seen[r.dataset.request] = performance.timeOrigin + performance.now();
	}).observe(document.getElementById('main'), {childList: true, subtree: true})`)
	var lat []float64
	for i := range 100 {
		id := fmt.Sprintf("v%d", i)
		t0 := float64(time.Now().UnixNano()) / 1e6
		ask(id)
		br.WaitJS(fmt.Sprintf(`window.__seen[%q]`, id))
		seen := webpane.JSValue[float64](br, fmt.Sprintf(`window.__seen[%q]`, id))
		lat = append(lat, seen-t0)
		if err := client.Decline(ctx, id, socketproto.ViaCLI); err != nil {
			b.Fatal(err)
		}
		br.WaitJS(`window.askuserState.view && window.askuserState.view.requests.length === 0`)
	}
	slices.Sort(lat)
	b.ReportMetric(lat[len(lat)/2], "visible-p50-ms")
	b.ReportMetric(lat[len(lat)*99/100], "visible-p99-ms")

	// A tap → the agent has its result.
	var taps []float64
	for i := range 30 {
		id := fmt.Sprintf("t%d", i)
		res := make(chan time.Time, 1)
		go func() {
			req := socketproto.AskUserRequest{Request: socketproto.Request{RequestID: id, Questions: []socketproto.Question{{
				Question: "Which database should we use?", Options: []socketproto.Option{{Label: "PostgreSQL"}, {Label: "SQLite"}}}}}}
			_, err := client.Ask(ctx, req, nil)
			if err != nil {
				b.Error(err)
			}
			res <- time.Now()
		}()
		br.WaitJS(fmt.Sprintf(`document.querySelector('[data-request=%q] button.option')`, id))
		br.Settled()
		br.Eval(`document.querySelector('button.option[data-option="1"]').click()`)
		t0 := time.Now()
		br.Eval(`document.querySelector('.question .actions .primary').click()`)
		taps = append(taps, float64((<-res).Sub(t0).Microseconds())/1000)
		br.WaitJS(`window.askuserState.view && window.askuserState.view.requests.length === 0`)
	}
	slices.Sort(taps)
	b.ReportMetric(taps[len(taps)/2], "tap-result-p50-ms")

	// Memory and idle CPU.
	b.ReportMetric(float64(rssKiB(b, w.Pid)), "rss-idle-KiB")
	var streams []*stream
	for range 50 {
		c, _ := w.HTTPClient()
		streams = append(streams, openStream(b, c, w.Base))
	}
	// The benchmark's own timing: a second for the server to finish the
	// streams' first views, so that what follows measures it idle.
	time.Sleep(time.Second)
	b.ReportMetric(float64(rssKiB(b, w.Pid)), "rss-50pages-KiB")
	t0 := testenv.CPUTicks(b, w.Pid)
	time.Sleep(30 * time.Second) // the idle period under measure
	b.ReportMetric(float64(testenv.CPUTicks(b, w.Pid)-t0), "idle-ticks-50pages")
	for _, s := range streams {
		s.close()
	}
	br.Eval(`document.body.textContent = ''`)
	br.Run(chromedp.Navigate("about:blank"))
	// The benchmark's own timing, as above: a second for the closed
	// streams to be let go, then the idle period under measure.
	time.Sleep(time.Second)
	t0 = testenv.CPUTicks(b, w.Pid)
	time.Sleep(30 * time.Second)
	b.ReportMetric(float64(testenv.CPUTicks(b, w.Pid)-t0), "idle-ticks-30s")
}

// benchEnv is an Env for a benchmark: its own directories, no *testing.T.
func benchEnv(b *testing.B) *testenv.Env {
	root, err := os.MkdirTemp("", "au-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(root) })
	e := &testenv.Env{Root: root, Runtime: filepath.Join(root, "run"), State: filepath.Join(root, "state"), Config: filepath.Join(root, "config")}
	for _, d := range []string{e.Runtime, e.State, e.Config} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	e.Socket = filepath.Join(e.Runtime, "askuser", "askuserd.sock")
	e.Pending = filepath.Join(e.State, "askuser", "pending-questions.json")
	return e
}

// waitSocket waits until a daemon answers on sock.
func waitSocket(b *testing.B, sock string) {
	testdaemon.Eventually(b, "a daemon on "+sock, func() (bool, string) {
		c, err := net.Dial("unix", sock)
		if err != nil {
			return false, err.Error()
		}
		c.Close()
		return true, ""
	})
}

var vmRSS = regexp.MustCompile(`VmRSS:\s+(\d+) kB`)

func rssKiB(b *testing.B, pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	m := vmRSS.FindSubmatch(data)
	if m == nil {
		b.Fatalf("no VmRSS in /proc/%d/status", pid)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(m[1])))
	return n
}

// benchWeb starts, for a benchmark, askuserd built without the race
// detector, its daemon and its web pane on a free loopback port; it returns
// the environment and the pane.
func benchWeb(b *testing.B) (*testenv.Env, *webpane.Server) {
	b.Helper()
	dir := b.TempDir()
	if err := testdaemon.Build(dir, false, "askuser/cmd/askuserd"); err != nil {
		b.Fatal(err)
	}
	exe := filepath.Join(dir, "askuserd")
	e := benchEnv(b)
	daemon := exec.Command(exe, "serve")
	daemon.Env = e.Environ()
	if err := daemon.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = daemon.Process.Signal(syscall.SIGTERM); _ = daemon.Wait() })
	waitSocket(b, e.Socket)
	return e, webpane.StartWith(b, e, exe, "127.0.0.1:0")
}
