package daemon

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"askuser/daemon/notify/ntfy"
	"askuser/daemon/notify/webpush"
	"askuser/daemon/notify/webpush/pushtest"
	"askuser/internal/config"
	"askuser/tests/testdaemon"
)

// testContact is the Web Push contact of the tests' daemons: one Apple's
// push service takes.
const testContact = "mailto:askuser-tests@example.com"

// pushDaemon runs a daemon that pushes to a fake push service on loopback,
// with one device subscribed; it returns the daemon, the device and the
// daemon's VAPID public key. A second device is subscribed whose endpoint
// hangs up, so that every push also fails once; when the test ends, the
// daemon's log (debug included) must name neither device's endpoint path
// nor keys, nor the VAPID private key (logNamesNoCapability).
func pushDaemon(t *testing.T, cfg func(*config.Config)) (*testdaemon.Daemon, *pushtest.Server, *pushtest.Device, string) {
	return pushDaemonFor(t, cfg, func(srv *pushtest.Server) *pushtest.Device { return srv.NewDevice("phone") })
}

// pushDaemonFor is pushDaemon with the device newDevice makes.
func pushDaemonFor(t *testing.T, cfg func(*config.Config), newDevice func(*pushtest.Server) *pushtest.Device) (*testdaemon.Daemon, *pushtest.Server, *pushtest.Device, string) {
	t.Helper()
	srv := pushtest.NewServer()
	t.Cleanup(srv.Close)
	d := testdaemon.ServeLogged(t, runForTest, "", func(c *config.Config) {
		c.Web.PushInsecureLoopback = true
		c.Web.PushContact = testContact
		c.Notify.Grace = config.Duration{Duration: 100 * time.Millisecond}
		if cfg != nil {
			cfg(c)
		}
	})
	dev, broken := newDevice(srv), srv.NewDevice("broken")
	srv.HangUp(broken)
	t.Cleanup(func() { logNamesNoCapability(t, d, srv, dev, broken) })
	c := testdaemon.DialRaw(t, d.Socket)
	c.Send(`{"type":"push_key"}` + "\n")
	key := c.Expect("push_key")["publicKey"].(string)
	c.Send(`{"type":"push_subscribe","subscription":` + srv.Subscription(broken) + "}\n")
	c.Expect("ok")
	c.Send(`{"type":"push_subscribe","subscription":` + srv.Subscription(dev) + "}\n")
	c.Expect("ok")
	return d, srv, dev, key
}

// logNamesNoCapability stops the daemon and fails the test if its log
// names a device's endpoint path or subscription keys, or the VAPID
// private key: each lets whoever reads it push to the device or as the
// daemon. A push that reached the service was also sent to broken, whose
// failure must be in the log, by the service's origin alone.
func logNamesNoCapability(t *testing.T, d *testdaemon.Daemon, srv *pushtest.Server, dev, broken *pushtest.Device) {
	t.Helper()
	d.Stop()
	log := d.Log.String()
	secrets := append(srv.Secrets(dev), srv.Secrets(broken)...)
	if b, err := os.ReadFile(filepath.Join(d.StateDir, "push-vapid.json")); err == nil {
		var k struct {
			Private string `json:"privateKey"`
		}
		if json.Unmarshal(b, &k) != nil || k.Private == "" {
			t.Errorf("push-vapid.json holds no private key: %s", b)
		}
		secrets = append(secrets, k.Private)
	}
	for _, s := range secrets {
		if strings.Contains(log, s) {
			t.Errorf("the daemon's log names %q, a capability:\n%s", s, log)
		}
	}
	if len(srv.Received()) > 0 && !strings.Contains(log, `msg="web push: sending failed" endpoint=`+srv.URL()+" ") {
		t.Errorf("the log does not say that sending to the device that hangs up failed, by the service's origin:\n%s", log)
	}
}

