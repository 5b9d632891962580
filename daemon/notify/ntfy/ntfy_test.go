package ntfy

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"askuser/daemon/notify"
	"askuser/socketproto"
)

// An ntfy topic is a capability: whoever knows it reads the notifications.
// A failed post, a refused one and a failed delete say the server's origin
// only, never the topic nor the token.
func TestNtfyLogsNoTopic(t *testing.T) {
	t.Parallel()
	const topic, token = "/askuser-7c1e0b9f5d2a", "tk_secret-token"
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such topic "+r.URL.Path+" for "+r.Header.Get("Authorization"), http.StatusForbidden)
	}))
	defer refusing.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close() // nothing listens: the request fails

	var log bytes.Buffer
	for _, server := range []string{refusing.URL, closed} {
		n := &Notifier{Topic: server + topic, Token: token, Log: slog.New(slog.NewTextHandler(&log, nil))}
		no := notify.Notice{Tag: "r1", Kind: notify.KindNew, Requests: []socketproto.Pending{{Request: socketproto.Request{RequestID: "r1"}}}, Waiting: 1}
		n.Announce(context.Background(), no)
		n.Withdraw(context.Background(), notify.Gone{Tag: "r1"})
	}
	got := log.String()
	if strings.Count(got, "level=WARN") != 4 || !strings.Contains(got, refusing.URL) || !strings.Contains(got, closed) {
		t.Errorf("want four warnings naming the servers:\n%s", got)
	}
	for _, s := range []string{strings.TrimPrefix(topic, "/"), token} {
		if strings.Contains(got, s) {
			t.Errorf("the log names %q:\n%s", s, got)
		}
	}
}
