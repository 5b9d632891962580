package web

import (
	"context"
	"crypto/x509"
	"embed"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"askuser/socketproto"
	"askuser/socketproto/askclient"
	"askuser/views"
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
	// views.Link.Restart).
	RestartDaemon func() error
	Logger        *slog.Logger
	// Ready, when set, is called with the address listened on, before
	// serving: with port 0 it says which port was taken.
	Ready func(net.Addr)
}

// The session is a token the page keeps in its origin's storage and
// presents as "Authorization: Bearer TOKEN" on every call, the event stream
// included. Never a cookie: cookies are scoped by host, not port, so a page
// another local user serves on 127.0.0.1:Q would be sent this server's
// cookies, and could set ones (on a narrower path) that this server would be
// sent first. A header the page adds itself is sent to no other origin.
const bearer = "Bearer "

// The Content-Security-Policy: only this origin's own files, no inline
// script or style, no frames, no form posts elsewhere.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

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
	o      Options
	keys   *keyring
	hub    *hub
	client *askclient.Client
	hosts  map[string]bool
	tls    bool
	stop   chan struct{}
	index  []byte
	log    *slog.Logger
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
		o:      o,
		keys:   &keyring{path: o.SecretPath},
		hub:    newHub(),
		client: askclient.New(askclient.Options{SocketPath: o.Socket, MaxMessageBytes: o.MaxMessageBytes}),
		tls:    useTLS,
		stop:   make(chan struct{}),
		log:    o.Logger,
	}
	if _, err := s.keys.reload(); err != nil {
		return err
	}
	var err error
	if s.hosts, err = servedHosts(o); err != nil {
		return err
	}
	if s.index, err = staticFiles.ReadFile("static/index.html"); err != nil {
		return err
	}
	secretDone := make(chan struct{})
	go func() { defer close(secretDone); s.watchSecret() }()
	defer func() { <-secretDone }()

	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", o.Listen, err)
	}
	if o.Ready != nil {
		o.Ready(ln.Addr())
	}
	link := &views.Link{Socket: o.Socket, MaxBytes: o.MaxMessageBytes, Restart: o.RestartDaemon, RestartDelay: 5 * time.Second}
	linkDone := make(chan struct{})
	go func() { defer close(linkDone); link.Run(s.stop, s.hub.deliver) }()

	hs := &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(o.Logger.Handler(), slog.LevelDebug)}
	served := make(chan error, 1)
	go func() {
		if useTLS {
			served <- hs.ServeTLS(ln, o.TLSCert, o.TLSKey)
		} else {
			served <- hs.Serve(ln)
		}
	}()
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	close(s.stop) // ends the event streams, so that Shutdown does not wait on them
	s.hub.dropAll()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	<-linkDone
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

func certNames(path string) ([]string, error) {
	b, err := os.ReadFile(path)
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

// secretCheck is how often the secret's file is looked at while no request
// comes: an open event stream is ended within that of a rotation. Every
// request looks at it too (server.session), so none is let in after one.
const secretCheck = time.Second

// watchSecret ends every session when the secret changes (askuserd web
// --rotate), until the server stops. It looks at the file by its path: the
// state dir may have been deleted and written back since the start.
func (s *server) watchSecret() {
	t := time.NewTicker(secretCheck)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.checkSecret()
		}
	}
}

// checkSecret reloads a changed secret; the open pages' streams end, and
// their tokens no longer verify.
func (s *server) checkSecret() {
	if s.keys.refresh() {
		s.log.Info("the web secret changed: every session ended")
		s.hub.dropAll()
	}
}

// --- routes and checks ----------------------------------------------------------

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFiles, "static")
	files := http.FileServerFS(static)
	mux.HandleFunc("GET /{$}", s.handleIndex)
	// The page's code and style hold no question text: served to anyone
	// who may reach the host, so that the login page can load them.
	mux.Handle("GET /static/", http.StripPrefix("/static/", noIndex(files)))
	mux.HandleFunc("POST /login", s.handleLogin)
	mux.HandleFunc("GET /api/events", s.authed(s.handleEvents))
	mux.HandleFunc("GET /api/session", s.authed(func(w http.ResponseWriter, r *http.Request, _ string) { writeJSON(w, 200, map[string]any{"ok": true}) }))
	mux.HandleFunc("POST /api/draft", s.authed(s.change(s.handleDraft)))
	mux.HandleFunc("POST /api/answer", s.authed(s.change(s.handleAnswer)))
	mux.HandleFunc("POST /api/decline", s.authed(s.change(s.handleDecline)))
	mux.HandleFunc("POST /api/check", s.authed(s.change(s.handleCheck)))
	return s.guard(mux)
}