func payload(t *testing.T, m pushtest.Message) webpush.Payload {
	t.Helper()
	if m.Err != nil {
		t.Fatalf("the push could not be decrypted with the device's keys: %v", m.Err)
	}
	var p webpush.Payload
	if err := json.Unmarshal(m.Plaintext, &p); err != nil {
		t.Fatalf("push payload %q: %v", m.Plaintext, err)
	}
	return p
}

// A question reaches the subscribed device end to end encrypted, with a
// VAPID header the push service can check; the answer given elsewhere
// closes it.
func TestWebPushAnnouncesAndWithdraws(t *testing.T) {
	t.Parallel()
	d, srv, _, key := pushDaemon(t, nil)
	a := testdaemon.DialRaw(t, d.Socket)
	a.Send(`{"type":"ask_user_request","requestId":"r1","agent":{"name":"claude-main"},` + q1 + "}\n")
	a.Expect("ask_user_queued")
	got, err := srv.WaitFor(1, testdaemon.Wait)
	if err != nil {
		t.Fatal(err)
	}
	p := payload(t, got[0])
	if p.Type != "show" || p.Tag != "r1" || p.Title != "claude-main asks" || p.Body != "Which database?" || p.Badge != 1 || p.RequestID != "r1" {
		t.Errorf("payload %+v", p)
	}
	if strings.Join(p.Actions, ",") != "PostgreSQL,SQLite" || p.URL != "/?request=r1" {
		t.Errorf("actions %q, url %q", p.Actions, p.URL)
	}
	if err := pushtest.CheckVAPID(got[0].Authorization, key, srv.URL()); err != nil {
		t.Errorf("VAPID: %v", err)
	}
	if got[0].TTL != "86400" || got[0].Urgency != "normal" || got[0].Topic == "" {
		t.Errorf("TTL %q, Urgency %q, Topic %q", got[0].TTL, got[0].Urgency, got[0].Topic)
	}
	for _, name := range []string{"push-vapid.json", "push-subscriptions.json"} {
		if fi, err := os.Stat(filepath.Join(d.StateDir, name)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, want mode 0600", name, err)
		}
	}

	b := testdaemon.DialRaw(t, d.Socket)
	b.Send(answer1)
	b.Expect("ok")
	got, err = srv.WaitFor(2, testdaemon.Wait)
	if err != nil {
		t.Fatal(err)
	}
	if p := payload(t, got[1]); p.Type != "close" || p.Tag != "r1" || p.Badge != 0 {
		t.Errorf("closing push %+v", p)
	}
	if got[1].Topic != got[0].Topic {
		t.Errorf("the closing push's Topic %q differs from the show's %q: an undelivered show would not be replaced", got[1].Topic, got[0].Topic)
	}
}

// A permission prompt is urgent and offers no action: Allow is never taken
// from a notification.
func TestWebPushPermissionPromptOffersNoAction(t *testing.T) {
	t.Parallel()
	d, srv, _, _ := pushDaemon(t, nil)
	a := testdaemon.DialRaw(t, d.Socket)
	a.Send(`{"type":"ask_user_request","requestId":"p1","questions":[{"question":"Run make?","options":[{"label":"Allow","preview":"make","approvesPreview":true},{"label":"Deny"}]}]}` + "\n")
	a.Expect("ask_user_queued")
	got, err := srv.WaitFor(1, testdaemon.Wait)
	if err != nil {
		t.Fatal(err)
	}
	if p := payload(t, got[0]); len(p.Actions) != 0 || !strings.Contains(p.Title, "permission") {
		t.Errorf("payload %+v", p)
	}
	if got[0].Urgency != "high" {
		t.Errorf("Urgency %q", got[0].Urgency)
	}
}

