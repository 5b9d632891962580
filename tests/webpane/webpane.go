// Package webpane drives the web pane for the end-to-end tests: the real
// `askuserd web` on a loopback port (Server), logged in to as the page and
// a paired device do, and a headless Chromium showing it (Browser), clicked,
// typed into and touched as a user would.
package webpane

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// Server is a running `askuserd web` (the real binary) on a free loopback port.
type Server struct {
	t    testing.TB
	e    *testenv.Env
	Pid  int
	Cmd  *exec.Cmd
	Base string                // http://127.0.0.1:PORT/
	Out  *testdaemon.LogBuffer // stdout and stderr
	log  *testdaemon.LogBuffer // stderr: its log
}

var servingRE = regexp.MustCompile(`serving (https?://\S+/)`)

// Start runs `askuserd web --listen 127.0.0.1:0 args…` and waits until it
// says where it serves. It is stopped with SIGTERM when the test ends.
func Start(t testing.TB, e *testenv.Env, args ...string) *Server {
	t.Helper()
	return StartAt(t, e, "127.0.0.1:0", args...)
}

// StartAt is Start on listen.
func StartAt(t testing.TB, e *testenv.Env, listen string, args ...string) *Server {
	t.Helper()
	return StartWith(t, e, testenv.Bin("askuserd"), listen, args...)
}

// StartWith is StartAt with the askuserd binary exe.
func StartWith(t testing.TB, e *testenv.Env, exe, listen string, args ...string) *Server {
	t.Helper()
	cmd := exec.Command(exe, append([]string{"web", "--listen", listen}, args...)...)
	cmd.Env = e.Environ()
	out := &testdaemon.LogBuffer{}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &Server{t: t, e: e, Cmd: cmd, Out: out, log: &testdaemon.LogBuffer{}, Pid: cmd.Process.Pid}
	e.WatchLogs(w.log)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(out, line)
			fmt.Fprintln(w.log, line)
			if m := servingRE.FindStringSubmatch(line); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
		close(found)
	}()
	t.Cleanup(w.Stop)
	select {
	case base, ok := <-found:
		if !ok {
			t.Fatalf("askuserd web exited before serving:\n%s", out)
		}
		w.Base = base
	case <-time.After(testdaemon.Wait):
		t.Fatalf("askuserd web did not start serving:\n%s", out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("askuserd web's output:\n%s", out)
		}
	})
	return w
}

// Stop sends SIGTERM and waits for askuserd web to exit; anything but a
// clean stop fails the test, except the stop past its deadline that the
// contract allows on a machine so busy that the clean stop took too long
// (§2: it says so and exits 1), as Env.StopDaemon allows the daemon's.
func (w *Server) Stop() {
	if w.Cmd.ProcessState != nil {
		return
	}
	_ = w.Cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- w.Cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil && strings.Contains(w.Out.String(), "not stopped cleanly within") {
			w.t.Logf("askuserd web exited with %v: the stop past its deadline that §2 allows on a busy machine", err)
		} else if err != nil {
			w.t.Errorf("askuserd web exited with %v after SIGTERM:\n%s", err, w.Out)
		}
	case <-time.After(testdaemon.Wait):
		_ = w.Cmd.Process.Kill()
		<-done
		w.t.Errorf("askuserd web did not stop within %v of SIGTERM", testdaemon.Wait)
	}
}

// Secret is the web secret in the Env's state dir.
func (w *Server) Secret() string {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.e.State, "askuser", "web-secret"))
	if err != nil {
		w.t.Fatal(err)
	}
	secret := strings.TrimSpace(string(b))
	w.e.Secret(secret)
	return secret
}

// LoginURL is the address `askuserd web --url --secret` prints, for this pane's port.
func (w *Server) LoginURL() string { return w.Base + "#s=" + w.Secret() }

