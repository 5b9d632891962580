package web

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
	"askuser/tests/webpane"
	"askuser/views/panecore"
)

// The attacks of docs/contract.md §12, each against the real `askuserd web`.

const secretQuestion = "Deploy the secret-project-7 branch?"

// waitListed waits until the daemon lists a pending request, so that the
// attacks below have question text to leak.
func waitListed(t *testing.T, e *testenv.Env) {
	t.Helper()
	testdaemon.Eventually(t, "the question to be pending", func() (bool, string) {
		out, _, _ := e.Client("", "list", "--json")
		return strings.Contains(out, secretQuestion), out
	})
}

// do sends a request and returns its status and body.
func do(t *testing.T, c *http.Client, method, u string, hdr map[string]string, body string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b), resp.Header
}

func noLeak(t *testing.T, what string, status, want int, body string) {
	t.Helper()
	if status != want {
		t.Errorf("%s: status %d, want %d; body %q", what, status, want, body)
	}
	if strings.Contains(body, "secret-project-7") {
		t.Errorf("%s: the body holds the question's text: %q", what, body)
	}
}

func TestWebAttacks(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.StartDaemon()
	w := webpane.Start(t, e)
	cmd, _, _ := e.StartClient("", "ask", "--question", secretQuestion, "--option", "Yes", "--option", "No", "--request-id", "req-attack")
	waitListed(t, e)
	plain := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	origin := strings.TrimSuffix(w.Base, "/")

	// No session: 401 everywhere, and no question text. The page itself
	// holds none: it is served to anyone who reaches the host (a navigation
	// carries no session), and its script asks for the rest.
	st, body, _ := do(t, plain, "GET", w.Base, nil, "")
	noLeak(t, "GET / without a session", st, 200, body)
	for _, path := range []string{"api/events", "api/session"} {
		st, body, _ := do(t, plain, "GET", w.Base+path, nil, "")
		noLeak(t, "GET /"+path+" without a session", st, 401, body)
	}
	st, body, _ = do(t, plain, "POST", w.Base+"api/action", map[string]string{"Origin": origin, "Content-Type": "application/json"}, `{"actions":[{"kind":"pick","item":0},{"kind":"next"}]}`)
	noLeak(t, "an answer without a session", st, 401, body)

	// A wrong secret at /login, and a secret in the query: no session, and
	// never a cookie.
	st, body, hdr := do(t, plain, "GET", w.Base+"?s="+url.QueryEscape(w.Secret()), nil, "")
	noLeak(t, "the secret in the query", st, 200, body)
	if hdr.Get("Set-Cookie") != "" {
		t.Errorf("the page set a cookie: %s", hdr.Get("Set-Cookie"))
	}
	st, body, _ = do(t, plain, "POST", w.Base+"login", map[string]string{"Origin": origin}, `{"secret":"nope"}`)
	noLeak(t, "a wrong secret at /login", st, 401, body)
	st, body, _ = do(t, plain, "POST", w.Base+"login", map[string]string{"Origin": "http://127.0.0.1:1"}, fmt.Sprintf(`{"secret":%q}`, w.Secret()))
	noLeak(t, "the secret at /login from another origin", st, 403, body)

	// The session is a token in the login's body, never a cookie; a cookie
	// holding it counts for nothing.
	c, tok := w.HTTPClient()
	st, body, hdr = do(t, plain, "POST", w.Base+"login", map[string]string{"Origin": origin}, fmt.Sprintf(`{"secret":%q}`, w.Secret()))
	if st != 200 || !strings.Contains(body, `"token"`) || hdr.Get("Set-Cookie") != "" {
		t.Errorf("logging in: %d %q, Set-Cookie %q", st, body, hdr.Get("Set-Cookie"))
	}
	for _, name := range []string{"askuser_session", "askuser_token", "token", "session"} {
		st, body, _ = do(t, plain, "GET", w.Base+"api/session", map[string]string{"Cookie": name + "=" + tok}, "")
		noLeak(t, "the token in a cookie named "+name, st, 401, body)
	}

	// Every response carries the CSP and X-Frame-Options.
	st, body, hdr = do(t, c, "GET", w.Base, nil, "")
	if st != 200 || !strings.Contains(body, `src="/static/app.js"`) {
		t.Fatalf("the page: %d %q", st, body)
	}
	if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if hdr.Get("X-Frame-Options") != "DENY" {
		t.Errorf("X-Frame-Options %q", hdr.Get("X-Frame-Options"))
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, " on") && strings.Contains(body, "onclick=") {
		t.Errorf("the page has inline script: %s", body)
	}

	good := map[string]string{"Origin": origin, "Content-Type": "application/json"}
	answer := `{"actions":[{"kind":"pick","item":0},{"kind":"next"}]}`

	// DNS rebinding: a Host this server does not serve.
	u, _ := url.Parse(w.Base)
	evil := map[string]string{"Host": "evil.example", "Origin": "http://evil.example", "Content-Type": "application/json"}
	st, body, _ = do(t, c, "GET", w.Base, map[string]string{"Host": "evil.example"}, "")
	noLeak(t, "Host: evil.example", st, 421, body)
	st, body, _ = do(t, c, "GET", w.Base+"api/events", map[string]string{"Host": "evil.example:" + u.Port()}, "")
	noLeak(t, "Host: evil.example on the events", st, 421, body)
	st, body, _ = do(t, c, "POST", w.Base+"api/action", evil, answer)
	noLeak(t, "an answer with Host: evil.example", st, 421, body)

	// A cross-origin POST, with the session token even.
	for _, o := range []string{"http://evil.example", "null", "", "http://127.0.0.1:1"} {
		h := map[string]string{"Origin": o, "Content-Type": "application/json"}
		st, body, _ = do(t, c, "POST", w.Base+"api/action", h, answer)
		noLeak(t, "a POST from origin "+o, st, 403, body)
	}
	h := map[string]string{"Origin": origin, "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"}
	st, body, _ = do(t, c, "POST", w.Base+"api/action", h, answer)
	noLeak(t, "a cross-site fetch", st, 403, body)

	// A forged token.
	id, _, _ := strings.Cut(tok, ".")
	for _, forged := range []string{id + ".forged", id, "Bearer", tok + "x"} {
		h := map[string]string{"Origin": origin, "Content-Type": "application/json", "Authorization": "Bearer " + forged}
		st, body, _ = do(t, plain, "POST", w.Base+"api/action", h, answer)
		noLeak(t, "an answer with the token "+forged, st, 401, body)
	}

	// Nothing above answered it.
	out, _, _ := e.Client("", "list", "--json")
	if !strings.Contains(out, "req-attack") {
		t.Fatalf("an attack answered the request: %s", out)
	}

	// Rotating the secret logs out every device: the token, the old
	// secret, and an open event stream all end.
	stream := openStream(t, c, w.Base)
	if _, stderr, code := testenv.RunAskuserd(e, "web", "--rotate"); code != 0 {
		t.Fatalf("askuserd web --rotate: exit %d: %s", code, stderr)
	}
	stream.waitClosed(t)
	st, body, _ = do(t, c, "GET", w.Base+"api/events", nil, "")
	noLeak(t, "the events with a token from before --rotate", st, 401, body)
	st, body, _ = do(t, c, "POST", w.Base+"api/action", good, answer)
	noLeak(t, "an answer with a token from before --rotate", st, 401, body)

	// The right answer, from the page's origin with its token, made on the
	// view the session's core sent, is taken.
	c2, _ := w.HTTPClient()
	v := settledView(t, c2, w.Base)
	act := fmt.Sprintf(`{"actions":[{"kind":"focus","item":0,"rev":%d,"request":"req-attack"},{"kind":"next","rev":%d,"request":"req-attack"}]}`, v.Rev, v.Rev)
	st, body, _ = do(t, c2, "POST", w.Base+"api/action", good, act)
	if st != 200 {
		t.Fatalf("a proper answer: %d %s", st, body)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the asking client: %v", err)
	}
}

