// Package ntfy posts askuser's notifications to an ntfy topic
// (notify.ntfy, docs/contract.md §6 "Notify"): the title and text, a click
// URL that opens the web page at the request, a higher priority for a
// permission prompt, and the message updated or deleted when the request is
// answered elsewhere. Each notification is one ntfy sequence (X-Sequence-ID,
// ntfy 2.16 and later): publishing again with it replaces the message, and
// DELETE <topic>/<sequence id> removes it from every device. An older server
// shows the update as a second message and ignores the deletion. It knows
// nothing of the queue.
package ntfy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"askuser/daemon/notify"
)

// Notifier is the notify.Notifier of ntfy.
type Notifier struct {
	Topic string // https://ntfy.example/topic
	Token string // optional access token
	// Page is the web page's address as a phone reaches it (web.public_url);
	// empty: no click URL.
	Page   string
	Log    *slog.Logger
	Client *http.Client
}

func (n *Notifier) Name() string { return "ntfy" }

// SequenceID is the ntfy sequence of the notification tagged tag: ntfy
// takes [-_A-Za-z0-9]{1,64}, a request id may hold '.' and ':'.
func SequenceID(tag string) string {
	sum := sha256.Sum256([]byte(tag))
	return "askuser-" + hex.EncodeToString(sum[:12])
}

func (n *Notifier) Announce(ctx context.Context, no notify.Notice) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(n.Topic, "/"), strings.NewReader(no.Body()))
	if err != nil {
		n.Log.Warn("ntfy: bad topic", "topic", notify.Origin(n.Topic), "err", notify.ErrorText(err, n.Topic))
		return
	}
	// Headers carry only ASCII; RFC 2047 words carry the rest (ntfy decodes them).
	req.Header.Set("Title", mime.BEncoding.Encode("UTF-8", no.Title()))
	req.Header.Set("X-Sequence-ID", SequenceID(no.Tag))
	req.Header.Set("Tags", "question")
	priority := "default"
	switch {
	case no.Permission():
		priority = "high"
	case no.Kind == notify.KindUpdate:
		priority = "low"
	}
	req.Header.Set("Priority", priority)
	if n.Page != "" {
		req.Header.Set("Click", strings.TrimRight(n.Page, "/")+"/?request="+url.QueryEscape(no.Tag))
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	n.do(req)
}

func (n *Notifier) Withdraw(ctx context.Context, g notify.Gone) {
	target := strings.TrimRight(n.Topic, "/") + "/" + SequenceID(g.Tag)
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, target, nil)
	if err != nil {
		n.Log.Warn("ntfy: bad topic", "topic", notify.Origin(n.Topic), "err", notify.ErrorText(err, n.Topic))
		return
	}
	n.do(req)
}

func (n *Notifier) do(req *http.Request) {
	ctx, cancel := context.WithTimeout(req.Context(), 30*time.Second)
	defer cancel()
	req = req.WithContext(ctx)
	if n.Token != "" {
		req.Header.Set("Authorization", "Bearer "+n.Token)
	}
	client := n.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		n.Log.Warn("ntfy: "+req.Method+" failed", "topic", notify.Origin(n.Topic), "err", notify.Redact(notify.ErrorText(err, req.URL.String()), n.Topic))
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
	if resp.StatusCode >= 300 {
		n.Log.Warn("ntfy: the server refused "+req.Method, "topic", notify.Origin(n.Topic), "status", resp.StatusCode, "reply", n.redact(string(body)))
	}
}

// redact is a reply of the server's as a log may say it: an error page
// may echo the topic or the token.
func (n *Notifier) redact(reply string) string {
	reply = notify.Redact(reply, n.Topic)
	if n.Token != "" {
		reply = strings.ReplaceAll(reply, n.Token, "…")
	}
	return reply
}
