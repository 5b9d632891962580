package askuserd

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"askuser/views/web"
)

// The line `askuserd web` prints once serving names the --url command
// that prints this page's address: a page served on another port than the
// default is not found by a bare `askuserd web --url`.
func TestURLCommand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		o    webOptions
		want string
	}{
		{webOptions{}, "askuserd web --url"},
		{webOptions{listen: "127.0.0.1:17341"}, "askuserd web --url --listen 127.0.0.1:17341"},
		{webOptions{configPath: "/home/me/my config.toml", listen: "0.0.0.0:7341", tlsCert: "cert.pem", tlsKey: "key.pem", hosts: hostList{"box.lan"}},
			"askuserd web --url --config '/home/me/my config.toml' --listen 0.0.0.0:7341 --tls-cert cert.pem --host box.lan"},
		{webOptions{publicURL: "https://box.tailnet.ts.net/"}, "askuserd web --url --public-url https://box.tailnet.ts.net/"},
	} {
		if got := urlCommand(c.o); got != c.want {
			t.Errorf("urlCommand(%+v) = %q, want %q", c.o, got, c.want)
		}
	}
}

// `askuserd web --url` on a terminal ends with the address, under its QR
// code: printed above it, the address scrolled off an 80×24 terminal. To a
// pipe it prints the address alone.
func TestWriteWebURL(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), web.SecretFile)
	secret, err := web.LoadSecret(path)
	if err != nil {
		t.Fatal(err)
	}
	u := "http://127.0.0.1:7341/#s=" + secret
	var piped, tty strings.Builder
	if err := writeWebURL(&piped, "http://127.0.0.1:7341", path, false, true); err != nil || piped.String() != u+"\n" {
		t.Errorf("piped: %q, %v; want the address alone", piped.String(), err)
	}
	if err := writeWebURL(&tty, "http://127.0.0.1:7341/", path, true, true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(tty.String(), "\n"), "\n")
	if len(lines) < 20 || lines[len(lines)-2] != u || !strings.HasPrefix(lines[len(lines)-1], "Anyone with this address") || !strings.Contains(lines[0], "█") {
		t.Errorf("on a terminal, want the QR code, then the address, then the warning:\n%s", tty.String())
	}
}

// A loopback address gets no QR code, even on a terminal: no phone can
// open it, and 22 lines of code would scroll away the note that says so.
// The address and its warning stay on screen.
func TestWriteWebURLLoopbackHasNoQRCode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), web.SecretFile)
	secret, err := web.LoadSecret(path)
	if err != nil {
		t.Fatal(err)
	}
	var tty strings.Builder
	if err := writeWebURL(&tty, "http://127.0.0.1:7341/", path, true, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(tty.String(), "\n"), "\n")
	if len(lines) != 2 || lines[0] != "http://127.0.0.1:7341/#s="+secret || !strings.HasPrefix(lines[1], "Anyone with this address") || strings.Contains(tty.String(), "█") {
		t.Errorf("want the address and the warning alone:\n%s", tty.String())
	}
	if n := strings.Count(fmt.Sprintf(loopbackNote, "7341", "7341", "box", "7341"), "\n"); n > 5 || strings.Contains(loopbackNote, "its QR code") {
		t.Errorf("the loopback note is %d lines, or still names a QR code:\n%s", n, loopbackNote)
	}
}
