package askuserd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	qrcode "github.com/skip2/go-qrcode"
	"golang.org/x/term"

	"askuser/cmd/internal/clientflags"
	"askuser/cmd/internal/command"
	"askuser/internal/config"
	"askuser/internal/shell"
	"askuser/internal/webdevices"
	"askuser/views/web"
)

type hostList []string

func (h *hostList) String() string     { return strings.Join(*h, ",") }
func (h *hostList) Set(v string) error { *h = append(*h, v); return nil }

// webOptions are `askuserd web`'s flags.
type webOptions struct {
	socket, configPath      string
	listen, tlsCert, tlsKey string
	hosts                   hostList
	publicURL               string
	printURL, rotate        bool
	tailscale               bool
	withSecret              bool     // --secret: --url and --tailscale print the long-lived secret, as before pairing links
	args                    []string // devices [revoke ID | rename ID NAME]
}

func newWebCommand(runF func(webOptions, command.Streams) error) *command.Command {
	return &command.Command{
		Name:    "web",
		Summary: "the web pane, for a browser or a phone",
		Synopsis: `web [--listen HOST:PORT] [--tls-cert FILE --tls-key FILE] [--host NAME]... [--public-url URL]
       askuserd web --url [--public-url URL]   print a pairing link: it logs in one device, once, within 10 minutes (and a QR code on a terminal)
       askuserd web --url --secret   print the address with the long-lived secret instead (it logs in any number of devices)
       askuserd web --tailscale   run tailscale serve for the page, print its https pairing link (and a QR code)
       askuserd web --rotate   make a new secret: every device is logged out and forgotten
       askuserd web devices   list the devices logged in
       askuserd web devices revoke ID   log one device out (and stop its Web Push)
       askuserd web devices rename ID NAME   rename one

Serves the web pane (the questions waiting in askuserd, for a browser or a
phone) on 127.0.0.1:7341 unless told otherwise, starting the daemon first if
none answers. Any address but a loopback one needs TLS.`,
		Args: command.Args{Max: -1, What: "devices [revoke ID | rename ID NAME]"},
		Setup: func(fs *flag.FlagSet) command.Run {
			var o webOptions
			fs.StringVar(&o.socket, "socket", "", "the daemon's Unix socket")
			fs.StringVar(&o.configPath, "config", "", "config.toml to read")
			fs.StringVar(&o.listen, "listen", "", "host:port to serve on (config web.listen; default "+web.DefaultListen+")")
			fs.StringVar(&o.tlsCert, "tls-cert", "", "TLS certificate (PEM), needed for any address but loopback (config web.tls_cert)")
			fs.StringVar(&o.tlsKey, "tls-key", "", "its private key (config web.tls_key)")
			fs.Var(&o.hosts, "host", "a further host name the page is reached by (tailscale serve, a proxy); repeatable")
			fs.StringVar(&o.publicURL, "public-url", "", "the address a phone opens when a proxy serves the page (tailscale serve): --url prints it, and its host name is served")
			fs.BoolVar(&o.printURL, "url", false, "print a pairing link (one device, once, within 10 minutes), and a QR code on a terminal, then exit")
			fs.BoolVar(&o.withSecret, "secret", false, "with --url or --tailscale: print the address with the long-lived secret instead of a pairing link")
			fs.BoolVar(&o.rotate, "rotate", false, "make a new secret, logging out and forgetting every device, then exit")
			fs.BoolVar(&o.tailscale, "tailscale", false, "run (or print) tailscale serve for the page and print its https pairing link, then exit")
			return func(args []string, s command.Streams) error { o.args = args; return runF(o, s) }
		},
	}
}

