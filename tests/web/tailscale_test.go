package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"askuser/tests/termpane"
	"askuser/tests/testdaemon"
	"askuser/tests/testdir"
	"askuser/tests/testenv"
)

// fakeTailscale puts a `tailscale` on PATH that knows this machine as
// box.tail1234.ts.net and records its arguments; serve fails when failServe.
func fakeTailscale(t *testing.T, e *testenv.Env, failServe bool) (env []string, calls string) {
	t.Helper()
	dir := filepath.Join(e.Root, "fakebin")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	calls = filepath.Join(e.Root, "tailscale-calls")
	serve := "exit 0"
	if failServe {
		serve = "echo 'Access denied: serve config denied' >&2; exit 1"
	}
	script := `#!/bin/sh
echo "$*" >> ` + calls + `
case "$1" in
  status) echo '{"BackendState":"Running","Self":{"DNSName":"box.tail1234.ts.net."}}' ;;
  serve) ` + serve + ` ;;
esac
`
	testdir.WriteExecutable(t, filepath.Join(dir, "tailscale"), []byte(script), 0o700)
	return []string{"PATH=" + testenv.BinDir() + string(os.PathListSeparator) + dir + string(os.PathListSeparator) + os.Getenv("PATH")}, calls
}

// `askuserd web --url` on loopback says plainly that a phone cannot open
// the address, and what to do.
func TestWebURLSaysLoopbackIsThisMachineOnly(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	out, stderr, code := testenv.RunAskuserd(e, "web", "--url")
	if code != 0 || !strings.HasPrefix(out, "http://127.0.0.1:7341/#p=") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	for _, want := range []string{"only on this machine", "a phone cannot open it", "askuserd web --tailscale", "ssh -L 7341:127.0.0.1:7341"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
}

// On a terminal, a loopback address gets no QR code (no phone can open it):
// at 80×24 the address and the note on how a phone gets there are all on
// screen at once, nothing scrolled away.
func TestWebURLLoopbackOnATerminalHasNoQRCode(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	// cat holds the pane open on its output once askuserd has exited.
	p := termpane.StartTmux(t, e, 80, 24, testenv.Bin("askuserd")+" web --url; echo END-OF-OUTPUT; cat")
	screen := p.WaitFor("END-OF-OUTPUT")
	for _, want := range []string{"http://127.0.0.1:7341/#p=", "This pairing link logs in one device", "a phone cannot open it", "askuserd web --tailscale"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen does not show %q:\n%s", want, screen)
		}
	}
	if strings.ContainsAny(screen, "█▀▄") {
		t.Errorf("a QR code of a loopback address:\n%s", screen)
	}
}

// `askuserd web --tailscale` runs tailscale serve for the page and prints
// the tailnet's https pairing link.
func TestWebTailscaleRunsServeAndPrintsHTTPS(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	path, calls := fakeTailscale(t, e, false)
	out, stderr, code := testenv.RunAskuserdEnv(e, path, "web", "--tailscale")
	if code != 0 || !strings.HasPrefix(out, "https://box.tail1234.ts.net/#p=") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	got, _ := os.ReadFile(calls)
	if !strings.Contains(string(got), "serve --bg --https=443 http://127.0.0.1:7341") {
		t.Errorf("tailscale was called with\n%s", got)
	}
	if !strings.Contains(stderr, "ran `tailscale serve --bg --https=443 http://127.0.0.1:7341`") {
		t.Errorf("stderr: %s", stderr)
	}
	// The https address is kept as Web Push's contact: a daemon started
	// with no web.push_contact takes it, now and at later starts.
	if kept, err := os.ReadFile(e.StateFile("web-address")); err != nil || string(kept) != "https://box.tail1234.ts.net\n" {
		t.Errorf("web-address: %q %v", kept, err)
	}
	e.StartDaemon()
	c := testdaemon.DialRaw(t, e.Socket)
	c.Send(`{"type":"push_key"}` + "\n")
	c.Expect("push_key")
}

// When tailscale serve cannot run (no operator rights), the command is
// printed for the user to run.
func TestWebTailscalePrintsServeWhenItCannotRunIt(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	path, _ := fakeTailscale(t, e, true)
	out, stderr, code := testenv.RunAskuserdEnv(e, path, "web", "--tailscale")
	if code != 0 || !strings.HasPrefix(out, "https://box.tail1234.ts.net/#p=") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if !strings.Contains(stderr, "run it yourself") || !strings.Contains(stderr, "  tailscale serve --bg --https=443 http://127.0.0.1:7341") {
		t.Errorf("stderr: %s", stderr)
	}
}