// Three questions from three agents within the grace of each other make
// one notification.
func TestWebPushBurstIsOneNotification(t *testing.T) {
	t.Parallel()
	d, srv, _, _ := pushDaemon(t, func(c *config.Config) { c.Notify.Grace = config.Duration{Duration: time.Second} })
	a := testdaemon.DialRaw(t, d.Socket)
	a.Send(testdaemon.AskLine("r1", `"wait":false,"agent":{"name":"one"},`) + testdaemon.AskLine("r2", `"wait":false,"agent":{"name":"two"},`) +
		testdaemon.AskLine("r3", `"wait":false,"agent":{"name":"three"},`))
	for range 3 {
		a.Expect("ask_user_queued")
	}
	got, err := srv.WaitFor(1, testdaemon.Wait)
	if err != nil {
		t.Fatal(err)
	}
	if p := payload(t, got[0]); p.Title != "3 agents are waiting" || p.Tag != "r1" || p.Badge != 3 || len(p.Actions) != 0 {
		t.Errorf("payload %+v", p)
	}
	// Each answer waits for the push it makes: answers that reach the
	// notifier together are one change, and make one push.
	for i, id := range []string{"r1", "r2", "r3"} {
		a.Send(`{"type":"answer","requestId":"` + id + `","answers":["1"]}` + "\n")
		a.Expect("ok")
		if got, err = srv.WaitFor(2+i, testdaemon.Wait); err != nil {
			t.Fatal(err)
		}
	}
	var kinds []string
	for _, m := range got {
		p := payload(t, m)
		kinds = append(kinds, p.Type+":"+p.Title)
	}
	want := "show:3 agents are waiting|show:2 agents are waiting|show:three asks|close:"
	if strings.Join(kinds, "|") != want {
		t.Errorf("pushes\n%s\nwant\n%s", strings.Join(kinds, "|"), want)
	}
}

// While the user has touched a pane within notify.idle nothing is pushed:
// the first push is the reminder, once they have gone.
func TestWebPushQuietWhileTheUserIsAtAPane(t *testing.T) {
	t.Parallel()
	d, srv, _, _ := pushDaemon(t, func(c *config.Config) {
		c.Notify.Idle = config.Duration{Duration: 2 * time.Second}
		c.Notify.Repeat = config.Duration{Duration: 3 * time.Second}
	})
	pane := testdaemon.DialRaw(t, d.Socket)
	pane.Send(`{"type":"activity"}` + "\n" + `{"type":"status"}` + "\n")
	pane.Expect("status")
	a := testdaemon.DialRaw(t, d.Socket)
	a.Send(testdaemon.AskLine("r1", ""))
	a.Expect("ask_user_queued")
	got, err := srv.WaitFor(1, testdaemon.Wait)
	if err != nil {
		t.Fatal(err)
	}
	if p := payload(t, got[0]); p.Title != "An agent is still waiting" {
		t.Errorf("the first push is %+v, want the reminder", p)
	}
}

// A subscription the push service says is gone (410) is dropped.
func TestWebPushDropsAGoneSubscription(t *testing.T) {
	t.Parallel()
	d, srv, dev, _ := pushDaemon(t, nil)
	srv.Answer(dev, http.StatusGone)
	a := testdaemon.DialRaw(t, d.Socket)
	a.Send(testdaemon.AskLine("r1", `"wait":false,`))
	a.Expect("ask_user_queued")
	if _, err := srv.WaitFor(1, testdaemon.Wait); err != nil {
		t.Fatal(err)
	}
	eventually(t, filepath.Join(d.StateDir, "push-subscriptions.json"), func(s string) bool {
		return !strings.Contains(s, srv.Endpoint(dev))
	})
}

