package webpush

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"

	"askuser/daemon/notify"
	"askuser/socketproto"
)

// Payload is what the service worker receives, decrypted: "show" replaces
// (or shows) the notification named Tag, "close" closes it. The page's
// service worker (views/web) is its one reader.
type Payload struct {
	Type  string `json:"type"` // "show" or "close"
	Tag   string `json:"tag"`
	Title string `json:"title,omitempty"`
	Body  string `json:"body,omitempty"`
	// CloseFirst (show): close the notification of that tag, then show the
	// new one, rather than replace it by its tag, which iOS does not do
	// reliably.
	CloseFirst bool `json:"closeFirst,omitempty"`
	// Settled (close): after closing, show Title and Body quietly, as one
	// notification that the next replaces. Safari revokes a subscription
	// after a few pushes that show nothing (WWDC22 "Meet Web Push for
	// Safari"), and a closing push is one: on Apple's push service every
	// push shows something.
	Settled bool `json:"settled,omitempty"`
	// URL opens the page at the request (relative to the page's origin).
	URL string `json:"url,omitempty"`
	// RequestID is the request an action answers (one request only).
	RequestID string `json:"requestId,omitempty"`
	// Actions are the options a tap may choose (docs/contract.md §12):
	// only for one single-select question that approves nothing.
	Actions []string `json:"actions,omitempty"`
	// Renotify: sound and vibrate again (new, reminder); an update of a
	// burst replaces the notification quietly.
	Renotify bool `json:"renotify,omitempty"`
	// Badge is how many requests wait (the app badge).
	Badge int `json:"badge"`
}

// Time to live at the push service: a question may wait a day for a phone
// that is off, and its closing push must reach that phone too.
const ttl = 24 * 60 * 60

// maxPayload keeps the JSON within one aes128gcm record of 4096 bytes.
const maxPayload = 3000

// Sender is the notify.Notifier of Web Push.
type Sender struct {
	Store *Store
	Log   *slog.Logger
	// Contact is the VAPID "sub" (Contact in contact.go), asked before
	// each burst of pushes so that an address kept since start counts.
	// With none, nothing is pushed: a placeholder would be refused.
	Contact func() (string, error)
	Client  *http.Client
	// Sent, if set, is told of each delivery handed to the push service (bench, tests).
	Sent func(endpoint string, status int)
}

func (s *Sender) Name() string { return "web push" }

func (s *Sender) Announce(ctx context.Context, n notify.Notice) {
	if len(s.Store.Subscriptions()) == 0 {
		return
	}
	p := Payload{Type: "show", Tag: n.Tag, Title: n.Title(), Body: n.Body(), Badge: n.Waiting,
		URL: "/?request=" + url.QueryEscape(n.Tag), Renotify: n.Kind != notify.KindUpdate}
	if len(n.Requests) == 1 {
		p.RequestID = n.Requests[0].RequestID
		p.Actions = n.Choices()
	}
	urgency := webpush.UrgencyNormal
	if n.Permission() {
		urgency = webpush.UrgencyHigh
	}
	if n.Kind == notify.KindUpdate {
		urgency = webpush.UrgencyLow
	}
	s.sendAll(ctx, p, n.Tag, urgency)
}

func (s *Sender) Withdraw(ctx context.Context, g notify.Gone) {
	s.sendAll(ctx, Payload{Type: "close", Tag: g.Tag, Badge: g.Waiting, Title: "askuser", Body: settledText(g)}, g.Tag, webpush.UrgencyNormal)
}

// settledText says how the last request of a closed notification was
// settled, for the quiet notification that replaces it on Apple's devices.
func settledText(g notify.Gone) string {
	var said string
	switch {
	case g.Outcome == socketproto.OutcomeWithdrawn:
		said = "Withdrawn by its agent"
	case g.Outcome == socketproto.OutcomeCancelled:
		said = "Declined"
	case g.Via == socketproto.ViaRule:
		said = "Allowed by a rule"
	case g.Via == socketproto.ViaFile:
		said = "Answered in the pending file"
	case g.Via == socketproto.ViaCLI:
		said = "Answered from the shell"
	case g.Via == socketproto.ViaWeb:
		said = "Answered on the web page"
	default:
		said = "Answered in the " + string(g.Via)
	}
	switch g.Waiting {
	case 0:
		return said + "; nothing waits."
	case 1:
		return said + "; 1 question waits."
	}
	return fmt.Sprintf("%s; %d questions wait.", said, g.Waiting)
}