// runWeb is `askuserd web`.
func runWeb(o webOptions, s command.Streams) error {
	cfg, err := config.Load(o.configPath)
	if err != nil {
		return err
	}
	clientflags.WarnAbout(cfg, s.Err, "askuserd web")
	hosts := o.hosts
	addr := first(o.listen, cfg.Web.Listen, web.DefaultListen)
	cert, key := first(o.tlsCert, cfg.Web.TLSCert), first(o.tlsKey, cfg.Web.TLSKey)
	secretPath := filepath.Join(cfg.StateDir(), web.SecretFile)

	publicURL := first(o.publicURL, cfg.Web.PublicURL)
	if publicURL != "" {
		u, err := url.Parse(publicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return command.Usagef("--public-url %q: want an address like https://box.tailnet.ts.net/", publicURL)
		}
		hosts = append(hosts, u.Hostname())
	}

	if o.withSecret && !o.printURL && !o.tailscale {
		return command.Usagef("--secret goes with --url or --tailscale")
	}
	switch {
	case len(o.args) > 0:
		return runDevices(o.args, &cfg, cfg.SocketPath(o.socket), s)
	case o.rotate:
		return runRotate(secretPath, &cfg, cfg.SocketPath(o.socket), s)
	case o.tailscale:
		return runTailscale(addr, cfg.StateDir(), secretPath, o.withSecret, s)
	case o.printURL:
		base := first(publicURL, baseURL(addr, cert != "", hosts))
		loopback := publicURL == "" && isLoopbackListen(addr)
		// No QR code of a loopback address: no phone can open it, and its
		// 22 lines would scroll the note that says so out of sight. The
		// note comes after the address, where it is read.
		if err := printWebURL(base, secretPath, o.withSecret, !loopback, s); err != nil {
			return err
		}
		if loopback {
			_, port, _ := net.SplitHostPort(addr)
			host, _ := os.Hostname()
			fmt.Fprintf(s.Err, loopbackNote, port, port, first(host, "this-machine"), port)
		}
		return nil
	}
	if isLoopbackListen(addr) {
		// A page proxied by tailscale serve arrives with the tailnet name.
		if name, err := tailnetName(); err == nil {
			hosts = append(hosts, name)
		}
	}

	if err := web.CheckListen(addr, cert != ""); err != nil {
		return err
	}
	sock := cfg.SocketPath(o.socket)
	if err := ensureDaemon(sock, o.configPath, cfg); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	stopped := exitIfStuck(ctx, s.Err, "askuserd web")
	logger := slog.New(slog.NewTextHandler(s.Err, &slog.HandlerOptions{Level: slog.LevelInfo}))
	err = web.Serve(ctx, web.Options{
		Socket:          sock,
		MaxMessageBytes: cfg.Limits.MaxMessageBytes,
		Listen:          addr,
		TLSCert:         cert,
		TLSKey:          key,
		Hosts:           hosts,
		SecretPath:      secretPath,
		InputGuard:      cfg.UI.InputGuard.Duration,
		SoftLimit:       cfg.Limits.AnswerSoftLimit,
		RestartDaemon:   func() error { return ensureDaemon(sock, o.configPath, cfg) },
		Logger:          logger,
		Ready: func(a net.Addr) {
			// The address without its secret: `--url` prints that, on
			// purpose, rather than a log that may be kept.
			fmt.Fprintf(s.Err, "askuserd web: serving %s (%s prints a pairing link to open)\n", baseURL(a.String(), cert != "", hosts), urlCommand(o))
		},
	})
	stopped()
	if err != nil {
		fmt.Fprintf(s.Err, "askuserd web: %v\n", err)
		if errors.Is(err, syscall.EADDRINUSE) {
			if who := portHolder(addr); who != "" {
				fmt.Fprintf(s.Err, "askuserd web: %s is held by %s; stop it, or serve elsewhere with --listen 127.0.0.1:PORT\n", addr, who)
			}
		}
		return command.Exit(command.ExitFailed)
	}
	return nil
}

// urlCommand is the `askuserd web --url` that prints the address of a page
// served with o: the flags that change that address go with it, or it
// would print the default port's.
func urlCommand(o webOptions) string {
	cmd := "askuserd web --url"
	for _, f := range [][2]string{{"config", o.configPath}, {"listen", o.listen}, {"tls-cert", o.tlsCert}, {"public-url", o.publicURL}} {
		if f[1] != "" {
			cmd += " --" + f[0] + " " + shell.Quote(f[1])
		}
	}
	for _, h := range o.hosts {
		cmd += " --host " + shell.Quote(h)
	}
	return cmd
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// baseURL is the page's address for a listen address: a wildcard address
// is named by the first --host, else this machine's name.
func baseURL(addr string, tls bool, hosts []string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		host, port = addr, ""
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
		if name, err := os.Hostname(); err == nil {
			host = name
		}
	}
	if len(hosts) > 0 {
		host = hosts[0]
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	}
	return scheme + "://" + host + "/"
}

// printWebURL prints a pairing link (or, withSecret, the address with the
// secret) in the address's fragment (never sent to a server or kept in its
// logs), and a QR code of it for a phone when stdout is a terminal and qr
// says a phone can open the address (not a loopback one).
func printWebURL(base, secretPath string, withSecret, qr bool, s command.Streams) error {
	f, ok := s.Out.(*os.File)
	terminal := ok && term.IsTerminal(int(f.Fd()))
	if withSecret {
		return writeWebURL(s.Out, base, secretPath, terminal, qr)
	}
	// The secret signs the session the link is traded for: one that cannot
	// be made or read (a FIFO at its path) is said now, not at the login.
	if _, err := web.LoadSecret(secretPath); err != nil {
		return err
	}
	store := &webdevices.Store{Dir: filepath.Dir(secretPath)}
	// So is a devices file the login could not add to.
	if _, err := store.List(); err != nil {
		return err
	}
	code, expires, err := store.NewPairing()
	if err != nil {
		return err
	}
	writeLink(s.Out, withSlash(base)+"#p="+code, fmt.Sprintf("This pairing link logs in one device, once, until %s (10 minutes). `askuserd web devices` lists the devices.", expires.Local().Format("15:04")), terminal, qr)
	return nil
}

func withSlash(base string) string {
	if !strings.HasSuffix(base, "/") {
		return base + "/"
	}
	return base
}

// writeWebURL is printWebURL's output with the secret. On a terminal the
// QR code comes first and the address under it: the code is taller than
// an 80×24 terminal leaves, and would push an address printed above it off
// screen.
func writeWebURL(w io.Writer, base, secretPath string, terminal, qr bool) error {
	secret, err := web.LoadSecret(secretPath)
	if err != nil {
		return err
	}
	writeLink(w, withSlash(base)+"#s="+secret, "Anyone with this address can answer your agents' questions; `askuserd web --rotate` makes a new one.", terminal, qr)
	return nil
}

// writeLink prints u alone to a pipe; on a terminal its QR code (with qr),
// u under it, and note.
func writeLink(w io.Writer, u, note string, terminal, qr bool) {
	if !terminal {
		fmt.Fprintln(w, u)
		return
	}
	if qr {
		if code, err := qrcode.New(u, qrcode.Medium); err == nil {
			fmt.Fprint(w, code.ToSmallString(false))
		}
	}
	fmt.Fprintln(w, u)
	fmt.Fprintln(w, note)
}
