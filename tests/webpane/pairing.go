package webpane

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	"askuser/tests/testenv"
)

// pairLinkRE is the pairing link `askuserd web --url` prints: the pane's
// address and the one-time code.
var pairLinkRE = regexp.MustCompile(`^(https?://\S+/)#p=([A-Za-z0-9_-]+)\n$`)

// PairLink runs `askuserd web --url` for the pane w and returns the link
// and its code.
func (w *Server) PairLink() (string, string) {
	w.t.Helper()
	listen := strings.TrimSuffix(strings.TrimPrefix(w.Base, "http://"), "/")
	out, stderr, code := testenv.RunAskuserd(w.e, "web", "--url", "--listen", listen)
	m := pairLinkRE.FindStringSubmatch(out)
	if code != 0 || m == nil || m[1] != w.Base {
		w.t.Fatalf("askuserd web --url: exit %d, stdout %q, stderr %q; want a pairing link for %s", code, out, stderr, w.Base)
	}
	w.e.Secret(m[2])
	return strings.TrimSuffix(out, "\n"), m[2]
}

// PairByHand trades a pairing code for a session as curl would, with the
// user agent ua: the status and the reply.
func (w *Server) PairByHand(code, ua string) (int, map[string]string) {
	w.t.Helper()
	req, _ := http.NewRequest("POST", w.Base+"login", strings.NewReader(fmt.Sprintf(`{"pair":%q}`, code)))
	req.Header.Set("Origin", strings.TrimSuffix(w.Base, "/"))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", ua)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]string
	_ = json.NewDecoder(resp.Body).Decode(&m)
	if m["token"] != "" {
		w.e.SessionSeen(m["token"])
	}
	return resp.StatusCode, m
}

// Login trades the secret for a session as the page does, and returns the
// headers that present it.
func (w *Server) Login() map[string]string {
	w.t.Helper()
	c := &http.Client{}
	req, _ := http.NewRequest("POST", w.Base+"login", strings.NewReader(fmt.Sprintf(`{"secret":%q}`, w.Secret())))
	req.Header.Set("Origin", strings.TrimSuffix(w.Base, "/"))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Token string `json:"token"`
	}
	raw, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(raw, &body)
	h := map[string]string{"Origin": strings.TrimSuffix(w.Base, "/"), "Content-Type": "application/json"}
	if body.Token == "" {
		w.t.Fatalf("logging in: %s %s", resp.Status, raw)
	}
	w.e.SessionSeen(body.Token)
	h["Authorization"] = "Bearer " + body.Token
	return h
}
