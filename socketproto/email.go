package socketproto

import (
	"net/netip"
	"strings"
	"unicode/utf8"
)

// isEmailAddress reports whether s is an email address as a typed answer's
// "format": "email" takes it: a bare RFC 5322 addr-spec (RFC 6532's UTF-8
// allowed), local-part@domain, with a dot-atom local part and a dot-atom or
// [IP address] domain — what net/mail.ParseAddress accepts as an address that
// is exactly s, with no display name, angle brackets, comments or quoted
// local part. Written here rather than with net/mail, which imports package
// net and so links every client with cgo (see dialUnix); a fuzz test holds
// the two to the same answer.
func isEmailAddress(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if !isDotAtom(local) {
		return false
	}
	if strings.HasPrefix(domain, "[") && strings.HasSuffix(domain, "]") {
		literal := domain[1 : len(domain)-1]
		for _, r := range literal {
			if r == '[' || r == ']' || r == '\\' || !isVisible(r) {
				return false
			}
		}
		ip, err := netip.ParseAddr(literal)
		return err == nil && ip.Zone() == ""
	}
	return isDotAtom(domain)
}

// isDotAtom reports whether s is an RFC 5322 dot-atom: atext characters in
// runs joined by single dots, none leading or trailing.
func isDotAtom(s string) bool {
	if s == "" || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") || strings.Contains(s, "..") {
		return false
	}
	for _, r := range s {
		switch r {
		case '.':
		case '(', ')', '<', '>', '[', ']', ':', ';', '@', '\\', ',', '"':
			return false
		default:
			if !isVisible(r) {
				return false
			}
		}
	}
	return true
}

// isVisible is RFC 5322's VCHAR, with RFC 6532's UTF-8.
func isVisible(r rune) bool { return '!' <= r && r <= '~' || r >= utf8.RuneSelf }
