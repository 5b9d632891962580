package config

import "testing"

// The contacts Apple's push service refuses are refused in config.toml,
// naming why; the real ones pass.
func TestCheckPushContact(t *testing.T) {
	for contact, ok := range map[string]bool{
		"mailto:you@example.com": true, "https://laptop.tail1234.ts.net": true, "https://example.org/askuser": true, "mailto:me@8.8.8.8": true,
		"": false, "you@example.com": false, "http://example.com": false, "mailto:askuser@localhost": false,
		"mailto:relay@herdr.local": false, "mailto:security@x.invalid": false, "https://localhost:7341": false,
		"https://127.0.0.1": false, "https://192.168.1.4": false, "https://laptop": false, "mailto:a@b.test": false,
		"mailto:Me <me@example.com>": false, "https://box.home.arpa": false,
	} {
		if err := CheckPushContact(contact); (err == nil) != ok {
			t.Errorf("%q: %v, want ok %v", contact, err, ok)
		}
	}
}