func noIndex(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") || strings.HasSuffix(r.URL.Path, ".html") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		h.ServeHTTP(w, r)
	})
}

// guard is checked before anything else: the headers every response
// carries, and the Host a request names.
func (s *server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		if s.tls {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		if !s.hosts[normHost(r.Host)] {
			// A name this server does not serve: a DNS rebinding page, or a
			// proxy that needs --host.
			writeJSON(w, http.StatusMisdirectedRequest, map[string]string{"error": "askuserd web does not serve this host name; start it with --host NAME to add one"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// session returns the request's session id, if it presents a valid token.
// No cookie counts, whatever its name or path.
func (s *server) session(r *http.Request) (string, bool) {
	s.checkSecret()
	h := r.Header.Get("Authorization")
	if len(h) <= len(bearer) || !strings.EqualFold(h[:len(bearer)], bearer) {
		return "", false
	}
	return s.keys.session(strings.TrimSpace(h[len(bearer):]))
}

// authed refuses a request without a valid session: 401 and nothing else.
func (s *server) authed(next func(http.ResponseWriter, *http.Request, string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, ok := s.session(r)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="askuserd web"`)
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "not logged in: open the address `askuserd web --url` prints"})
			return
		}
		next(w, r, id)
	}
}

// sameOrigin reports whether a change comes from this page: its Origin
// names this host (a browser always sends Origin on a POST), and the
// browser does not call it cross-site.
func (s *server) sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" || o == "null" {
		return false
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return normHost(u.Host) == normHost(r.Host) && strings.EqualFold(portOf(u), portOfHost(r.Host, u.Scheme))
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

func portOfHost(host, scheme string) string {
	if _, p, err := net.SplitHostPort(host); err == nil {
		return p
	}
	if scheme == "https" {
		return "443"
	}
	return "80"
}

// change wraps what alters the queue: it must come from this page's
// origin as well as carry the session (which no other page can present: a
// forged request needs the token, and one from a browser the Origin).
func (s *server) change(next func(http.ResponseWriter, *http.Request, string)) func(http.ResponseWriter, *http.Request, string) {
	return func(w http.ResponseWriter, r *http.Request, id string) {
		if !s.sameOrigin(r) {
			writeJSON(w, http.StatusForbidden, map[string]string{"error": "refused: the request did not come from this page (Origin)"})
			return
		}
		next(w, r, id)
	}
}

// --- pages --------------------------------------------------------------------

// handleIndex serves the page. It holds no question text and no session:
// a navigation carries no token, so the page's script logs in (the secret
// from the address, or the token this origin kept) and asks for the rest.
func (s *server) handleIndex(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(s.index)
}

// handleLogin trades the secret for a session token, in the response's
// body: the page keeps it in its origin's storage.
func (s *server) handleLogin(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(r) {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "refused: the request did not come from this page (Origin)"})
		return
	}
	s.checkSecret()
	var body struct {
		Secret string `json:"secret"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&body); err != nil || !s.keys.matches(body.Secret) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "that secret is not valid (it may have been rotated): open the address `askuserd web --url` prints"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"token": s.keys.newSession()})
}

// keepAlive is how often an idle stream carries a comment: proxies
// (tailscale serve, nginx) close streams silent for a minute, and a page
// whose phone slept learns from its silence that it must reconnect.
const keepAlive = 50 * time.Second

// handleEvents is the page's Server-Sent Events stream: the state, then
// every change.
func (s *server) handleEvents(w http.ResponseWriter, r *http.Request, _ string) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	sub := s.hub.subscribe()
	defer s.hub.unsubscribe(sub)
	rc := http.NewResponseController(w)
	// The settings the page needs first: they are the session's, not the
	// page's (which anyone who reaches the host may load).
	hello, _ := json.Marshal(map[string]any{"type": "hello", "guard": s.o.InputGuard.Milliseconds(), "softLimit": s.o.SoftLimit, "socket": s.o.Socket})
	_, _ = fmt.Fprintf(w, "data: %s\n\n", hello)
	ping := time.NewTimer(keepAlive)
	defer ping.Stop()
	for {
		var err error
		select {
		case b := <-sub.ch:
			_ = rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
			_, err = fmt.Fprintf(w, "data: %s\n\n", b)
		case <-ping.C:
			_ = rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
			_, err = io.WriteString(w, "event: ping\ndata: {}\n\n")
		case <-sub.gone:
			return
		case <-s.stop:
			return
		case <-r.Context().Done():
			return
		}
		if err != nil {
			return
		}
		fl.Flush()
		ping.Reset(keepAlive)
	}
}

// --- changes ------------------------------------------------------------------

const maxBody = 4 << 20

func readBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(v); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad request: " + err.Error()})
		return false
	}
	return true
}

