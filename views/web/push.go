package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"askuser/internal/webdevices"
	"askuser/socketproto"
	"askuser/socketproto/agenttext"
	"askuser/views/panecore"
)

// The page as an installable app that notifies (docs/contract.md §12 "Web
// Push"): its service worker, and the calls the page and the worker make.
// (That the user is at the page, the activity of §4, the session's core
// reports on every action.)
// Subscriptions and the key pair are the daemon's (push_key,
// push_subscribe, push_unsubscribe, §4): this server relays them, with the
// same session and request checks as every change, and keeps none.

func (s *server) pushRoutes(mux *http.ServeMux) {
	// At the root, so that the worker's scope is the whole page.
	mux.HandleFunc("GET /sw.js", s.handleWorker)
	mux.HandleFunc("GET /api/push/key", s.authed(s.handlePushKey))
	mux.HandleFunc("POST /api/push/subscribe", s.authed(s.change(s.handleSubscribe)))
	mux.HandleFunc("DELETE /api/push/subscribe", s.authed(s.change(s.handleUnsubscribe)))
	mux.HandleFunc("POST /api/notified", s.authed(s.change(s.handleNotified)))
}

func (s *server) handleWorker(w http.ResponseWriter, r *http.Request) {
	b, err := staticFiles.ReadFile("static/sw.js")
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	// A new askuserd's worker is taken at the next visit.
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(b)
}

// ask sends msg on a connection of its own and returns the daemon's reply
// (nil for a message that has none).
func (s *server) ask(msg socketproto.Message, reply bool) (socketproto.Message, error) {
	c, err := socketproto.Dial(s.o.Socket, s.o.MaxMessageBytes)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	_ = c.NetConn().SetDeadline(time.Now().Add(10 * time.Second))
	if err := c.Send(msg); err != nil || !reply {
		return nil, err
	}
	return c.Recv()
}

// relay answers the page with the daemon's reply: 200 and its JSON, or the
// daemon's error (400 for a request it refused, 404 for not_found, 502
// when it could not be reached).
func (s *server) relay(w http.ResponseWriter, msg socketproto.Message) bool {
	m, err := s.ask(msg, true)
	var pe *socketproto.Error
	switch {
	case errors.As(err, &pe):
	case err != nil:
		writeJSON(w, http.StatusBadGateway, map[string]string{"error": "askuserd could not be reached: " + err.Error()})
		return false
	default:
		if e, ok := m.(*socketproto.Error); ok {
			pe = e
		}
	}
	if pe != nil {
		status := http.StatusBadRequest
		switch pe.Code {
		case socketproto.CodeNotFound:
			status = http.StatusNotFound
		case socketproto.CodeStateUnavailable:
			status = http.StatusServiceUnavailable
		}
		writeJSON(w, status, map[string]string{"error": pe.Message, "field": pe.Field})
		return false
	}
	writeJSON(w, http.StatusOK, m)
	return true
}

func (s *server) handlePushKey(w http.ResponseWriter, r *http.Request, _ string) {
	s.relay(w, socketproto.PushKeyRequest{})
}

// maxSubscription bounds a PushSubscription's JSON: an endpoint and two keys.
const maxSubscription = 8 << 10

// handleSubscribe relays a subscription, and remembers its endpoint as
// the device's: revoking the device drops it at the daemon.
func (s *server) handleSubscribe(w http.ResponseWriter, r *http.Request, id string) {
	var sub json.RawMessage
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxSubscription)).Decode(&sub); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad request: the body must be a PushSubscription's JSON: " + err.Error()})
		return
	}
	var ep struct {
		Endpoint string `json:"endpoint"`
	}
	_ = json.Unmarshal(sub, &ep)
	if s.relay(w, socketproto.PushSubscribe{Subscription: sub}) && ep.Endpoint != "" {
		if err := s.devs.store.SetPush(webdevices.SessionHash(id), ep.Endpoint); err != nil {
			s.log.Warn("the device's Web Push endpoint was not kept", "err", err)
		}
	}
}

func (s *server) handleUnsubscribe(w http.ResponseWriter, r *http.Request, id string) {
	var body struct {
		Endpoint string `json:"endpoint"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxSubscription)).Decode(&body); err != nil || body.Endpoint == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad request: give the subscription's endpoint", "field": "endpoint"})
		return
	}
	if s.relay(w, socketproto.PushUnsubscribe{Endpoint: body.Endpoint}) {
		_ = s.devs.store.SetPush(webdevices.SessionHash(id), "")
	}
}

// handleNotified is a notification's action: the user chose option item,
// labelled label, of request's one single-select question, from the
// notification the worker showed. It goes through the session's core as a
// tap on the page would (the request opened, then the option picked), so
// the core's rules hold — the guard, Allow only once its preview was seen
// whole, first answer wins at the daemon. The label must still be the
// option's: the notification showed it, and a request changed since is
// not answered from it. "taken": false sends the worker to open the page.
func (s *server) handleNotified(w http.ResponseWriter, r *http.Request, id string) {
	var body struct {
		Request string `json:"request"`
		Item    int    `json:"item"`
		Label   string `json:"label"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&body); err != nil || body.Request == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad request: give request, item and label"})
		return
	}
	se := s.sessionFor(id)
	// A worker acting while no page is open starts the session's core:
	// give it the moment it needs to hear from the daemon.
	ready := false
	for deadline := time.Now().Add(5 * time.Second); !ready && time.Now().Before(deadline); {
		if !se.do(func() { ready = se.ready }) {
			break
		}
		if !ready {
			time.Sleep(20 * time.Millisecond)
		}
	}
	var why string
	ok := se.do(func() {
		why = se.notified(body.Request, body.Item, body.Label)
	})
	if !ok {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "the session was ending; open the page"})
		return
	}
	if why != "" {
		writeJSON(w, http.StatusOK, map[string]any{"taken": false, "why": why})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"taken": true})
}

// notified runs on the session's goroutine: "" when the choice went to the
// daemon, else why not.
func (se *session) notified(request string, item int, label string) string {
	if !se.ready {
		return "the page is not connected to askuserd yet"
	}
	v := se.core.View()
	if ref := se.core.Do(panecore.Action{Kind: panecore.Open, Request: request, Rev: v.Rev}); ref != nil {
		return ref.Text
	}
	v = se.core.View()
	if v.Focus < 0 || v.Requests[v.Focus].ID != request {
		return "that request is no longer waiting"
	}
	rv := v.Requests[v.Focus]
	if len(rv.Questions) != 1 {
		return "the request has several questions"
	}
	q := rv.Questions[0]
	if item < 0 || item >= len(q.Options) || agenttext.Clean(q.Options[item].Label, false) != label {
		return "the question changed since the notification"
	}
	if ref := se.core.Do(panecore.Action{Kind: panecore.Pick, Request: request, Item: item, Rev: v.Rev}); ref != nil {
		return ref.Text
	}
	if after := se.core.View(); after.Refusal != nil {
		return after.Refusal.Text
	}
	return ""
}
