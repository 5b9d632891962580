package webpush

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"askuser/internal/atomicfile"
	"askuser/internal/config"
	"askuser/internal/statefile"
)

// AddressFile, in the state dir, is the https address the page is served
// at, as `askuserd web --tailscale` found it: kept for the daemon's Web
// Push contact, across starts.
const AddressFile = "web-address"

// KeepAddress writes the page's https address for the daemon to use as its
// contact (Contact).
func KeepAddress(stateDir, address string) error {
	if err := config.CheckPushContact(address); err != nil {
		return err
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil { // before the daemon's first start
		return err
	}
	return atomicfile.Write(filepath.Join(stateDir, AddressFile), []byte(address+"\n"), 0o600)
}

// ErrNoContact is why Web Push is refused when no contact that Apple's push
// service accepts is known.
var ErrNoContact = errors.New(`Web Push needs a contact the push services accept (Apple's refuses localhost): ` +
	`set web.push_contact = "mailto:you@example.com" in config.toml, or serve the page over https ` +
	`(askuserd web --tailscale, or web.public_url = "https://…")`)

// Contact is the Web Push sender's contact, the VAPID "sub" (RFC 8292
// §2.1): web.push_contact; else web.public_url when it is https; else the
// address `askuserd web --tailscale` kept. Each must be one Apple's push
// service accepts (config.CheckPushContact): none is never replaced by a
// placeholder such as localhost, which Apple refuses with 403
// BadJwtToken for every push (web-push-libs/web-push#947).
func Contact(web config.Web, stateDir string) (string, error) {
	if web.PushContact != "" {
		return web.PushContact, config.CheckPushContact(web.PushContact)
	}
	if strings.HasPrefix(web.PublicURL, "https://") && config.CheckPushContact(web.PublicURL) == nil {
		return web.PublicURL, nil
	}
	data, err := statefile.ReadFile(filepath.Join(stateDir, AddressFile))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", ErrNoContact
		}
		return "", fmt.Errorf("%w (%s: %v)", ErrNoContact, AddressFile, err)
	}
	kept := strings.TrimSpace(string(data))
	if err := config.CheckPushContact(kept); err != nil {
		return "", fmt.Errorf("%w (%s: %v)", ErrNoContact, AddressFile, err)
	}
	return kept, nil
}

// vapidSub is contact as webpush-go takes it: an https URL as it is, an
// e-mail address without its "mailto:" (the library adds one to anything
// that is not https).
func vapidSub(contact string) string { return strings.TrimPrefix(contact, "mailto:") }
