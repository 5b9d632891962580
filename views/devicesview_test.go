package views

import (
	"testing"

	"askuser/internal/webdevices"
)

// The Devices view lists the web pane's devices from the devices file and
// revokes the one under the cursor, leaving the other; the revoked one's
// Web Push subscription is dropped at the daemon (docs/contract.md §12).
func TestDevicesViewRevokesOne(t *testing.T) {
	t.Parallel()
	store := &webdevices.Store{Dir: t.TempDir()}
	phone, err := store.AddDevice("Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1", "s1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.AddDevice("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "s2"); err != nil {
		t.Fatal(err)
	}
	if err := store.SetPush(webdevices.SessionHash("s1"), "https://push.example/phone"); err != nil {
		t.Fatal(err)
	}
	var dropped []string
	h := newH(t, 80, 24, func(o *Options) {
		o.Devices = store
		o.Unsubscribe = func(endpoint string) error { dropped = append(dropped, endpoint); return nil }
	})
	h.Event(snap())
	h.Press("D")
	h.Has("Devices logged in to the web pane", phone.ID+"  iPhone Safari", "Firefox on Linux", "notified by Web Push", "x revoke")
	h.Press("x")
	h.Has("Revoked iPhone Safari: it is logged out of the web pane; the others stay. Its", "Web Push stopped.", "Firefox on Linux")
	h.HasNot(phone.ID + "  iPhone Safari")
	devs, _ := store.List()
	if len(devs) != 1 || devs[0].Name != "Firefox on Linux" {
		t.Errorf("devices after revoking one: %+v", devs)
	}
	if len(dropped) != 1 || dropped[0] != "https://push.example/phone" {
		t.Errorf("Web Push dropped for %v", dropped)
	}
	h.Press("<Esc>")
	h.HasNot("Devices logged in")
}
