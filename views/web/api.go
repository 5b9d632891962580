package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"askuser/internal/webdevices"
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
	s.deviceRoutes(mux)
	s.pushRoutes(mux)
	return bounded(s.guard(mux))
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

// handleLogin trades a pairing link's code (once, within 10 minutes) or
// the long-lived secret for a session token, in the response's body: the
// page keeps it in its origin's storage. Each login is a device.
func (s *server) handleLogin(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(r) {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "refused: the request did not come from this page (Origin)"})
		return
	}
	s.checkSecret()
	var body struct {
		Secret string `json:"secret"`
		Pair   string `json:"pair"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&body); err != nil || (body.Secret == "" && body.Pair == "") {
		// Someone trying the API by hand: say what the body is, not that
		// a secret they never sent is wrong.
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": `bad request: POST /login takes {"pair": "…"}, what follows #p= in the pairing link ` + "`askuserd web --url`" + ` prints, or {"secret": "…"}, what follows #s= in the address ` + "`askuserd web --url --secret`" + ` prints`})
		return
	}
	token, id := s.keys.newSessionID()
	ua := r.Header.Get("User-Agent")
	if body.Pair != "" {
		d, err := s.devs.store.Pair(body.Pair, ua, id)
		var pe *webdevices.PairError
		if errors.As(err, &pe) {
			writeJSON(w, http.StatusGone, map[string]string{"error": pe.Error(), "reason": string(pe.Reason)})
			return
		}
		if err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "the device could not be kept: " + err.Error()})
			return
		}
		s.log.Info("a device paired", "device", d.ID, "name", d.Name)
		writeJSON(w, http.StatusOK, map[string]string{"token": token, "device": d.ID, "name": d.Name})
		return
	}
	if !s.keys.matches(body.Secret) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "that secret is not valid (it may have been rotated): open the pairing link `askuserd web --url` prints"})
		return
	}
	d, err := s.devs.store.AddDevice(ua, id)
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "the device could not be kept: " + err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"token": token, "device": d.ID, "name": d.Name})
}

// keepAlive is how often an idle stream carries a comment: proxies
// (tailscale serve, nginx) close streams silent for a minute, and a page
// whose phone slept learns from its silence that it must reconnect.
const keepAlive = 50 * time.Second

// handleEvents is the page's event stream (Server-Sent Events' framing,
// read by the page with fetch so that it carries the session): the
// session's view (view.go) each time it changes.
func (s *server) handleEvents(w http.ResponseWriter, r *http.Request, id string) {
	if r.ContentLength != 0 {
		// It would be read by no one, and its deadline (bounded) would
		// end the stream.
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad request: GET /api/events takes no body"})
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
	if rc.Flush() != nil {
		return
	}
	ping := time.NewTimer(keepAlive)
	defer ping.Stop()
	// A page left open is a device seen, though it sends nothing.
	seen := time.NewTicker(seenEvery)
	defer seen.Stop()
	for {
		var err error
		select {
		case <-seen.C:
			s.devs.seen(webdevices.SessionHash(id))
			continue
		case b := <-st.ch:
			err = writeView(w, rc, st, b)
		case <-ping.C:
			_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
			_, err = io.WriteString(w, "event: ping\ndata: {}\n\n")
		case <-st.gone:
			return // too many streams, or one not read
		case <-se.done:
			return // the session ended: the secret changed, or the server stops
		case <-s.stop:
			return
		case <-r.Context().Done():
			return
		}
		if err == nil {
			err = rc.Flush()
		}
		if err != nil {
			return
		}
		ping.Reset(keepAlive)
	}
}

// writePiece is how much of a view goes in one write: the stream's count
// of bytes not yet written (its budget) moves with each.
const writePiece = 64 << 10

// writeView writes one view as a stream message, each piece within
// streamWriteTimeout, keeping st.unwritten current for the session's
// slow-reader rule.
func writeView(w http.ResponseWriter, rc *http.ResponseController, st *stream, view []byte) error {
	defer st.unwritten.Store(0)
	st.unwritten.Store(int64(len(view)))
	_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	if _, err := w.Write(frameHead()); err != nil {
		return err
	}
	for len(view) > 0 {
		n := min(len(view), writePiece)
		_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if _, err := w.Write(view[:n]); err != nil {
			return err
		}
		view = view[n:]
		st.unwritten.Store(int64(len(view)))
	}
	_, err := io.WriteString(w, frameTail)
	return err
}

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
