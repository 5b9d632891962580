package webdevices

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// clock is a time a test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestPairingLinkWorksOnceWithinTenMinutes(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)}
	s := &Store{Dir: t.TempDir(), Now: c.now}
	const iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1"

	code, expires, err := s.NewPairing()
	if err != nil {
		t.Fatal(err)
	}
	if want := c.t.Add(10 * time.Minute); !expires.Equal(want) {
		t.Errorf("expires %v, want %v", expires, want)
	}
	c.t = c.t.Add(9*time.Minute + 59*time.Second)
	dev, err := s.Pair(code, iphone, "session-1")
	if err != nil {
		t.Fatalf("the first use within 10 minutes: %v", err)
	}
	if dev.Name != "iPhone Safari" || dev.Session != SessionHash("session-1") || !dev.Paired.Equal(c.t) {
		t.Errorf("device %+v", dev)
	}

	// A second use is refused, and says by whom it was used.
	_, err = s.Pair(code, iphone, "session-2")
	var pe *PairError
	if !errors.As(err, &pe) || pe.Reason != Used || pe.By != "iPhone Safari" {
		t.Fatalf("a second use: %v", err)
	}

	// A link used after its 10 minutes is refused as expired.
	code2, _, err := s.NewPairing()
	if err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(10 * time.Minute)
	if _, err = s.Pair(code2, iphone, "session-3"); !errors.As(err, &pe) || pe.Reason != Expired {
		t.Fatalf("a use after 10 minutes: %v", err)
	}
	if _, err = s.Pair("made-up", iphone, "session-4"); !errors.As(err, &pe) || pe.Reason != Unknown {
		t.Fatalf("a code never made: %v", err)
	}

	devs, err := s.List()
	if err != nil || len(devs) != 1 || devs[0].ID != dev.ID {
		t.Fatalf("devices %+v, %v; want the one paired", devs, err)
	}
	for _, f := range []string{DevicesFile, PairingFile} {
		fi, err := os.Stat(filepath.Join(s.Dir, f))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want mode 0600", f, fi.Mode(), err)
		}
	}
}

func TestRevokeOneLeavesTheOthers(t *testing.T) {
	s := &Store{Dir: t.TempDir()}
	a, _ := s.AddDevice("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "a")
	b, _ := s.AddDevice("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36", "b")
	if a.Name != "Firefox on Linux" || b.Name != "Android Chrome" {
		t.Errorf("names %q, %q", a.Name, b.Name)
	}
	if err := s.SetPush(SessionHash("b"), "https://push.example/b"); err != nil {
		t.Fatal(err)
	}
	gone, err := s.Revoke(b.ID)
	if err != nil || gone.Push != "https://push.example/b" {
		t.Fatalf("revoke: %+v %v", gone, err)
	}
	if _, err := s.Revoke(b.ID); !errors.Is(err, ErrNoDevice) {
		t.Errorf("revoking it again: %v", err)
	}
	if _, err := s.Rename(a.ID, "  desk\u202e  laptop "); err != nil {
		t.Fatal(err)
	}
	devs, _ := s.List()
	if len(devs) != 1 || devs[0].ID != a.ID || devs[0].Name != "desk laptop" {
		t.Fatalf("after revoking one: %+v", devs)
	}
}

func TestName(t *testing.T) {
	for ua, want := range map[string]string{
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0 Mobile/15E148 Safari/604.1": "iPhone Chrome",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15":                  "Safari on Mac",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0":          "Edge on Windows",
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36":                          "Headless Chrome on Linux",
		"curl/8.5.0": "curl",
		"":           "Unknown browser",
	} {
		if got := Name(ua); got != want {
			t.Errorf("Name(%q) = %q, want %q", ua, got, want)
		}
	}
}
