package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/chromedp"

	"askuser/daemon/notify/webpush/pushtest"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
	"askuser/tests/webpane"
)

// pushPage is the web page in a browser whose service worker receives what
// askuserd pushes: askuserd sends to a push service on loopback
// (pushtest), which decrypts it with the device's keys, and the test hands
// the plaintext to the page's worker through the DevTools protocol
// (ServiceWorker.deliverPushMessage), as the browser's push service would.
type pushPage struct {
	t      *testing.T
	e      *testenv.Env
	w      *webpane.Server
	b      *webpane.Browser
	srv    *pushtest.Server
	dev    *pushtest.Device
	regID  serviceworker.RegistrationID
	client *http.Client
}

func newPushPage(t *testing.T) *pushPage {
	t.Helper()
	return newPushPageOf(t, (*pushtest.Server).NewDevice)
}

// newPushPageOf is newPushPage with the device newDevice subscribes.
func newPushPageOf(t *testing.T, newDevice func(*pushtest.Server, string) *pushtest.Device) *pushPage {
	t.Helper()
	e := testenv.New(t)
	// No grace and no idle: every question is pushed at once; the policy
	// has its own tests (daemon/notify).
	e.WriteConfig("[notify]\ngrace = \"0s\"\nidle = \"0s\"\n[web]\npush_insecure_loopback = true\npush_contact = \"mailto:askuser-tests@example.com\"\n")
	e.StartDaemon()
	w := webpane.Start(t, e)
	b := webpane.NewBrowser(t, 390, 844)
	p := &pushPage{t: t, e: e, w: w, b: b, srv: pushtest.NewServer()}
	t.Cleanup(p.srv.Close)

	regs := chromedp.Events(b.Ctx, serviceworker.WorkerRegistrationUpdated)
	found := make(chan serviceworker.RegistrationID, 8)
	go func() {
		for ev, err := range regs {
			if err != nil {
				return
			}
			for _, r := range ev.Registrations {
				if !r.IsDeleted && strings.HasPrefix(r.ScopeURL, w.Base) {
					select {
					case found <- r.RegistrationID:
					default:
					}
				}
			}
		}
	}()
	if _, err := chromedp.Call(b.Ctx, serviceworker.Enable, struct{}{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.CallBrowser(b.Ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: cdpbrowser.PermissionSettingGranted, Origin: strings.TrimSuffix(w.Base, "/"),
	}); err != nil {
		t.Fatal(err)
	}
	b.Open(w)
	// The page registered its worker, which controls the page's scope.
	if !webpane.JSValue[bool](b, `navigator.serviceWorker.ready.then(r => !!r.active && r.scope === location.origin + '/')`) {
		t.Fatal("the service worker is not active at the page's scope")
	}
	select {
	case p.regID = <-found:
	case <-time.After(testdaemon.Wait):
		t.Fatal("no service worker registration was reported")
	}

	// This browser cannot reach a real push service: a device of the
	// fake one subscribes through the page's own API instead, with the
	// page's session.
	p.client, _ = w.HTTPClient()
	p.dev = newDevice(p.srv, "phone")
	// A second device's endpoint hangs up: every push fails once, and the
	// failure is logged — by the push service's origin alone (the Env's
	// logs are checked for the endpoints' paths and keys).
	broken := p.srv.NewDevice("broken")
	p.srv.HangUp(broken)
	e.Secret(p.srv.Secrets(p.dev)...)
	e.Secret(p.srv.Secrets(broken)...)
	for _, d := range []*pushtest.Device{broken, p.dev} {
		if resp := p.post("/api/push/subscribe", p.srv.Subscription(d)); resp.StatusCode != 200 {
			t.Fatalf("subscribing %s: %s", d.Name, resp.Status)
		}
	}
	e.CheckLogsToo(func(logs string) {
		if len(p.srv.Received()) > 0 && !strings.Contains(logs, `msg="web push: sending failed" endpoint=`+p.srv.URL()+" ") {
			t.Errorf("no log line says, by the push service's origin, that a push to the device that hangs up failed:\n%s", logs)
		}
	})
	return p
}

func (p *pushPage) post(path, body string) *http.Response {
	p.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, p.w.Base+strings.TrimPrefix(path, "/"), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", strings.TrimSuffix(p.w.Base, "/"))
	resp, err := p.client.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// relay waits for the n-th push askuserd sent, and delivers it to the page's
// worker; it returns the payload.
func (p *pushPage) relay(n int) map[string]any {
	p.t.Helper()
	got, err := p.srv.WaitFor(n, testdaemon.Wait)
	if err != nil {
		p.t.Fatal(err)
	}
	m := got[n-1]
	if m.Err != nil {
		p.t.Fatalf("push %d did not decrypt: %v", n, m.Err)
	}
	if _, err := chromedp.Call(p.b.Ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{
		Origin: strings.TrimSuffix(p.w.Base, "/"), RegistrationID: p.regID, Data: string(m.Plaintext),
	}); err != nil {
		p.t.Fatal(err)
	}
	var payload map[string]any
	_ = json.Unmarshal(m.Plaintext, &payload)
	return payload
}

// notificationsJS reads what the worker shows now: tag, body and actions.
const notificationsJS = `navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns =>
		ns.map(n => n.tag + ': ' + n.body + ' [' + n.actions.map(a => a.title).join(', ') + ']').sort().join('\n'))`

// notificationsNow is notifications, or ok false while the page cannot be
// asked (a tapped notification is navigating it to its request).
func (p *pushPage) notificationsNow() (string, bool) {
	ctx, cancel := context.WithTimeout(p.b.Ctx, 5*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](notificationsJS, chromedp.EvalAwaitPromise))
	return v, err == nil
}

func (p *pushPage) waitNotifications(want string) {
	p.t.Helper()
	testdaemon.Eventually(p.t, fmt.Sprintf("the worker to show\n%s\n", want), func() (bool, string) {
		got, ok := p.notificationsNow()
		return ok && got == want, got
	})
}

// tap is a tap on the notification tagged tag, or on its action: the
// DevTools protocol cannot tap a system notification, so the page asks its
// worker to run the same handler. It asks once the evaluation has returned:
// a tap that opens the page navigates it, and a navigation that came first
// would take the evaluation's reply with it ("Inspected target navigated or
// closed").
func (p *pushPage) tap(tag, action string) {
	p.b.Eval(fmt.Sprintf(`setTimeout(() => navigator.serviceWorker.ready.then(r => r.active.postMessage({type: 'click', tag: %q, action: %q})), 0)`, tag, action))
}

// ask sends a waiting request on its own connection; the answer comes on it.
func (p *pushPage) ask(id, questions string) *testdaemon.Raw {
	r := testdaemon.DialRaw(p.t, p.e.Socket)
	r.Send(`{"type":"ask_user_request","requestId":"` + id + `","agent":{"name":"claude"},` + questions + "}\n")
	r.Expect("ask_user_queued")
	return r
}

const (
	pushDBQuestion    = `"questions":[{"question":"Which database?","options":[{"label":"PostgreSQL"},{"label":"SQLite"}]}]`
	pushAllowQuestion = `"questions":[{"question":"Run make test?","options":[{"label":"Allow","preview":"make test","approvesPreview":true},{"label":"Deny"}]}]`
)

// The page is an installable app: a manifest the browser reads without
// error, its icons, and its worker.
func TestWebAppManifestAndWorker(t *testing.T) {
	t.Parallel()
	p := newPushPage(t)
	m, err := chromedp.Call(p.b.Ctx, page.GetAppManifest, page.GetAppManifestParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Errors) > 0 || !strings.HasSuffix(m.URL, "/static/manifest.json") || !strings.Contains(m.Data, `"display": "standalone"`) {
		t.Errorf("manifest %s: errors %v\n%s", m.URL, m.Errors, m.Data)
	}
	// Subscribing is a change like any other: the session, this page's
	// Origin, and the daemon's checks of the subscription.
	sub := `{"endpoint":"https://push.example/x","keys":{"p256dh":"BAAA","auth":"AAAAAAAAAAAAAAAAAAAAAA"}}`
	if resp := p.post("/api/push/subscribe", sub); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a subscription with a bad key: %s, want 400", resp.Status)
	}
	req, _ := http.NewRequest(http.MethodPost, p.w.Base+"api/push/subscribe", strings.NewReader(p.srv.Subscription(p.dev)))
	if resp, err := p.client.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a subscription without this page's Origin: %v %v, want 403", resp, err)
	}
	req, _ = http.NewRequest(http.MethodPost, p.w.Base+"api/push/subscribe", strings.NewReader(p.srv.Subscription(p.dev)))
	req.Header.Set("Origin", strings.TrimSuffix(p.w.Base, "/"))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a subscription without a session: %v %v, want 401", resp, err)
	}
	for _, icon := range []string{"icon-192.png", "icon-512.png"} {
		resp, err := http.Get(p.w.Base + "static/" + icon)
		if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" {
			t.Errorf("%s: %v %v", icon, resp, err)
		}
		if resp != nil {
			resp.Body.Close()
		}
	}
}

