package web

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"askuser/views/panecore"
)

// The page's side: the page itself, the login, the event stream that
// carries the view, and the actions that come back.

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFiles, "static")
	files := http.FileServerFS(static)
	mux.HandleFunc("GET /{$}", s.handleIndex)
	// The page's code and style hold no question text: served to anyone
	// who may reach the host, as the page itself is (it logs in).
	mux.Handle("GET /static/", http.StripPrefix("/static/", noIndex(files)))
	mux.HandleFunc("POST /login", s.handleLogin)
	mux.HandleFunc("GET /api/events", s.authed(s.handleEvents))
	mux.HandleFunc("GET /api/session", s.authed(func(w http.ResponseWriter, r *http.Request, _ string) { writeJSON(w, 200, map[string]any{"ok": true}) }))
	mux.HandleFunc("POST /api/action", s.authed(s.change(s.handleAction)))
	s.pushRoutes(mux)
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

// handleEvents is the page's event stream (Server-Sent Events' framing,
// read by the page with fetch so that it carries the session): the
// session's view (view.go) each time it changes.
func (s *server) handleEvents(w http.ResponseWriter, r *http.Request, id string) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	se := s.sessionFor(id)
	st, ok := se.open()
	if !ok {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "the session was ending; connect again"})
		return
	}
	defer se.closeStream(st)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	rc := http.NewResponseController(w)
	_, _ = io.WriteString(w, ": askuserd web\n\n")
	fl.Flush()
	ping := time.NewTimer(keepAlive)
	defer ping.Stop()
	for {
		var err error
		select {
		case b := <-st.ch:
			_ = rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
			_, err = fmt.Fprintf(w, "data: %s\n\n", frame(b))
		case <-ping.C:
			_ = rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
			_, err = io.WriteString(w, "event: ping\ndata: {}\n\n")
		case <-se.done:
			return // the session ended: the secret changed, or the server stops
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

// maxBody bounds what one call may send: a batch of actions, text typed
// included (an answer may be long).
const maxBody = 4 << 20

// maxActions bounds one batch.
const maxActions = 512

// handleAction applies the page's actions, in order, to the session's
// core. Each carries the view revision it was made against; the view that
// results comes on the event stream.
func (s *server) handleAction(w http.ResponseWriter, r *http.Request, id string) {
	var body struct {
		Actions []panecore.Action `json:"actions"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad request: " + err.Error()})
		return
	}
	if len(body.Actions) > maxActions {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("bad request: %d actions in one call, at most %d", len(body.Actions), maxActions)})
		return
	}
	ref, ok := s.sessionFor(id).act(body.Actions)
	if !ok {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "the session was ending; send it again"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "refusal": ref})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
