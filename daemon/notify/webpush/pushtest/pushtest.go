// Package pushtest is a browser's push service on loopback, for tests and
// the bench: it holds each subscribed device's private key and auth secret,
// as the browser would, so it can decrypt what askuserd sent (RFC 8291,
// aes128gcm) and check its VAPID header (RFC 8292). Independent of the
// library that encrypts: it is written from the RFCs with the standard
// library only.
//
// An Apple device (NewAppleDevice) is held to the rules of Apple's push
// service as its users meet them: a push whose VAPID contact is not a real
// mailto: or https one is refused with 403 BadJwtToken
// (web-push-libs/web-push#947), and each push that would show nothing is
// counted (Silent), since Safari revokes a subscription after a few
// (WWDC22 "Meet Web Push for Safari").
package pushtest

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Device is one subscribed browser.
type Device struct {
	Name  string
	Apple bool // at Apple's push service
	priv  *ecdh.PrivateKey
	auth  []byte
	// path is the endpoint's path: like a real push service's, a
	// capability, which nothing may log.
	path string
}

// Message is one push the service received, decrypted.
type Message struct {
	Device        string
	Plaintext     []byte
	TTL           string
	Urgency       string
	Topic         string
	Authorization string
	At            time.Time
	Err           error // decrypting failed, or the push refused
	Status        int   // what the service answered
}

// Server is the push service.
type Server struct {
	srv *httptest.Server

	mu       sync.Mutex
	devices  map[string]*Device
	status   map[string]int // device → the status it answers (default 201; hangUp: none)
	received []Message
	silent   map[string]int // Apple device → pushes that showed nothing
	arrived  chan struct{}
}

// NewServer starts a push service on 127.0.0.1; Close stops it.
func NewServer() *Server {
	s := &Server{devices: map[string]*Device{}, status: map[string]int{}, silent: map[string]int{}, arrived: make(chan struct{}, 1)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

func (s *Server) Close() { s.srv.Close() }

// URL is the service's base address.
func (s *Server) URL() string { return s.srv.URL }

// NewDevice subscribes a new device (its key pair and auth secret) at
// endpoint URL()+"/push/"+name+"/"+a random capability.
func (s *Server) NewDevice(name string) *Device { return s.newDevice(name, false) }

func (s *Server) newDevice(name string, apple bool) *Device {
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	auth := make([]byte, 16)
	rand.Read(auth)
	capability := make([]byte, 16)
	rand.Read(capability)
	d := &Device{Name: name, Apple: apple, priv: priv, auth: auth, path: "/push/" + name + "/" + base64.RawURLEncoding.EncodeToString(capability)}
	if apple {
		d.path = "/web.push.apple.com" + d.path
	}
	s.mu.Lock()
	s.devices[name] = d
	s.mu.Unlock()
	return d
}

// NewAppleDevice subscribes a device at Apple's push service, as askuserd
// knows it with web.push_insecure_loopback: its endpoint's path begins
// /web.push.apple.com/.
func (s *Server) NewAppleDevice(name string) *Device { return s.newDevice(name, true) }

// Silent is how many pushes to an Apple device would have shown nothing.
func (s *Server) Silent(d *Device) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.silent[d.Name]
}

// Endpoint is the device's push endpoint at s.
func (s *Server) Endpoint(d *Device) string { return s.srv.URL + d.path }

// Secrets are what must never be in a log about d: its endpoint's path
// and the keys of its subscription.
func (s *Server) Secrets(d *Device) []string {
	return []string{d.path, strings.TrimPrefix(d.path, "/"), url.PathEscape(d.path),
		base64.RawURLEncoding.EncodeToString(d.priv.PublicKey().Bytes()), base64.RawURLEncoding.EncodeToString(d.auth)}
}

// Subscription is the device's PushSubscription.toJSON().
func (s *Server) Subscription(d *Device) string {
	b, _ := json.Marshal(map[string]any{
		"endpoint":       s.Endpoint(d),
		"expirationTime": nil,
		"keys": map[string]string{
			"p256dh": base64.RawURLEncoding.EncodeToString(d.priv.PublicKey().Bytes()),
			"auth":   base64.RawURLEncoding.EncodeToString(d.auth),
		},
	})
	return string(b)
}

// hangUp, as a device's status, closes the connection without an answer:
// the sender's request fails.
const hangUp = -1

// HangUp makes the device's endpoint close each connection without
// answering, so that sending to it fails.
func (s *Server) HangUp(d *Device) { s.Answer(d, hangUp) }

// Answer makes the device's endpoint answer status (410: gone).
func (s *Server) Answer(d *Device, status int) {
	s.mu.Lock()
	s.status[d.Name] = status
	s.mu.Unlock()
}

// Received is every push so far, and how many.
func (s *Server) Received() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.received...)
}

