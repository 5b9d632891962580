package config

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// CheckPushContact says why s cannot be a Web Push sender's contact (the
// VAPID "sub" claim, RFC 8292 §2.1): nil when it can. Apple's push service
// refuses, with 403 BadJwtToken, every push whose contact is not a real
// mailto: address or https URL: a localhost, .local, .invalid or .test
// name, or a loopback or private address, is refused here as Apple would
// refuse it (web-push-libs/web-push#947), so that a phone never silently
// gets nothing.
func CheckPushContact(s string) error {
	host, err := pushContactHost(s)
	if err != nil {
		return err
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() {
			return fmt.Errorf("%q names an address only this network reaches; Apple's push service refuses it: use a real e-mail address or the page's https name", s)
		}
		return nil
	}
	if !strings.Contains(host, ".") {
		return fmt.Errorf("%q names %s, which is no public name; Apple's push service refuses it: use a real e-mail address or the page's https name", s, host)
	}
	for _, tld := range []string{".localhost", ".local", ".invalid", ".test", ".example", ".internal", ".home.arpa", ".lan"} {
		if strings.HasSuffix("."+host, tld) {
			return fmt.Errorf("%q ends in %s, which is no public name; Apple's push service refuses it: use a real e-mail address or the page's https name", s, tld)
		}
	}
	return nil
}

// pushContactHost is the host a contact names: the domain of a mailto:
// address, the host of an https URL.
func pushContactHost(s string) (string, error) {
	switch {
	case strings.HasPrefix(s, "mailto:"):
		// Not net/mail: the clients read this package and link no net.
		local, domain, ok := strings.Cut(strings.TrimPrefix(s, "mailto:"), "@")
		if !ok || local == "" || domain == "" || strings.ContainsAny(s, " <>,;\"\t\n") || strings.Contains(domain, "@") {
			return "", fmt.Errorf("must be mailto: and one e-mail address, got %q", s)
		}
		return domain, nil
	case strings.HasPrefix(s, "https://"):
		u, err := url.Parse(s)
		if err != nil || u.Hostname() == "" {
			return "", fmt.Errorf("must be an https URL, got %q", s)
		}
		return u.Hostname(), nil
	}
	return "", fmt.Errorf("must be a mailto: address or an https URL (Apple's push service takes nothing else), got %q", s)
}