// A question pushed by askuserd shows as a notification with its text and
// its options as actions; answered elsewhere, the closing push closes it.
func TestWebPushShowsAndCloses(t *testing.T) {
	t.Parallel()
	p := newPushPage(t)
	agent := p.ask("r1", pushDBQuestion)
	if pl := p.relay(1); pl["type"] != "show" {
		t.Fatalf("first push %v", pl)
	}
	p.waitNotifications("r1: Which database? [PostgreSQL, SQLite]")
	answer := testdaemon.DialRaw(t, p.e.Socket)
	answer.Send(`{"type":"answer","requestId":"r1","answers":["SQLite"],"via":"cli"}` + "\n")
	answer.Expect("ok")
	agent.Expect("ask_user_response answered=true")
	if pl := p.relay(2); pl["type"] != "close" {
		t.Fatalf("second push %v", pl)
	}
	p.waitNotifications("")
}

// An action answers a single-select question through the page's core: the
// agent gets the option. A permission prompt offers no action, and a tap
// opens the page at that request.
func TestWebPushActionAnswersAndTapOpens(t *testing.T) {
	t.Parallel()
	p := newPushPage(t)
	agent := p.ask("r1", pushDBQuestion)
	p.relay(1)
	p.waitNotifications("r1: Which database? [PostgreSQL, SQLite]")
	p.b.Settled()
	p.tap("r1", "pick:1")
	m := agent.Expect("ask_user_response answered=true")
	if got := fmt.Sprint(m["answersByQuestion"]); !strings.Contains(got, "SQLite") {
		t.Errorf("the agent got %s, want SQLite", got)
	}
	p.relay(2) // the closing push
	p.waitNotifications("")

	p.ask("p1", pushAllowQuestion)
	p.relay(3)
	p.ask("r2", strings.Replace(pushDBQuestion, "Which database?", "Which cache?", 1))
	p.relay(4)
	p.waitNotifications("p1: Run make test? []\nr2: Which cache? [PostgreSQL, SQLite]")
	// A tap opens the page at the request it names.
	p.tap("p1", "")
	p.b.WaitJS(`window.askuserState.view && window.askuserState.view.focus >= 0 && window.askuserState.view.requests[window.askuserState.view.focus].id === 'p1'`)
	// The tapped notification goes (the worker closes it as it opens the
	// page, a moment later); the other stays.
	p.waitNotifications("r2: Which cache? [PostgreSQL, SQLite]")
}

