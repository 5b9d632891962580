package web

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"askuser/internal/webdevices"
)

// A pairing link logs in one device, once; revoking a device refuses its
// session at once and leaves the others (docs/contract.md §12).
func TestPairAndRevokeOneDevice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, SecretFile)
	if _, err := LoadSecret(path); err != nil {
		t.Fatal(err)
	}
	k := &keyring{path: path}
	if _, err := k.reload(); err != nil {
		t.Fatal(err)
	}
	s := &server{keys: k, devs: newDeviceCache(dir), log: slog.New(slog.NewTextHandler(io.Discard, nil)), sessions: map[string]*session{}}
	store := &webdevices.Store{Dir: dir}
	login := func(body, ua string) (int, map[string]string) {
		r := httptest.NewRequest("POST", "http://127.0.0.1:7341/login", strings.NewReader(body))
		r.Header.Set("Origin", "http://127.0.0.1:7341")
		r.Header.Set("User-Agent", ua)
		w := httptest.NewRecorder()
		s.handleLogin(w, r)
		var m map[string]string
		_ = json.Unmarshal(w.Body.Bytes(), &m)
		return w.Code, m
	}
	authed := func(tok string) bool {
		r := httptest.NewRequest("GET", "http://127.0.0.1:7341/api/session", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		_, ok := s.session(r)
		return ok
	}
	pair := func(ua string) map[string]string {
		code, _, err := store.NewPairing()
		if err != nil {
			t.Fatal(err)
		}
		st, m := login(`{"pair":"`+code+`"}`, ua)
		if st != 200 || m["token"] == "" {
			t.Fatalf("pairing: %d %v", st, m)
		}
		if again, m2 := login(`{"pair":"`+code+`"}`, ua); again != 410 || m2["reason"] != "used" || !strings.Contains(m2["error"], "askuserd web --url") {
			t.Fatalf("the link a second time: %d %v", again, m2)
		}
		return m
	}
	phone := pair("Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1")
	desk := pair("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0")
	if phone["name"] != "iPhone Safari" || desk["name"] != "Firefox on Linux" {
		t.Errorf("names %q and %q", phone["name"], desk["name"])
	}
	if !authed(phone["token"]) || !authed(desk["token"]) {
		t.Fatal("a paired device's session was refused")
	}
	if _, err := store.Revoke(phone["device"]); err != nil {
		t.Fatal(err)
	}
	if authed(phone["token"]) {
		t.Error("the revoked device's session was let in")
	}
	if !authed(desk["token"]) {
		t.Error("revoking one device logged out another")
	}
}