// WaitFor waits until n pushes arrived in all, or timeout; it returns them.
func (s *Server) WaitFor(n int, timeout time.Duration) ([]Message, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		if got := s.Received(); len(got) >= n {
			return got, nil
		}
		select {
		case <-s.arrived:
		case <-deadline.C:
			return s.Received(), fmt.Errorf("%d pushes arrived, want %d", len(s.Received()), n)
		}
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/web.push.apple.com"), "/push/"), "/")
	s.mu.Lock()
	d := s.devices[name]
	status := s.status[name]
	s.mu.Unlock()
	if r.Method != http.MethodPost || d == nil || r.URL.Path != d.path {
		http.NotFound(w, r)
		return
	}
	if status == hangUp {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	m := Message{Device: name, TTL: r.Header.Get("TTL"), Urgency: r.Header.Get("Urgency"), Topic: r.Header.Get("Topic"),
		Authorization: r.Header.Get("Authorization"), At: time.Now()}
	if r.Header.Get("Content-Encoding") != "aes128gcm" {
		m.Err = fmt.Errorf("Content-Encoding %q", r.Header.Get("Content-Encoding"))
	} else {
		m.Plaintext, m.Err = d.Decrypt(body)
	}
	if status == 0 {
		status = http.StatusCreated
	}
	refused := false
	if d.Apple {
		if err := appleContact(r.Header.Get("Authorization")); err != nil {
			status, refused = http.StatusForbidden, true
			m.Err = err
		}
	}
	m.Status = status
	s.mu.Lock()
	s.received = append(s.received, m)
	if d.Apple && !refused && !showsSomething(m.Plaintext) {
		s.silent[name]++
	}
	s.mu.Unlock()
	select {
	case s.arrived <- struct{}{}:
	default:
	}
	w.WriteHeader(status)
	if refused {
		_, _ = w.Write([]byte(`{"reason":"BadJwtToken"}`))
	}
}

// appleContact is Apple's check of the VAPID contact, as its users meet
// it: a mailto: address or an https URL whose host is a public name.
func appleContact(authorization string) error {
	sub := vapidSub(authorization)
	var host string
	switch {
	case strings.HasPrefix(sub, "mailto:"):
		_, host, _ = strings.Cut(sub, "@")
	case strings.HasPrefix(sub, "https://"):
		host, _, _ = strings.Cut(strings.TrimPrefix(sub, "https://"), "/")
		host, _, _ = strings.Cut(host, ":")
	default:
		return fmt.Errorf("BadJwtToken: sub %q is neither mailto: nor https:", sub)
	}
	host = strings.ToLower(host)
	for _, bad := range []string{"localhost", ".localhost", ".local", ".invalid", ".test"} {
		if host == strings.TrimPrefix(bad, ".") || strings.HasSuffix(host, bad) {
			return fmt.Errorf("BadJwtToken: sub %q names %s", sub, host)
		}
	}
	if strings.HasPrefix(host, "127.") || host == "[::1]" || !strings.Contains(host, ".") {
		return fmt.Errorf("BadJwtToken: sub %q names %s", sub, host)
	}
	return nil
}

// vapidSub is the sub claim of an Authorization header "vapid t=JWT, …",
// read without checking the signature (CheckVAPID does).
func vapidSub(authorization string) string {
	for _, part := range strings.Split(strings.TrimPrefix(authorization, "vapid "), ",") {
		t, ok := strings.CutPrefix(strings.TrimSpace(part), "t=")
		if !ok {
			continue
		}
		parts := strings.Split(t, ".")
		if len(parts) != 3 {
			return ""
		}
		var claims struct {
			Sub string `json:"sub"`
		}
		b, _ := base64.RawURLEncoding.DecodeString(parts[1])
		_ = json.Unmarshal(b, &claims)
		return claims.Sub
	}
	return ""
}

// showsSomething says whether askuser's service worker shows a
// notification for this payload (views/web/static/sw.js): a show, or a
// close that shows how it was settled.
func showsSomething(plaintext []byte) bool {
	var p struct {
		Type    string `json:"type"`
		Settled bool   `json:"settled"`
	}
	if json.Unmarshal(plaintext, &p) != nil {
		return false
	}
	return p.Type == "show" || (p.Type == "close" && p.Settled)
}

// Decrypt opens an aes128gcm body (RFC 8188) with the device's keys (RFC 8291 §3).
func (d *Device) Decrypt(body []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, errors.New("body shorter than its header")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if len(body) < 21+idlen || idlen != 65 {
		return nil, fmt.Errorf("keyid of %d bytes, want the sender's 65-byte public key", idlen)
	}
	senderPub, err := ecdh.P256().NewPublicKey(body[21 : 21+idlen])
	if err != nil {
		return nil, err
	}
	records := body[21+idlen:]
	if uint32(len(records)) > rs {
		return nil, fmt.Errorf("%d bytes of records, more than one record of %d", len(records), rs)
	}
	shared, err := d.priv.ECDH(senderPub)
	if err != nil {
		return nil, err
	}
	info := append([]byte("WebPush: info\x00"), d.priv.PublicKey().Bytes()...)
	info = append(info, senderPub.Bytes()...)
	ikm, err := hkdf.Key(sha256.New, shared, d.auth, string(info), 32)
	if err != nil {
		return nil, err
	}
	cek, _ := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: aes128gcm\x00", 16)
	nonce, _ := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: nonce\x00", 12)
	block, _ := aes.NewCipher(cek)
	gcm, _ := cipher.NewGCM(block)
	plain, err := gcm.Open(nil, nonce, records, nil)
	if err != nil {
		return nil, err
	}
	// The last record ends with 0x02 then zero padding.
	i := len(plain) - 1
	for i >= 0 && plain[i] == 0 {
		i--
	}
	if i < 0 || plain[i] != 2 {
		return nil, errors.New("no last-record delimiter")
	}
	return plain[:i], nil
}

// CheckVAPID verifies an Authorization header "vapid t=JWT, k=KEY" (RFC
// 8292): k is publicKey, the JWT is signed by it with ES256, its aud is the
// endpoint's origin, its exp within 24 hours, and it has a sub.
func CheckVAPID(header, publicKey, origin string) error {
	t, k, err := vapidParams(header)
	if err != nil {
		return err
	}
	if k != publicKey {
		return fmt.Errorf("k=%q is not the daemon's key %q", k, publicKey)
	}
	parts := strings.Split(t, ".")
	if len(parts) != 3 {
		return errors.New("t is not a JWT")
	}
	header64, claims64, sig64 := parts[0], parts[1], parts[2]
	var hdr struct{ Alg string }
	if b, err := base64.RawURLEncoding.DecodeString(header64); err != nil || json.Unmarshal(b, &hdr) != nil || hdr.Alg != "ES256" {
		return fmt.Errorf("JWT header: want alg ES256")
	}
	if err := checkVAPIDClaims(claims64, origin); err != nil {
		return err
	}
	return checkES256(k, header64+"."+claims64, sig64)
}

// vapidParams reads t and k from "vapid t=JWT, k=KEY".
func vapidParams(header string) (t, k string, err error) {
	rest, ok := strings.CutPrefix(header, "vapid ")
	if !ok {
		return "", "", fmt.Errorf("scheme: want \"vapid\", got %q", header)
	}
	for _, part := range strings.Split(rest, ",") {
		part = strings.TrimSpace(part)
		if v, ok := strings.CutPrefix(part, "t="); ok {
			t = v
		}
		if v, ok := strings.CutPrefix(part, "k="); ok {
			k = v
		}
	}
	return t, k, nil
}

// checkVAPIDClaims checks the JWT's claims: aud is origin, exp within 24
// hours, and a sub.
func checkVAPIDClaims(claims64, origin string) error {
	var claims struct {
		Aud string `json:"aud"`
		Exp int64  `json:"exp"`
		Sub string `json:"sub"`
	}
	if b, err := base64.RawURLEncoding.DecodeString(claims64); err != nil || json.Unmarshal(b, &claims) != nil {
		return errors.New("JWT claims: not JSON")
	}
	if claims.Aud != origin {
		return fmt.Errorf("aud %q, want %q", claims.Aud, origin)
	}
	if exp := time.Unix(claims.Exp, 0); time.Until(exp) <= 0 || time.Until(exp) > 24*time.Hour {
		return fmt.Errorf("exp %v is not within 24 hours", exp)
	}
	if claims.Sub == "" {
		return errors.New("no sub")
	}
	return nil
}

// checkES256 verifies that sig64 signs signed with the P-256 key k.
func checkES256(k, signed, sig64 string) error {
	pub, err := base64.RawURLEncoding.DecodeString(k)
	if err != nil || len(pub) != 65 {
		return errors.New("k is not a P-256 point")
	}
	sig, err := base64.RawURLEncoding.DecodeString(sig64)
	if err != nil || len(sig) != 64 {
		return errors.New("signature is not 64 bytes")
	}
	key, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), pub)
	if err != nil {
		return fmt.Errorf("k is not a P-256 point: %v", err)
	}
	digest := sha256.Sum256([]byte(signed))
	if !ecdsa.Verify(key, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return errors.New("the JWT's signature does not verify with k")
	}
	return nil
}
