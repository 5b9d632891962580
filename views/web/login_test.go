package web

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// POST /login says what its body is to someone trying it by hand, and
// tells a missing secret from a wrong one (docs/contract.md §12).
func TestLoginBody(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), SecretFile)
	secret, err := LoadSecret(path)
	if err != nil {
		t.Fatal(err)
	}
	k := &keyring{path: path}
	if _, err := k.reload(); err != nil {
		t.Fatal(err)
	}
	s := &server{keys: k, devs: newDeviceCache(filepath.Dir(path)), log: slog.New(slog.NewTextHandler(io.Discard, nil)), sessions: map[string]*session{}}
	for _, c := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"no body", "", 400, `POST /login takes {"pair": "…"}`},
		{"a form", "s=" + secret, 400, `POST /login takes {"pair": "…"}`},
		{"another key", `{"s":"` + secret + `"}`, 400, "what follows #s= in the address `askuserd web --url --secret` prints"},
		{"a made-up pairing code", `{"pair":"nope"}`, 410, "this is not a pairing link askuserd web made"},
		{"a wrong secret", `{"secret":"nope"}`, 401, "that secret is not valid"},
		{"the secret", `{"secret":"` + secret + `"}`, 200, `"token":`},
	} {
		r := httptest.NewRequest("POST", "http://127.0.0.1:7341/login", strings.NewReader(c.body))
		r.Header.Set("Origin", "http://127.0.0.1:7341")
		w := httptest.NewRecorder()
		s.handleLogin(w, r)
		if w.Code != c.status || !strings.Contains(decoded(w.Body.String()), c.says) {
			t.Errorf("%s: %d %s, want %d and %q", c.name, w.Code, w.Body, c.status, c.says)
		}
	}
	w := httptest.NewRecorder()
	s.handleLogin(w, httptest.NewRequest("POST", "http://127.0.0.1:7341/login", strings.NewReader(`{"secret":"`+secret+`"}`)))
	if w.Code != http.StatusForbidden {
		t.Errorf("without Origin: %d %s", w.Code, w.Body)
	}
}

// decoded is a JSON reply's "error", or the reply as it is.
func decoded(body string) string {
	var e struct{ Error string }
	if json.Unmarshal([]byte(body), &e) != nil || e.Error == "" {
		return body
	}
	return e.Error
}
