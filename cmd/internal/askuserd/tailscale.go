package askuserd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"time"

	"askuser/cmd/internal/command"
	"askuser/daemon/notify/webpush"
	"askuser/internal/atomicfile"
)

// A phone reaches the page with a secure origin (https, so that the page
// may install and subscribe to Web Push) through `tailscale serve`: the
// tailnet's own certificate, no port opened to the world.

// tailnetName is this machine's name in the tailnet ("box.tail1234.ts.net"),
// from `tailscale status --json`; an error says why there is none.
func tailnetName() (string, error) {
	if _, err := exec.LookPath("tailscale"); err != nil {
		return "", fmt.Errorf("tailscale is not installed (https://tailscale.com/download)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, "tailscale", "status", "--json")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("tailscale status: %v %s", err, strings.TrimSpace(errb.String()))
	}
	var st struct {
		BackendState string
		Self         struct{ DNSName string }
	}
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		return "", fmt.Errorf("tailscale status --json: %v", err)
	}
	name := strings.TrimSuffix(st.Self.DNSName, ".")
	switch {
	case st.BackendState != "" && st.BackendState != "Running":
		return "", fmt.Errorf("tailscale is %s; run `tailscale up` first", st.BackendState)
	case name == "":
		return "", fmt.Errorf("tailscale knows no name for this machine (MagicDNS off?)")
	}
	return name, nil
}

// serveCommand is the `tailscale serve` that proxies the tailnet's https
// to the page on loopback.
func serveCommand(listen string) []string {
	_, port, err := net.SplitHostPort(listen)
	if err != nil {
		port = "7341"
	}
	return []string{"tailscale", "serve", "--bg", "--https=443", "http://127.0.0.1:" + port}
}

// runTailscale is `askuserd web --tailscale`: it runs tailscale serve (or
// prints it, when it cannot) and prints the https pairing link (or the address with its secret).
func runTailscale(listen, stateDir, secretPath string, withSecret bool, s command.Streams) error {
	name, err := tailnetName()
	if err != nil {
		fmt.Fprintf(s.Err, "askuserd web: %v\n", err)
		fmt.Fprintln(s.Err, "askuserd web: without Tailscale, see the README's \"The web pane\" for an SSH forward or your own certificate.")
		return command.Exit(command.ExitFailed)
	}
	if !isLoopbackListen(listen) {
		fmt.Fprintf(s.Err, "askuserd web: --tailscale proxies a loopback address; web.listen is %s\n", listen)
		return command.Exit(command.ExitUsage)
	}
	argv := serveCommand(listen)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(s.Err, "askuserd web: could not run `%s`: %v\n%s", strings.Join(argv, " "), err, out)
		fmt.Fprintf(s.Err, "askuserd web: run it yourself (as root, or after `sudo tailscale set --operator=$USER`):\n  %s\n", strings.Join(argv, " "))
	} else {
		fmt.Fprintf(s.Err, "askuserd web: ran `%s`: https://%s/ now reaches the page on this machine's tailnet.\n", strings.Join(argv, " "), name)
	}
	fmt.Fprintln(s.Err, "askuserd web: keep `askuserd web` running; it serves this name too. Set web.public_url = \"https://"+name+"\" for ntfy's links.")
	// The daemon's Web Push contact, now and at later starts: Apple's push
	// service takes an https address like this one, never localhost.
	if err := webpush.KeepAddress(stateDir, "https://"+name); err != nil && !errors.Is(err, atomicfile.ErrNotSynced) {
		fmt.Fprintf(s.Err, "askuserd web: could not keep https://%s as Web Push's contact (%v); set web.push_contact in config.toml\n", name, err)
	}
	return printWebURL("https://"+name+"/", secretPath, withSecret, true, s)
}

func isLoopbackListen(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackNote says plainly that a loopback address is this machine's only.
const loopbackNote = `askuserd web: this address works only on this machine: a phone cannot open it, so no QR code is printed.
  From a phone: askuserd web --tailscale   (Tailscale's https; Web Push needs https)
  From another computer: ssh -L %s:127.0.0.1:%s %s, then open the address there
  Or your own certificate: --listen 0.0.0.0:%s --tls-cert … --tls-key … (see the README's "The web pane")
`
