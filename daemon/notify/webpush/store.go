// Package webpush sends askuser's notifications to browsers by Web Push,
// self-hosted: the daemon's own VAPID key pair (RFC 8292), made once and
// kept in the state dir, and every payload encrypted end to end for the
// subscribed device (RFC 8291, aes128gcm), so the browser's push service
// carries only ciphertext. It keeps the subscriptions (state dir, 0600),
// drops one the push service says is gone (404, 410), and is a
// notify.Notifier. It knows nothing of the queue nor of the web page.
package webpush

import (
	"crypto/ecdh"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	webpush "github.com/SherClockHolmes/webpush-go"

	"askuser/internal/atomicfile"
	"askuser/internal/statefile"
)

// The state dir's files.
const (
	keyFile  = "push-vapid.json"
	subsFile = "push-subscriptions.json"
)

// SubscriptionsFile is where the devices are kept, in the state dir.
const SubscriptionsFile = subsFile

// MaxSubscriptions bounds the devices kept; the oldest goes first.
const MaxSubscriptions = 32

// FieldError is a subscription refused: Field names what is wrong
// ("subscription.endpoint"), Rule why.
type FieldError struct{ Field, Rule string }

func (e *FieldError) Error() string { return e.Field + ": " + e.Rule }

func refuse(field, format string, args ...any) error {
	return &FieldError{Field: field, Rule: fmt.Sprintf(format, args...)}
}

// Subscription is a browser's PushSubscription as its toJSON() gives it.
type Subscription struct {
	Endpoint string `json:"endpoint"`
	Keys     struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
}

// Store holds the key pair and the subscriptions. Safe for concurrent use.
type Store struct {
	dir string
	// insecureLoopback lets an http://127.0.0.1 endpoint in (web.push_insecure_loopback, tests only).
	insecureLoopback bool

	mu   sync.Mutex
	keys *vapidKeys
	subs []Subscription
}

type vapidKeys struct {
	Public  string `json:"publicKey"`
	Private string `json:"privateKey"`
}

// Open reads the subscriptions kept in dir (the state dir). The key pair is
// made on first need.
func Open(dir string, insecureLoopback bool) (*Store, error) {
	s := &Store{dir: dir, insecureLoopback: insecureLoopback}
	data, err := statefile.ReadFile(filepath.Join(dir, subsFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, notRegular(err)
	default:
		if err := json.Unmarshal(data, &s.subs); err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Join(dir, subsFile), err)
		}
	}
	return s, nil
}

// PublicKey is the VAPID public key (unpadded base64url), made and kept at
// the first call.
func (s *Store) PublicKey() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, err := s.loadKeys()
	if err != nil {
		return "", err
	}
	return k.Public, nil
}

func (s *Store) loadKeys() (*vapidKeys, error) {
	if s.keys != nil {
		return s.keys, nil
	}
	path := filepath.Join(s.dir, keyFile)
	data, err := statefile.ReadFile(path)
	if err == nil {
		var k vapidKeys
		if err := json.Unmarshal(data, &k); err != nil || k.Public == "" || k.Private == "" {
			return nil, fmt.Errorf("%s: not a key pair askuser wrote; remove it to make a new one (every device subscribes again)", path)
		}
		s.keys = &k
		return s.keys, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, notRegular(err)
	}
	priv, pub, err := webpush.GenerateVAPIDKeys()
	if err != nil {
		return nil, err
	}
	k := vapidKeys{Public: pub, Private: priv}
	data, _ = json.Marshal(k)
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return nil, err
	}
	s.keys = &k
	return s.keys, nil
}

// notRegular says what to do about something other than a regular file at
// one of the store's paths (a FIFO, a directory): it is left alone, never
// opened nor replaced (docs/contract.md §10), so push waits for the user.
func notRegular(err error) error {
	var nr *statefile.NotRegularError
	if errors.As(err, &nr) {
		return fmt.Errorf("%w; askuserd reads and writes only a regular file there, and leaves this one alone: remove it, and each device subscribes again", err)
	}
	return err
}

// Subscribe checks raw, a PushSubscription's JSON, and keeps it; the same
// endpoint again replaces the old keys. A refusal is a *FieldError; any
// other error is the state dir's.
func (s *Store) Subscribe(raw []byte) error {
	var sub Subscription
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&sub); err != nil {
		return refuse("subscription", "not a PushSubscription: %v", err)
	}
	if err := s.check(sub); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.loadKeys(); err != nil {
		return err
	}
	subs := make([]Subscription, 0, len(s.subs)+1)
	for _, old := range s.subs {
		if old.Endpoint != sub.Endpoint {
			subs = append(subs, old)
		}
	}
	subs = append(subs, sub)
	if len(subs) > MaxSubscriptions {
		subs = subs[len(subs)-MaxSubscriptions:]
	}
	return s.save(subs)
}

// Unsubscribe forgets endpoint; false if it was not kept.
func (s *Store) Unsubscribe(endpoint string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.drop(endpoint)
}

func (s *Store) drop(endpoint string) (bool, error) {
	subs := make([]Subscription, 0, len(s.subs))
	for _, old := range s.subs {
		if old.Endpoint != endpoint {
			subs = append(subs, old)
		}
	}
	if len(subs) == len(s.subs) {
		return false, nil
	}
	return true, s.save(subs)
}

func (s *Store) save(subs []Subscription) error {
	data, _ := json.MarshalIndent(subs, "", "  ")
	if err := atomicfile.Write(filepath.Join(s.dir, subsFile), data, 0o600); err != nil {
		return err
	}
	s.subs = subs
	return nil
}

// Subscriptions is every device kept, oldest first.
func (s *Store) Subscriptions() []Subscription {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Subscription(nil), s.subs...)
}

func (s *Store) check(sub Subscription) error {
	u, err := url.Parse(sub.Endpoint)
	switch {
	case sub.Endpoint == "":
		return refuse("subscription.endpoint", "missing")
	case err != nil || u.Host == "" || u.User != nil:
		return refuse("subscription.endpoint", "not an absolute URL: %q", clip(sub.Endpoint))
	case u.Scheme == "https":
	case u.Scheme == "http" && s.insecureLoopback && isLoopback(u.Hostname()):
	default:
		return refuse("subscription.endpoint", "must be an https URL (a browser's push service), got %q", clip(sub.Endpoint))
	}
	p256dh, err := decodeKey(sub.Keys.P256dh)
	if err != nil {
		return refuse("subscription.keys.p256dh", "not base64url: %v", err)
	}
	if _, err := ecdh.P256().NewPublicKey(p256dh); err != nil {
		return refuse("subscription.keys.p256dh", "not an uncompressed P-256 public key")
	}
	auth, err := decodeKey(sub.Keys.Auth)
	if err != nil {
		return refuse("subscription.keys.auth", "not base64url: %v", err)
	}
	if len(auth) != 16 {
		return refuse("subscription.keys.auth", "must be 16 bytes, got %d", len(auth))
	}
	return nil
}

// apple says whether endpoint is at Apple's push service
// (web.push.apple.com), whose devices revoke a subscription that pushes
// nothing visible. With web.push_insecure_loopback (tests), an endpoint
// whose path begins /web.push.apple.com/ stands for one.
func (s *Store) apple(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if host == "push.apple.com" || strings.HasSuffix(host, ".push.apple.com") {
		return true
	}
	return s.insecureLoopback && isLoopback(host) && strings.HasPrefix(u.Path, "/web.push.apple.com/")
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func decodeKey(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
