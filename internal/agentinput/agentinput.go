// Package agentinput makes what an agent program sends usable as it is:
// client names become printable agent names and readable ids, and JSON that
// a client passed as text is read as the JSON it holds. The MCP server and
// the Claude Code hook both take input they cannot send back for correction,
// so the leniency lives here, once.
package agentinput

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Slug keeps an id readable in the pane and the pending file:
// "Claude Code" becomes "claude-code". A name with nothing usable in it
// gives "mcp".
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_'
		if !ok {
			if b.Len() > 0 && !dash {
				b.WriteByte('-')
				dash = true
			}
			continue
		}
		b.WriteRune(r)
		dash = false
		if b.Len() >= 64 {
			break
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if out == "" {
		return "mcp"
	}
	return out
}

// Printable keeps a client-supplied name within the rules for agent names
// (no control characters, at most max characters): the model cannot fix it,
// so it must never be the reason a call is refused.
func Printable(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range strings.TrimSpace(s) {
		if n == max {
			break
		}
		if unicode.IsControl(r) || r == utf8.RuneError {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}

// UnquoteJSON returns the JSON inside a JSON string when that string holds
// an array or an object; any other value is returned as it is. Some clients
// pass nested arguments as JSON text ("questions": "[{…}]"); what the text
// holds is what the model meant.
func UnquoteJSON(v json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(v)
	if len(t) == 0 || t[0] != '"' {
		return v
	}
	var s string
	if json.Unmarshal(t, &s) != nil {
		return v
	}
	inner := bytes.TrimSpace([]byte(s))
	if len(inner) == 0 || (inner[0] != '[' && inner[0] != '{') || !json.Valid(inner) {
		return v
	}
	return inner
}
