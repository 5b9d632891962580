package web

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"askuser/internal/webdevices"
)

// The checks of docs/contract.md §12, on every request: the Host, the
// session, the Origin of a change, and the headers every response carries.

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

// session returns the request's session id, if it presents a valid token
// whose device is still in the devices file. No cookie counts, whatever its
// name or path.
func (s *server) session(r *http.Request) (string, bool) {
	s.checkSecret()
	s.checkDevices()
	h := r.Header.Get("Authorization")
	if len(h) <= len(bearer) || !strings.EqualFold(h[:len(bearer)], bearer) {
		return "", false
	}
	id, ok := s.keys.session(strings.TrimSpace(h[len(bearer):]))
	if !ok {
		return "", false
	}
	hash := webdevices.SessionHash(id)
	if !s.devs.has(hash) {
		return "", false // revoked, or from before devices were kept
	}
	s.devs.seen(hash)
	return id, true
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
		// A connection serving the user is never the one closed to make
		// room for another (conns.go).
		defer holdConn(r)()
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