// waiting finds the request the page acts on, as the daemon last said it.
func (s *server) waiting(w http.ResponseWriter, id string) (socketproto.Pending, bool) {
	p, ok := s.hub.pending(id)
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "This request is no longer waiting.", "code": string(socketproto.CodeNotFound)})
	}
	return p, ok
}

// answerBody is what the page sends about one question's answer so far.
type answerBody struct {
	ID     string      `json:"id"`
	Index  int         `json:"index"`
	Answer *pageAnswer `json:"answer"`
}

// readAnswer reads an answerBody for a request still waiting; false when
// the reply (the error) was written already.
func (s *server) readAnswer(w http.ResponseWriter, r *http.Request) (socketproto.Pending, answerBody, bool) {
	var body answerBody
	if !readBody(w, r, &body) {
		return socketproto.Pending{}, body, false
	}
	p, ok := s.waiting(w, body.ID)
	return p, body, ok
}

func (s *server) handleDraft(w http.ResponseWriter, r *http.Request, _ string) {
	p, body, ok := s.readAnswer(w, r)
	if !ok {
		return
	}
	d, err := wireDraft(p, body.Index, body.Answer)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	// The rule is checked as the user types: the draft is kept whatever
	// it holds, and the page hears what is wrong with it.
	s.reply(w, s.client.Draft(r.Context(), p.RequestID, body.Index, d, socketproto.ViaPane), "problem", typedProblem(p, body.Index, body.Answer))
}

// handleCheck says what is wrong with an answer to a typed question before
// the page moves on from it.
func (s *server) handleCheck(w http.ResponseWriter, r *http.Request, _ string) {
	p, body, ok := s.readAnswer(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "problem": typedProblem(p, body.Index, body.Answer)})
}

func (s *server) handleAnswer(w http.ResponseWriter, r *http.Request, _ string) {
	var body struct {
		ID      string        `json:"id"`
		Answers []*pageAnswer `json:"answers"`
	}
	if !readBody(w, r, &body) {
		return
	}
	p, ok := s.waiting(w, body.ID)
	if !ok {
		return
	}
	as, err := wireAnswers(p, body.Answers)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	s.reply(w, s.client.Answer(r.Context(), p.RequestID, as, socketproto.ViaPane))
}

func (s *server) handleDecline(w http.ResponseWriter, r *http.Request, _ string) {
	var body struct {
		ID string `json:"id"`
	}
	if !readBody(w, r, &body) {
		return
	}
	p, ok := s.waiting(w, body.ID)
	if !ok {
		return
	}
	s.reply(w, s.client.Decline(r.Context(), p.RequestID, socketproto.ViaPane))
}

// reply says how the daemon took a change; extra are further key, value
// pairs for a success.
func (s *server) reply(w http.ResponseWriter, err error, extra ...string) {
	if err == nil {
		out := map[string]any{"ok": true}
		for i := 0; i+1 < len(extra); i += 2 {
			out[extra[i]] = extra[i+1]
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	var pe *socketproto.Error
	if errors.As(err, &pe) {
		status := http.StatusUnprocessableEntity
		switch pe.Code {
		case socketproto.CodeNotFound, socketproto.CodeAlreadyResolved:
			status = http.StatusConflict
		case socketproto.CodeStateUnavailable:
			status = http.StatusServiceUnavailable
		}
		writeJSON(w, status, map[string]string{"error": views.Clean(pe.Error(), false), "code": string(pe.Code)})
		return
	}
	writeJSON(w, http.StatusBadGateway, map[string]string{"error": "askuserd did not take it: " + views.Clean(err.Error(), false)})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
