package socketproto

import (
	"net/mail"
	"testing"
)

// isEmailAddress takes exactly what the check it replaced took:
// net/mail.ParseAddress parsing s as a bare address equal to s.
func FuzzEmailAddressAgreesWithNetMail(f *testing.F) {
	for _, s := range []string{
		"ops@example.com", "a@b", "first.last+tag@sub.example.org", "ünïcode@exämple.de",
		"", "@", "a@", "@b", "a@@b", ".a@b", "a.@b", "a..b@c", "a@b.", "a@.b", "a b@c",
		`"quoted"@x`, `"a b"@x`, "<a@b>", "Name <a@b>", "a@b (comment)", " a@b", "a@b ",
		"a@[127.0.0.1]", "a@[::1]", "a@[fe80::1%eth0]", "a@[1.2.3]", "a@[x]", "a(b)@c", "a@b@c",
		"\xff@b", "a@\xff", "a\t@b", "a@b\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		addr, err := mail.ParseAddress(s)
		want := err == nil && addr.Address == s && addr.Name == ""
		if got := isEmailAddress(s); got != want {
			t.Fatalf("isEmailAddress(%q) = %v, net/mail says %v (%v)", s, got, want, err)
		}
	})
}
