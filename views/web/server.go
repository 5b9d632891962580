package web

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"embed"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"askuser/internal/statefile"
)

//go:embed static
var staticFiles embed.FS

// DefaultListen is where the page is served unless told otherwise (docs/contract.md §12).
const DefaultListen = "127.0.0.1:7341"

// Options configure Serve.
type Options struct {
	Socket          string
	MaxMessageBytes int
	Listen          string   // host:port; DefaultListen when empty
	TLSCert, TLSKey string   // both or neither
	Hosts           []string // further host names the page is reached by (tailscale serve, a proxy)
	SecretPath      string   // the secret's file (<state dir>/web-secret)
	InputGuard      time.Duration
	SoftLimit       int
	// RestartDaemon starts a daemon that died without cleaning up (see
	// panecore.Link.Restart).
	RestartDaemon func() error
	Logger        *slog.Logger
	// Ready, when set, is called with the address listened on, before
	// serving: with port 0 it says which port was taken.
	Ready func(net.Addr)
}

// CheckListen says why addr cannot be served without TLS: any address but
// a loopback one needs it (docs/contract.md §12).
func CheckListen(addr string, tls bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: want host:port, e.g. %s", addr, DefaultListen)
	}
	if tls || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("--listen %s is not a loopback address, and serving it without TLS would send the secret and every answer in clear text: "+
		"give a certificate (web.tls_cert and web.tls_key, or --tls-cert and --tls-key), "+
		"or keep the default %s and reach it from elsewhere with `tailscale serve` or `ssh -L` (README, \"The web pane\")", addr, DefaultListen)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// server is the HTTP side.
type server struct {
	o     Options
	keys  *keyring
	devs  *deviceCache
	hosts map[string]bool
	tls   bool
	stop  chan struct{}
	index []byte
	log   *slog.Logger

	mu       sync.Mutex
	sessions map[string]*session // by session id: one core each
	wg       sync.WaitGroup      // the sessions' goroutines
}

// Serve runs the web pane until ctx ends.
func Serve(ctx context.Context, o Options) error {
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return errors.New("web.tls_cert and web.tls_key go together: give both or neither")
	}
	useTLS := o.TLSCert != ""
	if err := CheckListen(o.Listen, useTLS); err != nil {
		return err
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if _, err := LoadSecret(o.SecretPath); err != nil {
		return err
	}
	s := &server{
		o:        o,
		keys:     &keyring{path: o.SecretPath},
		devs:     newDeviceCache(filepath.Dir(o.SecretPath)),
		tls:      useTLS,
		stop:     make(chan struct{}),
		log:      o.Logger,
		sessions: map[string]*session{},
	}
	if _, err := s.keys.reload(); err != nil {
		return err
	}
	if _, err := s.devs.refresh(); err != nil {
		return err
	}
	var err error
	if s.hosts, err = servedHosts(o); err != nil {
		return err
	}
	var pair tls.Certificate
	if useTLS {
		if pair, err = loadKeyPair(o.TLSCert, o.TLSKey); err != nil {
			return err
		}
	}
	if s.index, err = staticFiles.ReadFile("static/index.html"); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", o.Listen, err)
	}
	secretDone := make(chan struct{})
	go func() { defer close(secretDone); s.watchSecret() }() // until s.stop, closed below
	defer func() { <-secretDone }()
	if o.Ready != nil {
		o.Ready(ln.Addr())
	}
	limited := newConnLimit(ln, maxConnections(), o.Logger)
	hs := newHTTPServer(s.routes())
	if useTLS {
		hs.TLSConfig = &tls.Config{Certificates: []tls.Certificate{pair}}
	}
	hs.ErrorLog = slog.NewLogLogger(o.Logger.Handler(), slog.LevelDebug)
	limited.track(hs)
	served := make(chan error, 1)
	go func() {
		if useTLS {
			served <- hs.ServeTLS(limited, "", "") // the pair read above
		} else {
			served <- hs.Serve(limited)
		}
	}()
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	close(s.stop) // ends the event streams, so that Shutdown does not wait on them
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	// Every core closes (what was typed goes to the daemon as a draft)
	// once no request can start a new one.
	s.endSessions()
	s.wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// servedHosts are the host names a request may name (docs/contract.md §12: DNS
// rebinding is refused). Loopback names are always served, on any port, so
// that `ssh -L 8080:127.0.0.1:7341` works; a name of the machine only when
// it listens beyond loopback; the certificate's names under TLS; and the
// names given with --host.
func servedHosts(o Options) (map[string]bool, error) {
	hosts := map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}
	host, _, _ := net.SplitHostPort(o.Listen)
	hosts[normHost(host)] = true
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if name, err := os.Hostname(); err == nil {
			hosts[normHost(name)] = true
		}
	}
	if o.TLSCert != "" {
		names, err := certNames(o.TLSCert)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			hosts[normHost(n)] = true
		}
	}
	for _, h := range o.Hosts {
		hosts[normHost(h)] = true
	}
	delete(hosts, "")
	return hosts, nil
}

// loadKeyPair reads the certificate and its key before anything is served,
// through statefile (following links, as the files are the user's): a FIFO
// named there is refused at once, where reading it would wait for good.
func loadKeyPair(certPath, keyPath string) (tls.Certificate, error) {
	cert, err := statefile.ReadFileFollow(certPath)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("web.tls_cert: %w", err)
	}
	key, err := statefile.ReadFileFollow(keyPath)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("web.tls_key: %w", err)
	}
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("web.tls_cert %s and web.tls_key %s: %w", certPath, keyPath, err)
	}
	return pair, nil
}

func certNames(path string) ([]string, error) {
	b, err := statefile.ReadFileFollow(path)
	if err != nil {
		return nil, fmt.Errorf("web.tls_cert: %w", err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, fmt.Errorf("web.tls_cert %s: no PEM certificate in it", path)
	}
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("web.tls_cert %s: %w", path, err)
	}
	names := append([]string{}, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	return names, nil
}

// normHost is a host name without port, brackets, case or final dot.
func normHost(h string) string {
	if hh, _, err := net.SplitHostPort(h); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	return strings.ToLower(h)
}
