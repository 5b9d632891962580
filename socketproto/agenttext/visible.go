package agenttext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Visible shows one line of a file's text that an agent would write (a
// Write's content, an edit's old and new text, a patch): unlike Clean, which
// removes control characters because they act on a terminal, it shows each
// as a visible escape ("\r", "\u001b"), since they are part of what the user
// approves and must not vanish from what is read. Bidi controls are escaped
// as Clean does, tabs become four spaces, invalid UTF-8 becomes U+FFFD, and
// a newline, which a line holds only when the caller gave it one, is shown
// as "\n". The result holds no control character, so each surface needs only
// its own escaping.
func Visible(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteRune('\uFFFD')
		case r == '\t':
			b.WriteString("    ")
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\u%04x`, r)
		case IsBidiControl(r):
			b.WriteString(bidiEscape(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