// forDevice is p as the device at endpoint is sent it: on Apple's push
// service a show closes before it shows, and a close shows that it was
// settled; elsewhere a close shows nothing.
func (s *Sender) forDevice(p Payload, endpoint string) Payload {
	if s.Store.apple(endpoint) {
		p.CloseFirst = p.Type == "show"
		p.Settled = p.Type == "close"
		return p
	}
	if p.Type == "close" {
		p.Title, p.Body = "", ""
	}
	return p
}

// fit keeps the payload within one record: the actions go first, then the
// body is cut.
func fit(p Payload) []byte {
	data, _ := json.Marshal(p)
	if len(data) <= maxPayload {
		return data
	}
	p.Actions = nil
	for len(data) > maxPayload && len(p.Body) > 0 {
		r := []rune(p.Body)
		p.Body = string(r[:len(r)*3/4]) + "…"
		data, _ = json.Marshal(p)
	}
	return data
}

func (s *Sender) sendAll(ctx context.Context, p Payload, tag string, urgency webpush.Urgency) {
	subs := s.Store.Subscriptions()
	if len(subs) == 0 {
		return
	}
	contact, err := s.Contact()
	if err != nil {
		s.Log.Warn("web push: nothing sent", "err", err)
		return
	}
	s.Store.mu.Lock()
	keys, err := s.Store.loadKeys()
	s.Store.mu.Unlock()
	if err != nil {
		s.Log.Warn("web push: no key pair", "err", err)
		return
	}
	var wg sync.WaitGroup
	for _, sub := range subs {
		// Each device gets bytes of its own: webpush-go pads the payload
		// by appending to it, which would write into a shared array.
		wg.Go(func() { s.send(ctx, sub, keys, contact, slices.Clip(fit(s.forDevice(p, sub.Endpoint))), tag, urgency) })
	}
	wg.Wait()
}

func (s *Sender) send(ctx context.Context, sub Subscription, keys *vapidKeys, contact string, payload []byte, tag string, urgency webpush.Urgency) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	client := s.Client
	if client == nil {
		client = http.DefaultClient
	}
	ws := &webpush.Subscription{Endpoint: sub.Endpoint, Keys: webpush.Keys{Auth: sub.Keys.Auth, P256dh: sub.Keys.P256dh}}
	resp, err := webpush.SendNotificationWithContext(ctx, payload, ws, &webpush.Options{
		HTTPClient:      client,
		Subscriber:      vapidSub(contact),
		VAPIDPublicKey:  keys.Public,
		VAPIDPrivateKey: keys.Private,
		TTL:             ttl,
		Urgency:         urgency,
		// A closing push replaces the undelivered show of the same
		// notification at the push service: a phone that was off gets
		// only what is still true.
		Topic: topic(tag),
	})
	if err != nil {
		s.Log.Warn("web push: sending failed", "endpoint", notify.Origin(sub.Endpoint), "err", notify.ErrorText(err, sub.Endpoint))
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	if s.Sent != nil {
		s.Sent(sub.Endpoint, resp.StatusCode)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		s.Log.Info("web push: the push service says the subscription is gone; dropped it", "endpoint", notify.Origin(sub.Endpoint), "status", resp.StatusCode)
		s.Store.mu.Lock()
		_, err := s.Store.drop(sub.Endpoint)
		s.Store.mu.Unlock()
		if err != nil {
			s.Log.Warn("web push: dropping a subscription", "endpoint", notify.Origin(sub.Endpoint), "err", notify.ErrorText(err, sub.Endpoint))
		}
	case resp.StatusCode >= 300:
		s.Log.Warn("web push: the push service refused a message", "endpoint", notify.Origin(sub.Endpoint), "status", resp.StatusCode)
	}
}

// topic is the Web Push Topic of a notification: at most 32 characters of
// the base64url alphabet (RFC 8030 §5.4).
func topic(tag string) string {
	sum := sha256.Sum256([]byte(tag))
	return hex.EncodeToString(sum[:16])
}