// HTTPClient is a client that logged in with the secret as the page does:
// it presents the session token on every request. The token is returned too.
func (w *Server) HTTPClient() (*http.Client, string) {
	w.t.Helper()
	tok := strings.TrimPrefix(w.Login()["Authorization"], "Bearer ")
	if tok == "" {
		w.t.Fatal("logging in gave no session token")
	}
	w.e.SessionSeen(tok)
	// The timeout is a safety net for a loaded machine, never a measure.
	return &http.Client{Timeout: testdaemon.Settle, Transport: BearerTransport(tok)}, tok
}

// BearerTransport presents a session token on every request.
type BearerTransport string

// RoundTrip adds the token to a request that has no Authorization.
func (b BearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if r.Header.Get("Authorization") == "" {
		r.Header.Set("Authorization", "Bearer "+string(b))
	}
	return http.DefaultTransport.RoundTrip(r)
}

// --- the browser ----------------------------------------------------------------

var chromiumPath = sync.OnceValue(func() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
})

// Browser is one headless Chromium with one tab, stopped when the test ends.
type Browser struct {
	t       testing.TB
	Ctx     context.Context
	Dialogs chan string // JavaScript dialogs that opened (an injected alert)

	mu     sync.Mutex
	errors []string // uncaught exceptions and console errors of any page it showed
}

// NewBrowser starts a headless Chromium with a width×height window; a
// machine without Chromium skips the test (fails it under CI=true).
func NewBrowser(t testing.TB, width, height int) *Browser {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		testdaemon.Missing(t, "Chromium", "apt-get install chromium, or run .ci/run", "the web pane's tests need Chromium (Debian: apt-get install chromium)")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &Browser{t: t, Ctx: ctx, Dialogs: make(chan string, 8)}
	// The first action starts the browser: no timeout on it (it would
	// stop the whole browser).
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		t.Fatalf("starting Chromium (%s): %v", path, err)
	}
	b.watchErrors()
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			select {
			case b.Dialogs <- ev.Message:
			default:
			}
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	return b
}

// watchErrors records every script error of the pages this browser shows:
// a page that throws fails its test, whatever the test was looking at (a
// page stuck on "Connecting…" by an exception would otherwise only time out).
func (b *Browser) watchErrors() {
	exceptions := chromedp.Events(b.Ctx, runtime.ExceptionThrown)
	go func() {
		for ev, err := range exceptions {
			if err != nil {
				return
			}
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				msg += " " + d.Exception.Description
			}
			b.scriptError(fmt.Sprintf("uncaught: %s (%s:%d)", msg, d.URL, d.LineNumber+1))
		}
	}()
	console := chromedp.Events(b.Ctx, runtime.ConsoleAPICalled)
	go func() {
		for ev, err := range console {
			if err != nil {
				return
			}
			if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeAssert {
				continue
			}
			var args []string
			for _, a := range ev.Args {
				if a.Description != "" {
					args = append(args, a.Description)
				} else {
					args = append(args, string(a.Value))
				}
			}
			b.scriptError("console." + string(ev.Type) + ": " + strings.Join(args, " "))
		}
	}()
	b.t.Cleanup(func() {
		for _, e := range b.ScriptErrors() {
			b.t.Errorf("the page had a script error: %s", e)
		}
	})
}

func (b *Browser) scriptError(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.errors = append(b.errors, s)
}

// ScriptErrors is every script error the pages it showed had so far.
func (b *Browser) ScriptErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errors...)
}

// Run runs steps with a deadline.
func (b *Browser) Run(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("browser: %v\npage text:\n%s", err, b.TextNow())
	}
}

// JSValue evaluates a JavaScript expression (awaiting a promise) into a T.
func JSValue[T any](b *Browser, js string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluating %s: %v\npage text:\n%s", js, err, b.TextNow())
	}
	return v
}

