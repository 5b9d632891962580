package pushtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	webpush "github.com/SherClockHolmes/webpush-go"
)

// The fake Apple push service refuses the contacts Apple refuses, and
// counts what would show nothing; other devices take any contact.
func TestAppleRules(t *testing.T) {
	srv := NewServer()
	defer srv.Close()
	apple, other := srv.NewAppleDevice("iphone"), srv.NewDevice("pixel")
	priv, pub, err := webpush.GenerateVAPIDKeys()
	if err != nil {
		t.Fatal(err)
	}
	send := func(d *Device, contact, payload string) int {
		var sub webpush.Subscription
		if err := json.Unmarshal([]byte(srv.Subscription(d)), &sub); err != nil {
			t.Fatal(err)
		}
		resp, err := webpush.SendNotification([]byte(payload), &sub, &webpush.Options{Subscriber: contact, VAPIDPublicKey: pub, VAPIDPrivateKey: priv, TTL: 60})
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusForbidden && !strings.Contains(string(body), "BadJwtToken") {
			t.Errorf("a refusal without its reason: %s", body)
		}
		return resp.StatusCode
	}
	for contact, want := range map[string]int{
		"askuser@localhost": 403, "me@laptop.local": 403, "me@x.invalid": 403, "https://localhost:7341": 403, "https://127.0.0.1": 403,
		"me@example.com": 201, "https://laptop.tail1234.ts.net": 201,
	} {
		if got := send(apple, contact, `{"type":"show","tag":"r1"}`); got != want {
			t.Errorf("Apple, contact %q: %d, want %d", contact, got, want)
		}
	}
	if got := send(other, "askuser@localhost", `{"type":"show","tag":"r1"}`); got != 201 {
		t.Errorf("another push service refused localhost: %d", got)
	}
	send(apple, "me@example.com", `{"type":"close","tag":"r1"}`)
	send(apple, "me@example.com", `{"type":"close","tag":"r1","settled":true}`)
	send(other, "me@example.com", `{"type":"close","tag":"r1"}`)
	if n := srv.Silent(apple); n != 1 {
		t.Errorf("%d silent pushes counted on the Apple device, want 1 (the close that showed nothing)", n)
	}
}
