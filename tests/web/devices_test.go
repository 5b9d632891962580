package web

import (
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"askuser/tests/testenv"
	"askuser/tests/webpane"
)

// Devices, one by one (docs/contract.md §12): `askuserd web --url` prints a
// pairing link that logs in one device, once; every login is a device,
// listed, renamed and revoked from the CLI and the page; revoking one
// leaves the others.

// devicesCLI is `askuserd web devices …`'s stdout; it must succeed.
func devicesCLI(t *testing.T, e *testenv.Env, args ...string) string {
	t.Helper()
	out, stderr, code := testenv.RunAskuserd(e, append([]string{"web", "devices"}, args...)...)
	if code != 0 {
		t.Fatalf("askuserd web devices %v: exit %d: %s", args, code, stderr)
	}
	return out
}

const pixelUA = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"

// A phone pairs with the link, a second use of it is refused with a page
// that says so, the page lists the devices, renames one and revokes another
// (which is logged out while this one stays), and the CLI revokes the
// page's own device, which is logged out at once.
func TestWebPairListRenameRevokeDevices(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.StartDaemon()
	w := webpane.Start(t, e)
	e.Client("", "ask", "--no-wait", "--question", "Ship it?", "--request-id", "req-dev")

	link, _ := w.PairLink()
	b := webpane.NewBrowser(t, 390, 844)
	b.Run(chromedp.Navigate(link))
	b.WaitText("Ship it?")

	// The same link again, in another browser: refused, saying why and what to run.
	b2 := webpane.NewBrowser(t, 390, 844)
	b2.Run(chromedp.Navigate(link))
	b2.WaitText("This pairing link was used already", "askuserd web --url")
	if strings.Contains(b2.TextNow(), "Ship it?") {
		t.Fatal("a used pairing link showed the questions")
	}

	// A second device, paired by hand.
	_, code := w.PairLink()
	st, other := w.PairByHand(code, pixelUA)
	if st != 200 || other["name"] != "Android Chrome" {
		t.Fatalf("pairing by hand: %d %v", st, other)
	}
	if st, again := w.PairByHand(code, pixelUA); st != http.StatusGone || again["reason"] != "used" {
		t.Fatalf("the code a second time: %d %v", st, again)
	}

	// The page lists both, itself marked.
	b.Click("#devices")
	b.WaitText("Headless Chrome on Linux (this device)", "Android Chrome", "paired just now")
	if s := b.TextNow(); strings.Contains(s, "Ship it?") {
		t.Errorf("the Devices list showed a question too:\n%s", s)
	}
	if os.Getenv("ASKUSER_WEB_DEVICES_SHOT") != "" {
		b.Screenshot(os.Getenv("ASKUSER_WEB_DEVICES_SHOT"))
	}

	// Renamed from the page; the CLI lists the new name.
	b.Click(".device-item:first-of-type .rename")
	b.WaitJS(`document.activeElement && document.activeElement.id.startsWith('device-name-')`)
	b.Eval(`document.activeElement.value = ''`)
	b.TypeInto("input[id^=device-name-]", "Desk browser")
	b.ClickText("Save name")
	b.WaitText("Renamed: Desk browser.", "Desk browser (this device)")
	if out := devicesCLI(t, e); !strings.Contains(out, "Desk browser") || !strings.Contains(out, other["device"]+"  Android Chrome") {
		t.Errorf("askuserd web devices after the rename:\n%s", out)
	}

	// The other device revoked from the page: logged out; this one stays.
	b.Click(".device-item[data-device='" + other["device"] + "'] .revoke")
	b.WaitText("Revoked Android Chrome: it is logged out; the others stay.")
	b.WaitGone("Android Chrome\n")
	hc := &http.Client{Timeout: 5 * time.Second}
	if st, body, _ := do(t, hc, "GET", w.Base+"api/session", map[string]string{"Authorization": "Bearer " + other["token"]}, ""); st != 401 {
		t.Errorf("the revoked device's session: %d %s", st, body)
	}
	b.Click("#devices")
	b.WaitText("Ship it?")

	// This device revoked from the CLI: the open page is logged out at once.
	out := devicesCLI(t, e)
	m := regexp.MustCompile(`(?m)^([0-9a-f]{6})\s+Desk browser`).FindStringSubmatch(out)
	if m == nil || strings.Contains(out, "Android Chrome") {
		t.Fatalf("askuserd web devices:\n%s", out)
	}
	if got := devicesCLI(t, e, "revoke", m[1]); !strings.Contains(got, "Revoked "+m[1]+" (Desk browser)") {
		t.Errorf("revoke said %q", got)
	}
	b.WaitText("Logged out")
	b.WaitGone("Ship it?")
	if out := devicesCLI(t, e); !strings.Contains(out, "No devices.") {
		t.Errorf("after revoking both:\n%s", out)
	}
	if _, stderr, code := testenv.RunAskuserd(e, "web", "devices", "revoke", m[1]); code != 2 || !strings.Contains(stderr, "no such device") {
		t.Errorf("revoking it again: exit %d, %s", code, stderr)
	}
}