// TextNow is the page's text, and its script errors if it had any.
func (b *Browser) TextNow() string {
	ctx, cancel := context.WithTimeout(b.Ctx, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if errs := b.ScriptErrors(); len(errs) > 0 {
		s += "\n[script errors]\n" + strings.Join(errs, "\n")
	}
	return s
}

// Open logs in with the pane's address and waits for the page proper.
func (b *Browser) Open(w *Server) {
	b.t.Helper()
	b.Run(chromedp.Navigate(w.LoginURL()))
	b.WaitJS(`!!window.askuserState && window.askuserState.link === 'open' && !!window.askuserState.view`)
}

// WaitJS waits until a JavaScript expression is true.
func (b *Browser) WaitJS(cond string) {
	b.t.Helper()
	testdaemon.Eventually(b.t, "the page to have "+cond, func() (bool, string) {
		ctx, cancel := context.WithTimeout(b.Ctx, 5*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!(`+cond+`)`))
		cancel()
		return err == nil && ok, fmt.Sprintf("(%v) its text:\n%s", err, b.TextNow())
	})
}

// WaitText waits until the page's text holds every one of subs.
func (b *Browser) WaitText(subs ...string) string {
	b.t.Helper()
	return testdaemon.Eventually(b.t, fmt.Sprintf("the page to show %q", subs), func() (bool, string) {
		s := b.TextNow()
		return testenv.ContainsAll(s, subs), s
	})
}

// WaitGone waits until the page's text no longer holds sub.
func (b *Browser) WaitGone(sub string) {
	b.t.Helper()
	testdaemon.Eventually(b.t, fmt.Sprintf("the page to stop showing %q", sub), func() (bool, string) {
		s := b.TextNow()
		return !strings.Contains(s, sub), s
	})
}

// Settled waits until the input guard no longer holds taps back, as the
// core says in the view it sends.
func (b *Browser) Settled() {
	b.t.Helper()
	b.WaitJS(`window.askuserState.view && !window.askuserState.view.settling && !document.body.classList.contains('settling')`)
}

// Click clicks (a real mouse click, at the element's centre) the element sel.
func (b *Browser) Click(sel string) {
	b.t.Helper()
	b.centre(fmt.Sprintf(`document.querySelector(%q)`, sel))
	b.Run(chromedp.Click(chromedp.CSS(sel)))
}

// ClickText clicks the visible button whose text contains text.
func (b *Browser) ClickText(text string) {
	b.t.Helper()
	sel := fmt.Sprintf(`//button[contains(normalize-space(.), %q) and not(ancestor-or-self::*[@hidden])]`, text)
	b.centre(fmt.Sprintf(`document.evaluate(%q, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue`, sel))
	b.Run(chromedp.Click(sel))
}

// centre scrolls the element the expression finds to the middle of the
// window, as a user brings a button into view before tapping it: scrolled
// only "into view", it may sit under the page's sticky header or button
// bar, and the click would land on those.
func (b *Browser) centre(expr string) {
	b.t.Helper()
	b.WaitJS(expr)
	JSValue[bool](b, `(async () => { const e = `+expr+`; if (e) e.scrollIntoView({ block: 'center' });
		await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))); return true; })()`)
}

// TypeInto types text into the element sel, key by key.
func (b *Browser) TypeInto(sel, text string) {
	b.t.Helper()
	b.centre(fmt.Sprintf(`document.querySelector(%q)`, sel))
	b.Run(chromedp.Click(chromedp.CSS(sel)), chromedp.SendKeys(chromedp.CSS(sel), text))
}

// Eval evaluates a JavaScript expression for its effect.
func (b *Browser) Eval(js string) {
	b.t.Helper()
	JSValue[any](b, js+`; null`)
}

// Attr is the attribute name of the first element sel ("" when none).
func (b *Browser) Attr(sel, name string) string {
	b.t.Helper()
	return JSValue[string](b, fmt.Sprintf(`(document.querySelector(%q) || {getAttribute: () => ""}).getAttribute(%q) || ""`, sel, name))
}

// Screenshot saves the page as a PNG at path.
func (b *Browser) Screenshot(path string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// Setup starts a daemon, `askuserd web`, and a browser logged in to it.
func Setup(t *testing.T, width, height int) (*testenv.Env, *Server, *Browser) {
	t.Helper()
	e := testenv.New(t)
	e.StartDaemon()
	w := Start(t, e)
	b := NewBrowser(t, width, height)
	b.Open(w)
	return e, w, b
}
