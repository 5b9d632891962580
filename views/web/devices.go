package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"askuser/internal/webdevices"
	"askuser/socketproto"
)

// Devices (docs/contract.md §12): every login is a device, kept in the
// state dir's devices file (internal/webdevices), which `askuserd web
// devices` and the terminal pane change too. A session is let in only while
// its device is in that file: the file is looked at by its path on every
// request and every second (with the secret), so a device revoked anywhere
// is logged out at once, and the others stay.

// seenEvery spaces the writes of a device's last-seen time.
const seenEvery = time.Minute

// deviceCache is the devices file as last read.
type deviceCache struct {
	store *webdevices.Store

	mu     sync.Mutex
	id     fileID
	read   bool
	byHash map[string]webdevices.Device
	wrote  map[string]time.Time // last-seen times written, by session hash
}

func newDeviceCache(dir string) *deviceCache {
	return &deviceCache{store: &webdevices.Store{Dir: dir}, byHash: map[string]webdevices.Device{}, wrote: map[string]time.Time{}}
}

// refresh reads the file again when it is not the one last read; it
// reports whether the devices changed. A missing file, or one that cannot
// be read, keeps the devices held (as a missing secret keeps the secret):
// only a file that says otherwise revokes.
func (c *deviceCache) refresh() (bool, error) {
	id, err := statID(c.store.DevicesPath())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	c.mu.Lock()
	same := c.read && (err != nil || id == c.id)
	c.mu.Unlock()
	if same {
		return false, nil
	}
	devs, lerr := c.store.List()
	c.mu.Lock()
	defer c.mu.Unlock()
	if lerr != nil {
		// Told once for this file (a FIFO put there, a bad edit), not at
		// every look; the devices held stay.
		if c.read {
			c.id = id
		}
		return false, lerr
	}
	c.id, c.read = id, true
	next := make(map[string]webdevices.Device, len(devs))
	for _, d := range devs {
		next[d.Session] = d
	}
	changed := len(next) != len(c.byHash)
	for h := range next {
		if _, ok := c.byHash[h]; !ok {
			changed = true
		}
	}
	c.byHash = next
	return changed, nil
}

func (c *deviceCache) has(hash string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.byHash[hash]
	return ok
}

// seen writes the device's last-seen time, at most once a seenEvery.
func (c *deviceCache) seen(hash string) {
	now := time.Now()
	c.mu.Lock()
	due := now.Sub(c.wrote[hash]) >= seenEvery
	if due {
		c.wrote[hash] = now
	}
	c.mu.Unlock()
	if due {
		_ = c.store.Seen(hash, now)
	}
}

// checkDevices ends the sessions whose device is gone from the file.
func (s *server) checkDevices() {
	changed, err := s.devs.refresh()
	if err != nil {
		s.log.Warn("the web devices read before stay in force", "err", err)
	}
	if !changed {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, se := range s.sessions {
		if !s.devs.has(webdevices.SessionHash(id)) {
			s.log.Info("a device was revoked: its session ended")
			se.end()
			delete(s.sessions, id)
		}
	}
}

// deviceJSON is a device as the page lists it.
type deviceJSON struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Details  string    `json:"details"`
	Paired   time.Time `json:"paired"`
	LastSeen time.Time `json:"lastSeen"`
	Push     bool      `json:"push"`
	This     bool      `json:"this"` // the device asking
}

func (s *server) deviceRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/devices", s.authed(s.handleDevices))
	mux.HandleFunc("POST /api/devices/{id}/revoke", s.authed(s.change(s.handleRevoke)))
	mux.HandleFunc("POST /api/devices/{id}/rename", s.authed(s.change(s.handleRename)))
}

func (s *server) handleDevices(w http.ResponseWriter, r *http.Request, id string) {
	devs, err := s.devs.store.List()
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
		return
	}
	me, now := webdevices.SessionHash(id), time.Now()
	out := []deviceJSON{}
	for _, d := range devs {
		out = append(out, deviceJSON{ID: d.ID, Name: d.Name, Details: webdevices.Details(d, now), Paired: d.Paired,
			LastSeen: d.LastSeen, Push: d.Push != "", This: d.Session == me})
	}
	writeJSON(w, http.StatusOK, map[string]any{"devices": out})
}

// handleRevoke revokes a device: its session ends at once (the page, if
// open, is logged out), and its Web Push subscription is dropped at the
// daemon. The others stay.
func (s *server) handleRevoke(w http.ResponseWriter, r *http.Request, _ string) {
	d, err := s.devs.store.Revoke(r.PathValue("id"))
	if errors.Is(err, webdevices.ErrNoDevice) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": err.Error()})
		return
	}
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
		return
	}
	s.checkDevices()
	res := map[string]any{"ok": true, "revoked": d.ID, "name": d.Name}
	if d.Push != "" {
		if err := s.unsubscribe(d.Push); err != nil {
			res["push"] = "its Web Push subscription could not be dropped: " + err.Error()
		} else {
			res["push"] = "its Web Push subscription was dropped"
		}
	}
	writeJSON(w, http.StatusOK, res)
}

// unsubscribe asks the daemon to forget a Web Push endpoint.
func (s *server) unsubscribe(endpoint string) error {
	m, err := s.ask(socketproto.PushUnsubscribe{Endpoint: endpoint}, true)
	var pe *socketproto.Error
	if !errors.As(err, &pe) {
		if err != nil {
			return err
		}
		pe, _ = m.(*socketproto.Error)
	}
	if pe != nil && pe.Code != socketproto.CodeNotFound {
		return pe
	}
	return nil
}

func (s *server) handleRename(w http.ResponseWriter, r *http.Request, _ string) {
	var body struct {
		Name string `json:"name"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&body); err != nil || strings.TrimSpace(body.Name) == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": `bad request: give the device's new name, {"name": "…"}`, "field": "name"})
		return
	}
	d, err := s.devs.store.Rename(r.PathValue("id"), body.Name)
	switch {
	case errors.Is(err, webdevices.ErrNoDevice):
		writeJSON(w, http.StatusNotFound, map[string]string{"error": err.Error()})
	case err != nil:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
	default:
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "id": d.ID, "name": d.Name})
	}
}