// A pairing link used after its 10 minutes is refused (the clock is the
// unit test's, internal/webdevices); a made-up one is refused too, with
// what to run. --rotate forgets every device.
func TestWebPairingRefusedAndRotateForgetsDevices(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.StartDaemon()
	w := webpane.Start(t, e)
	if st, m := w.PairByHand("made-up-code", pixelUA); st != http.StatusGone || m["reason"] != "unknown" || !strings.Contains(m["error"], "askuserd web --url") {
		t.Fatalf("a made-up code: %d %v", st, m)
	}
	_, code := w.PairLink()
	if st, m := w.PairByHand(code, pixelUA); st != 200 {
		t.Fatalf("pairing: %d %v", st, m)
	}
	c, tok := w.HTTPClient() // the long-lived secret's login is a device too
	if out := devicesCLI(t, e); strings.Count(out, "\n") != 3 {
		t.Fatalf("two devices and a header, got:\n%s", out)
	}
	if _, stderr, code := testenv.RunAskuserd(e, "web", "--rotate"); code != 0 {
		t.Fatalf("--rotate: %d %s", code, stderr)
	}
	if out := devicesCLI(t, e); !strings.Contains(out, "No devices.") {
		t.Errorf("after --rotate:\n%s", out)
	}
	resp, err := c.Get(w.Base + "api/session")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("a session (%s…) after --rotate: %d", tok[:4], resp.StatusCode)
	}
}

// readmeBlock is the sh block under the README heading, as a user would
// copy it.
func readmeBlock(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), heading+"\n")
	if !ok {
		t.Fatalf("README.md has no %q section", heading)
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	if !ok {
		t.Fatalf("the %q section has no ```sh block", heading)
	}
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatalf("the %q section's block is not closed", heading)
	}
	return block
}

// The README's curl lines, run as printed (on this test's port): they
// pair a device, list it, and revoke it.
func TestWebDevicesReadmeCurl(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	e := testenv.New(t)
	e.StartDaemon()
	w := webpane.Start(t, e)
	block := readmeBlock(t, "### Devices by hand")
	base := strings.TrimSuffix(w.Base, "/")
	for _, s := range []string{"base=http://127.0.0.1:7341", "askuserd web --url"} {
		if !strings.Contains(block, s) {
			t.Fatalf("the README's block lacks %q:\n%s", s, block)
		}
	}
	script := strings.Replace(block, "base=http://127.0.0.1:7341", "base="+base, 1)
	script = strings.Replace(script, "askuserd web --url", testenv.Bin("askuserd")+" web --url --listen "+strings.TrimPrefix(base, "http://"), 1)
	cmd := exec.Command("sh", "-eu", "-c", script)
	cmd.Env = e.Environ()
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("the README's curl lines: %v\nstdout: %s\nstderr: %s", err, out.String(), errb.String())
	}
	m := regexp.MustCompile(`^\{"devices":\[\{"id":"([0-9a-f]{6})","name":"curl",[^\n]*"this":true\}\]\}\n\{"name":"curl","ok":true,"revoked":"([0-9a-f]{6})"\}\n$`).FindStringSubmatch(out.String())
	if m == nil || m[1] != m[2] {
		t.Fatalf("the README's curl lines printed:\n%s", out.String())
	}
	if got := devicesCLI(t, e); !strings.Contains(got, "No devices.") {
		t.Errorf("after the README's revoke:\n%s", got)
	}
}

// Devices are kept in the state dir: a device paired before askuserd web
// restarts is still logged in after, with its name.
func TestWebDevicesSurviveRestart(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.StartDaemon()
	w := webpane.Start(t, e)
	_, code := w.PairLink()
	st, dev := w.PairByHand(code, pixelUA)
	if st != 200 {
		t.Fatalf("pairing: %d %v", st, dev)
	}
	w.Stop()
	w2 := webpane.Start(t, e)
	hc := &http.Client{Timeout: 5 * time.Second}
	if st, body, _ := do(t, hc, "GET", w2.Base+"api/devices", map[string]string{"Authorization": "Bearer " + dev["token"]}, ""); st != 200 ||
		!strings.Contains(body, `"id":"`+dev["device"]+`","name":"Android Chrome"`) {
		t.Fatalf("after a restart: %d %s", st, body)
	}
}
