package agenttext

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// IsBidiControl reports whether r is one of Unicode's Bidi_Control
// characters: the ones that change the order or direction in which the
// characters around them are drawn without being drawn themselves.
func IsBidiControl(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e: // embeddings and overrides
		return true
	case r >= 0x2066 && r <= 0x2069: // isolates
		return true
	case r == 0x200e || r == 0x200f || r == 0x061c: // LRM, RLM, ALM
		return true
	}
	return false
}

// bidiEscape is how a bidi control is shown: the JSON escape of it, which
// a JSON reader turns back into the character and a person reads as its code.
func bidiEscape(r rune) string {
	return fmt.Sprintf(`\u%04x`, r)
}

// EscapeJSON rewrites every raw bidi control in encoded JSON as its \uXXXX
// escape. The value is unchanged for any JSON reader; an editor shows the
// escape rather than its effect, so a command approved in the pending file
// reads as what runs. Bidi controls are not ASCII, so in valid JSON they can
// only stand inside a string, where the escape means the same character.
func EscapeJSON(b []byte) []byte {
	if !containsBidi(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if IsBidiControl(r) {
			out = append(out, bidiEscape(r)...)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// containsBidi is EscapeJSON's fast path: most files hold no bidi control,
// and their bytes are returned as they are.
func containsBidi(b []byte) bool {
	// Every bidi control's UTF-8 form starts with 0xD8 (U+061C) or 0xE2
	// (U+200E–U+2069).
	if bytes.IndexByte(b, 0xe2) < 0 && bytes.IndexByte(b, 0xd8) < 0 {
		return false
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if IsBidiControl(r) {
			return true
		}
		i += n
	}
	return false
}
