package agenttext

import (
	"strings"
	"unicode/utf8"
)

// Typed tidies what the user typed or pasted before it is sent: escape
// sequences and control characters a paste or an editor may carry are
// dropped (the daemon refuses them), newlines and tabs are kept, and CRLF
// line ends become plain newlines.
func Typed(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteRune('\uFFFD')
		case r == 0x1b:
			i = skipEscape(s, i+n)
			continue
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