// Subscriptions are checked: https only, real keys.
func TestWebPushSubscribeIsChecked(t *testing.T) {
	t.Parallel()
	sock := testDaemon(t, func(c *config.Config) { c.Web.PushContact = testContact })
	c := testdaemon.DialRaw(t, sock)
	for sub, want := range map[string]string{
		`{"endpoint":"http://push.example/x","keys":{"p256dh":"BAAA","auth":"AAAAAAAAAAAAAAAAAAAAAA"}}`:  "subscription.endpoint",
		`{"endpoint":"http://127.0.0.1:1/x","keys":{"p256dh":"BAAA","auth":"AAAAAAAAAAAAAAAAAAAAAA"}}`:   "subscription.endpoint",
		`{"endpoint":"https://push.example/x","keys":{"p256dh":"BAAA","auth":"AAAAAAAAAAAAAAAAAAAAAA"}}`: "subscription.keys.p256dh",
	} {
		c.Send(`{"type":"push_subscribe","subscription":` + sub + "}\n")
		c.Expect("error code=invalid_request field=" + want)
	}
	c.Send(`{"type":"push_unsubscribe","endpoint":"https://push.example/x"}` + "\n")
	c.Expect("error code=not_found")
}

// fakeNtfy records what an ntfy server is sent.
type fakeNtfy struct {
	mu   sync.Mutex
	got  []string
	seen chan struct{}
}

func (f *fakeNtfy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	line := r.Method + " " + r.URL.Path
	if r.Method == http.MethodPost {
		line += " title=" + r.Header.Get("Title") + " priority=" + r.Header.Get("Priority") + " click=" + r.Header.Get("Click") +
			" sid=" + r.Header.Get("X-Sequence-ID") + " auth=" + r.Header.Get("Authorization") + " body=" + string(body)
	}
	f.mu.Lock()
	f.got = append(f.got, line)
	f.mu.Unlock()
	f.seen <- struct{}{}
	w.Write([]byte(`{"id":"x"}`))
}