// On an iPhone (a device at Apple's push service) every push shows
// something: the question's notification is closed before it is shown
// again, and when it is answered elsewhere a quiet notification says how,
// until the next question replaces it.
func TestWebPushAppleAnsweredElsewhereSaysSo(t *testing.T) {
	t.Parallel()
	p := newPushPageOf(t, (*pushtest.Server).NewAppleDevice)
	agent := p.ask("r1", pushDBQuestion)
	if pl := p.relay(1); pl["type"] != "show" || pl["closeFirst"] != true {
		t.Fatalf("first push %v", pl)
	}
	p.waitNotifications("r1: Which database? [PostgreSQL, SQLite]")
	answer := testdaemon.DialRaw(t, p.e.Socket)
	answer.Send(`{"type":"answer","requestId":"r1","answers":["SQLite"],"via":"cli"}` + "\n")
	answer.Expect("ok")
	agent.Expect("ask_user_response answered=true")
	if pl := p.relay(2); pl["type"] != "close" || pl["settled"] != true {
		t.Fatalf("second push %v", pl)
	}
	p.waitNotifications("askuser-settled: Answered from the shell; nothing waits. []")
	p.ask("r2", strings.Replace(pushDBQuestion, "Which database?", "Which cache?", 1))
	p.relay(3)
	p.waitNotifications("r2: Which cache? [PostgreSQL, SQLite]")
	if n := p.srv.Silent(p.dev); n != 0 {
		t.Errorf("%d pushes to the iPhone showed nothing", n)
	}
	if errs := p.b.ScriptErrors(); len(errs) > 0 {
		t.Errorf("script errors: %q", errs)
	}
}

// Without a contact Apple's push service takes, the page's "Notify me"
// says what to set, and no device is subscribed.
func TestWebPushRefusedWithoutAContact(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.WriteConfig("[web]\npush_insecure_loopback = true\n")
	e.StartDaemon()
	w := webpane.Start(t, e)
	client, _ := w.HTTPClient()
	req, _ := http.NewRequest(http.MethodGet, w.Base+"api/push/key", nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]string
	_ = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || body["field"] != "web.push_contact" || !strings.Contains(body["error"], "push_contact") {
		t.Errorf("push key without a contact: %s %v", resp.Status, body)
	}
}

// A device revoked from the CLI loses its Web Push subscription too: the
// daemon forgets the endpoint the device subscribed through the page.
func TestWebPushRevokedDeviceUnsubscribed(t *testing.T) {
	t.Parallel()
	p := newPushPage(t)
	endpoint := p.srv.Endpoint(p.dev)
	subs := p.e.StateFile("push-subscriptions.json")
	if b, err := os.ReadFile(subs); err != nil || !strings.Contains(string(b), endpoint) {
		t.Fatalf("the daemon does not keep the subscription: %v", err)
	}
	out := devicesCLI(t, p.e)
	m := regexp.MustCompile(`(?m)^([0-9a-f]{6})\s+.*\s+yes$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no device listed with Web Push:\n%s", out)
	}
	if got := devicesCLI(t, p.e, "revoke", m[1]); !strings.Contains(got, "Web Push subscription was dropped") {
		t.Errorf("revoke said %q", got)
	}
	if b, _ := os.ReadFile(subs); strings.Contains(string(b), endpoint) {
		t.Errorf("the revoked device's endpoint is still subscribed:\n%s", b)
	}
	resp, err := p.client.Get(p.w.Base + "api/session")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the revoked device's session: %s", resp.Status)
	}
}