// settledView reads the session's event stream until its view shows a
// request and no longer settles (the guard), and returns that view.
//
// It waits on that event, not on a clock: the stream has no client
// timeout (http.Client.Timeout counts the whole body, and views of a
// 900 KB request take seconds each to encode and send on a loaded,
// race-instrumented machine), only settledViewWait, generous, after which
// it says what it waited for and the last view it saw.
func settledView(t *testing.T, c *http.Client, base string) panecore.View {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), settledViewWait)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"api/events", nil)
	sc := *c
	sc.Timeout = 0
	start := time.Now()
	resp, err := sc.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("opening the event stream: %v %v", err, resp)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	views, last := 0, "none"
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			what := "the event stream ended"
			if ctx.Err() != nil {
				what = fmt.Sprintf("no view came within %v", settledViewWait)
			}
			t.Fatalf("waiting for a settled view (a request in focus, the input guard over): %s after %v (%v); %d views came, the last %s",
				what, time.Since(start).Round(time.Millisecond), err, views, last)
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var m struct {
			Type string        `json:"type"`
			View panecore.View `json:"view"`
		}
		if err := json.Unmarshal([]byte(data), &m); err != nil || m.Type != "view" {
			continue
		}
		views++
		last = fmt.Sprintf("rev %d, focus %d, settling %v (%d bytes)", m.View.Rev, m.View.Focus, m.View.Settling, len(data))
		if m.View.Focus >= 0 && !m.View.Settling {
			return m.View
		}
	}
}

