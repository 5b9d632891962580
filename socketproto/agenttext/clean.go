package agenttext

import (
	"strings"
	"unicode/utf8"
)

// Clean makes text that came from an agent safe to show on a terminal, a web
// page or in a CLI's output: it removes escape sequences (CSI, OSC, DCS, SOS,
// PM, APC and two-byte ESC sequences, in their 7-bit and 8-bit forms) and
// every other control character, and shows each bidi control as its escape
// ("\u202e", see the package comment). Invalid UTF-8 becomes U+FFFD. With
// keepNewlines, '\n' survives (questions, descriptions and previews are
// multi-line); tabs become four spaces either way, so a terminal's tab stops
// cannot move text. The result is plain text: no markup of any surface
// (tview's "[red]", HTML) is touched; each surface escapes its own.
func Clean(s string, keepNewlines bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			b.WriteRune('\uFFFD')
			i++
			continue
		}
		if next, ok := skipSequence(s, r, i+n); ok {
			i = next
			continue
		}
		writeClean(&b, r, s[i:i+n], keepNewlines)
		i += n
	}
	return b.String()
}

// skipSequence skips the escape sequence r starts, if it starts one, and
// returns the index after it; after is the index after r.
func skipSequence(s string, r rune, after int) (int, bool) {
	switch r {
	case 0x1b: // ESC
		return skipEscape(s, after), true
	case 0x9b: // 8-bit CSI
		return skipCSI(s, after), true
	case 0x9d, 0x90, 0x98, 0x9e, 0x9f: // 8-bit OSC, DCS, SOS, PM, APC
		return skipString(s, after), true
	}
	return after, false
}

// writeClean writes r, written raw in the text, as Clean shows it.
func writeClean(b *strings.Builder, r rune, raw string, keepNewlines bool) {
	switch {
	case r == '\n':
		if keepNewlines {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	case r == '\t':
		b.WriteString("    ")
	case r == '\r':
		// "\r\n" is a newline already; a lone '\r' could overwrite a line.
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		// other C0 and C1 controls: dropped
	case IsBidiControl(r):
		b.WriteString(bidiEscape(r))
	default:
		b.WriteString(raw)
	}
}

// skipEscape skips what follows an ESC at s[i:] and returns the index after it.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	// Intermediate bytes (0x20–0x2F) then one final byte: "ESC ( B", "ESC c".
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI skips a control sequence's parameter and intermediate bytes and its
// final byte (0x40–0x7E). A sequence cut short by the end of the text or by a
// byte that cannot belong to it ends there.
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 0x20 && c <= 0x3f:
			i++
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		default:
			return i
		}
	}
	return i
}

// skipString skips an OSC/DCS/SOS/PM/APC string up to and including its
// terminator: BEL, ESC \ or the 8-bit ST (U+009C). An unterminated string runs
// to the end of the text: none of it was meant to be seen.
func skipString(s string, i int) int {
	for i < len(s) {
		if s[i] == 0x07 {
			return i + 1
		}
		if s[i] == 0x1b {
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i + 1
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == 0x9c {
			return i + n
		}
		i += n
	}
	return i
}
