package web

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"askuser/socketproto"
	"askuser/views"
)

// hub keeps the daemon's view of the queue, as its events tell it, and
// passes every change on to the open pages. A page that connects gets the
// whole state first and then the changes, so it never has to ask again:
// no polling.
type hub struct {
	mu         sync.Mutex
	order      []string // request ids, oldest first
	reqs       map[string]socketproto.Pending
	connected  bool
	connErr    string
	conditions map[string]string // pending file or state dir trouble: key → text
	subs       map[*sub]struct{}
}

// sub is one open page's event stream. Its messages are encoded once, for
// every page; a page that stops reading (a phone asleep) is dropped when its
// backlog is full, and reconnects to a fresh state.
type sub struct {
	ch   chan []byte
	gone chan struct{} // closed when the hub drops it
	once sync.Once
}

const subBacklog = 256

func newHub() *hub {
	return &hub{reqs: map[string]socketproto.Pending{}, conditions: map[string]string{}, subs: map[*sub]struct{}{}}
}

// event is what the page receives, one JSON object per SSE message.
type event struct {
	Type      string        `json:"type"`
	Requests  []pageRequest `json:"requests,omitempty"`
	Request   *pageRequest  `json:"request,omitempty"`
	ID        string        `json:"id,omitempty"`
	Outcome   string        `json:"outcome,omitempty"`
	Via       string        `json:"via,omitempty"`
	Settled   string        `json:"settled,omitempty"` // resolved: how the agent's own prompt settled it
	Connected *bool         `json:"connected,omitempty"`
	Error     string        `json:"error,omitempty"`
	Notices   []string      `json:"notices,omitempty"`
	Now       *time.Time    `json:"now,omitempty"`
}

// deliver applies one message from the daemon link (views.Link calls it
// from its one goroutine).
func (h *hub) deliver(msg socketproto.Message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch ev := msg.(type) {
	case socketproto.Snapshot:
		h.connected, h.connErr = true, ""
		h.order = h.order[:0]
		h.reqs = map[string]socketproto.Pending{}
		for _, p := range ev.Pending {
			h.put(p)
		}
		// The daemon says again, right after a snapshot, every trouble
		// that still holds.
		h.conditions = map[string]string{}
		h.broadcast(h.snapshotLocked())
	case socketproto.RequestAdded:
		h.put(ev.Request)
		r := toPage(ev.Request)
		h.broadcast(event{Type: "added", Request: &r})
	case socketproto.RequestUpdated:
		h.put(ev.Request)
		r := toPage(ev.Request)
		h.broadcast(event{Type: "updated", Request: &r})
	case socketproto.RequestResolved:
		if _, ok := h.reqs[ev.RequestID]; !ok {
			return
		}
		delete(h.reqs, ev.RequestID)
		for i, id := range h.order {
			if id == ev.RequestID {
				h.order = append(h.order[:i], h.order[i+1:]...)
				break
			}
		}
		h.broadcast(event{Type: "resolved", ID: ev.RequestID, Outcome: string(ev.Outcome), Via: views.Clean(string(ev.Via), false),
			Settled: views.Clean(ev.Settled, false)})
	case socketproto.PendingFileError:
		h.condition("pending_file", ev.Error, fmt.Sprintf("Pending file %s: %s", views.Clean(ev.Path, false), views.Clean(ev.Error, false)))
	case socketproto.StateDirError:
		h.condition("state_dir", ev.Error, fmt.Sprintf("State dir %s cannot take writes: %s", views.Clean(ev.Path, false), views.Clean(ev.Error, false)))
	default:
		// views.Link's own "connection lost" message has no exported type.
		if msg.MessageType() == "_conn_lost" && h.connected {
			h.connected = false
			h.connErr = "Not connected to askuserd; retrying every second. Nothing you chose is lost."
			h.broadcast(h.connLocked())
		}
	}
}

func (h *hub) put(p socketproto.Pending) {
	if _, ok := h.reqs[p.RequestID]; !ok {
		h.order = append(h.order, p.RequestID)
	}
	h.reqs[p.RequestID] = p
}

func (h *hub) condition(key, cause, text string) {
	if cause == "" {
		delete(h.conditions, key)
	} else {
		h.conditions[key] = text
	}
	h.broadcast(event{Type: "notices", Notices: h.noticesLocked()})
}

func (h *hub) noticesLocked() []string {
	out := []string{}
	for _, k := range []string{"pending_file", "state_dir"} {
		if t, ok := h.conditions[k]; ok {
			out = append(out, t)
		}
	}
	return out
}

func (h *hub) connLocked() event {
	c := h.connected
	return event{Type: "conn", Connected: &c, Error: h.connErr}
}

// snapshotLocked is the whole state as a page starts from it.
func (h *hub) snapshotLocked() event {
	now := time.Now()
	c := h.connected
	ev := event{Type: "snapshot", Requests: []pageRequest{}, Connected: &c, Error: h.connErr, Notices: h.noticesLocked(), Now: &now}
	for _, id := range h.order {
		ev.Requests = append(ev.Requests, toPage(h.reqs[id]))
	}
	return ev
}

// pending returns the request with id as the daemon last described it.
func (h *hub) pending(id string) (socketproto.Pending, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.reqs[id]
	return p, ok
}

// subscribe registers a page and returns its stream, the current state
// first in it: taken under the same lock, so no event falls between.
func (h *hub) subscribe() *sub {
	s := &sub{ch: make(chan []byte, subBacklog), gone: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	s.ch <- encode(h.snapshotLocked())
	h.subs[s] = struct{}{}
	return s
}

func (h *hub) unsubscribe(s *sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropLocked(s)
}

func (h *hub) dropLocked(s *sub) {
	delete(h.subs, s)
	s.once.Do(func() { close(s.gone) })
}

// dropAll ends every page's stream (the secret was rotated: every session
// is over).
func (h *hub) dropAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		h.dropLocked(s)
	}
}

// count is how many pages are open.
func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

func (h *hub) broadcast(ev event) {
	b := encode(ev)
	for s := range h.subs {
		select {
		case s.ch <- b:
		default:
			h.dropLocked(s) // not reading: it gets a fresh state when it reconnects
		}
	}
}

func encode(ev event) []byte {
	b, _ := json.Marshal(ev)
	return b
}