// settledViewWait bounds settledView's wait for a view it must get: long
// enough for any loaded machine, short of the test binary's own timeout.
const settledViewWait = 2 * time.Minute

// stream is an open event stream.
type stream struct {
	closed chan struct{}
	body   io.Closer
}

func (s *stream) close() { s.body.Close() }

func openStream(t testing.TB, c *http.Client, base string) *stream {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"api/events", nil)
	sc := *c
	sc.Timeout = 0
	resp, err := sc.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("opening the event stream: %v %v", err, resp)
	}
	s := &stream{closed: make(chan struct{}), body: resp.Body}
	r := bufio.NewReader(resp.Body)
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(s.closed)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, r)
	}()
	t.Cleanup(func() { resp.Body.Close() })
	return s
}

func (s *stream) waitClosed(t testing.TB) {
	t.Helper()
	select {
	case <-s.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the event stream stayed open after the secret was rotated")
	}
}

func TestWebURLAndRotate(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	out, stderr, code := testenv.RunAskuserd(e, "web", "--url", "--secret")
	if code != 0 {
		t.Fatalf("askuserd web --url --secret: exit %d: %s", code, stderr)
	}
	secretFile := filepath.Join(e.State, "askuser", "web-secret")
	fi, err := os.Stat(secretFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the secret file: %v %v", fi, err)
	}
	b, _ := os.ReadFile(secretFile)
	secret := strings.TrimSpace(string(b))
	if want := "http://127.0.0.1:7341/#s=" + secret + "\n"; out != want {
		t.Fatalf("askuserd web --url --secret printed %q, want %q", out, want)
	}
	if len(secret) != 43 { // 32 bytes, base64url without padding
		t.Fatalf("secret %q: want 32 random bytes", secret)
	}
	out2, _, _ := testenv.RunAskuserd(e, "web", "--url", "--secret", "--listen", "127.0.0.1:9000")
	if out2 != "http://127.0.0.1:9000/#s="+secret+"\n" {
		t.Fatalf("with --listen: %q", out2)
	}
	if _, stderr, code := testenv.RunAskuserd(e, "web", "--rotate"); code != 0 {
		t.Fatalf("--rotate: exit %d: %s", code, stderr)
	}
	out3, _, _ := testenv.RunAskuserd(e, "web", "--url", "--secret")
	if out3 == out || !strings.HasPrefix(out3, "http://127.0.0.1:7341/#s=") {
		t.Fatalf("after --rotate --url printed %q (before %q)", out3, out)
	}
}

func TestWebRefusesNonLoopbackWithoutTLS(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:7341"} {
		_, stderr, code := testenv.RunAskuserd(e, "web", "--listen", addr)
		if code != 1 || !strings.Contains(stderr, "not a loopback address") || !strings.Contains(stderr, "TLS") || !strings.Contains(stderr, "tailscale serve") {
			t.Errorf("--listen %s without TLS: exit %d, stderr %q", addr, code, stderr)
		}
	}
	if _, err := os.Stat(e.Socket); err == nil {
		t.Error("a refused askuserd web started a daemon first")
	}
}

// With a certificate, a non-loopback address is served over TLS, and only
// for the certificate's names.
func TestWebServesTLSBeyondLoopback(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.StartDaemon()
	cert, key := selfSigned(t, e.Root, "askuser.test")
	w := webpane.StartAt(t, e, "0.0.0.0:0", "--tls-cert", cert, "--tls-key", key)
	if !strings.HasPrefix(w.Base, "https://") {
		t.Fatalf("serving %s, want https", w.Base)
	}
	u, _ := url.Parse(w.Base)
	dialer := &net.Dialer{}
	c := &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // the test's own self-signed certificate
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return dialer.DialContext(ctx, network, "127.0.0.1:"+u.Port())
			},
		}}
	base := "https://askuser.test:" + u.Port() + "/"
	st, body, _ := do(t, c, "POST", base+"login", map[string]string{"Origin": strings.TrimSuffix(base, "/")}, fmt.Sprintf(`{"secret":%q}`, w.Secret()))
	if st != 200 || !strings.Contains(body, `"token"`) {
		t.Fatalf("logging in over TLS: %d %q", st, body)
	}
	st, _, hdr := do(t, c, "GET", base, nil, "")
	if st != 200 || hdr.Get("Strict-Transport-Security") == "" {
		t.Fatalf("the page over TLS: %d, Strict-Transport-Security %q", st, hdr.Get("Strict-Transport-Security"))
	}
	st, body, _ = do(t, c, "GET", "https://evil.example:"+u.Port()+"/", nil, "")
	noLeak(t, "a name not in the certificate", st, 421, body)
}

// selfSigned writes a certificate for name and its key under dir.
func selfSigned(t *testing.T, dir, name string) (certPath, keyPath string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(k)
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certPath, keyPath
}