// ntfy gets the question with a click URL to the page, then its deletion
// when the request is answered elsewhere.
func TestNtfyPostsAndDeletes(t *testing.T) {
	t.Parallel()
	f := &fakeNtfy{seen: make(chan struct{}, 10)}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	sock := testDaemon(t, func(c *config.Config) {
		c.Notify.Ntfy = srv.URL + "/askuser-topic"
		c.Notify.NtfyToken = "tk_secret"
		c.Notify.Grace = config.Duration{Duration: 100 * time.Millisecond}
		c.Web.PublicURL = "https://laptop.example.ts.net"
	})
	a := testdaemon.DialRaw(t, sock)
	a.Send(`{"type":"ask_user_request","requestId":"r1","agent":{"name":"claude-main"},` + q1 + "}\n")
	a.Expect("ask_user_queued")
	waitSeen(t, f.seen)
	b := testdaemon.DialRaw(t, sock)
	b.Send(answer1)
	b.Expect("ok")
	waitSeen(t, f.seen)
	sid := ntfy.SequenceID("r1")
	want := []string{
		"POST /askuser-topic title=claude-main asks priority=default click=https://laptop.example.ts.net/?request=r1 sid=" + sid + " auth=Bearer tk_secret body=Which database?",
		"DELETE /askuser-topic/" + sid,
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if strings.Join(f.got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ntfy heard\n%s\nwant\n%s", strings.Join(f.got, "\n"), strings.Join(want, "\n"))
	}
}

func waitSeen(t *testing.T, seen chan struct{}) {
	t.Helper()
	select {
	case <-seen:
	case <-time.After(testdaemon.Wait):
		t.Fatal("the ntfy server heard nothing")
	}
}

// A prompt the agent settles within the grace (its own cancel, a rule)
// never notifies: the first push is the next question's.
func TestWebPushNothingForAPromptSettledWithinTheGrace(t *testing.T) {
	t.Parallel()
	d, srv, _, _ := pushDaemon(t, func(c *config.Config) { c.Notify.Grace = config.Duration{Duration: time.Second} })
	a := testdaemon.DialRaw(t, d.Socket)
	a.Send(testdaemon.AskLine("r1", ""))
	a.Expect("ask_user_queued")
	a.Send(`{"type":"cancel","requestId":"r1"}` + "\n")
	a.Until("ok")
	b := testdaemon.DialRaw(t, d.Socket)
	b.Send(testdaemon.AskLine("r2", ""))
	b.Expect("ask_user_queued")
	got, err := srv.WaitFor(1, testdaemon.Wait)
	if err != nil {
		t.Fatal(err)
	}
	if p := payload(t, got[0]); p.Tag != "r2" || p.Badge != 1 {
		t.Errorf("the first push is %+v, want r2's alone", p)
	}
}

// An Apple device is never sent a push that shows nothing, and its
// notification is closed before it is shown again: the closing push says,
// quietly, how the question was settled. The contact Apple's service sees
// is the configured one; it refuses (403 BadJwtToken) anything else.
func TestWebPushAppleShowsSomethingEveryTime(t *testing.T) {
	t.Parallel()
	d, srv, dev, _ := pushDaemonFor(t, nil, func(srv *pushtest.Server) *pushtest.Device { return srv.NewAppleDevice("iphone") })
	a := testdaemon.DialRaw(t, d.Socket)
	a.Send(`{"type":"ask_user_request","requestId":"r1","agent":{"name":"claude-main"},` + q1 + "}\n")
	a.Expect("ask_user_queued")
	if _, err := srv.WaitFor(1, testdaemon.Wait); err != nil {
		t.Fatal(err)
	}
	testdaemon.DialRaw(t, d.Socket).Send(answer1)
	got, err := srv.WaitFor(2, testdaemon.Wait)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range got {
		if m.Status != http.StatusCreated {
			t.Fatalf("Apple's push service answered %d: %v", m.Status, m.Err)
		}
	}
	if p := payload(t, got[0]); p.Type != "show" || !p.CloseFirst {
		t.Errorf("the show %+v; want closeFirst", p)
	}
	if p := payload(t, got[1]); p.Type != "close" || !p.Settled || p.Body != "Answered from the shell; nothing waits." {
		t.Errorf("the close %+v; want it settled, saying how", p)
	}
	if n := srv.Silent(dev); n != 0 {
		t.Errorf("%d pushes showed nothing on the Apple device", n)
	}
}

// Without a contact the push services take (no web.push_contact, no https
// page), no device subscribes: the refusal names the setting. The https
// page address, configured or kept by askuserd web --tailscale, is one.
func TestWebPushNeedsARealContact(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		cfg  func(*config.Config)
		kept string
		want string // "" for refused
	}{
		{"nothing", nil, "", ""},
		{"http page", func(c *config.Config) { c.Web.PublicURL = "http://laptop:7341" }, "", ""},
		{"https page", func(c *config.Config) { c.Web.PublicURL = "https://laptop.tail1234.ts.net" }, "", "https://laptop.tail1234.ts.net"},
		{"kept by --tailscale", nil, "https://box.tail1234.ts.net", "https://box.tail1234.ts.net"},
		{"kept but local", nil, "https://box.local", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := testdaemon.Serve(t, runForTest, "", func(cfg *config.Config) {
				cfg.Web.PushInsecureLoopback = true
				if c.cfg != nil {
					c.cfg(cfg)
				}
			})
			if c.kept != "" {
				if err := os.WriteFile(filepath.Join(d.StateDir, webpush.AddressFile), []byte(c.kept+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			conn := testdaemon.DialRaw(t, d.Socket)
			conn.Send(`{"type":"push_key"}` + "\n")
			if c.want == "" {
				m := conn.Expect("error code=invalid_request field=web.push_contact")
				if msg, _ := m["message"].(string); !strings.Contains(msg, `web.push_contact = "mailto:`) || !strings.Contains(msg, "--tailscale") {
					t.Errorf("the refusal says %q", msg)
				}
				return
			}
			conn.Expect("push_key")
			local := config.Default()
			if c.cfg != nil {
				c.cfg(&local)
			}
			if got, err := webpush.Contact(local.Web, d.StateDir); err != nil || got != c.want {
				t.Errorf("contact %q (%v), want %q", got, err, c.want)
			}
		})
	}
}
