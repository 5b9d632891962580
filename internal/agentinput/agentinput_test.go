package agentinput

import (
	"encoding/json"
	"testing"
)

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"claude-code":       "claude-code",
		"Claude Code":       "claude-code",
		"  Cursor (v1.2)  ": "cursor-v1.2",
		"":                  "mcp",
		"日本語":               "mcp",
		"gemini_cli":        "gemini_cli",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnquoteJSON(t *testing.T) {
	for in, want := range map[string]string{
		`"[{\"question\":\"Why?\"}]"`: `[{"question":"Why?"}]`,
		`" {\"a\":1} "`:               `{"a":1}`,
		`"plain text"`:                `"plain text"`,
		`"[not json"`:                 `"[not json"`,
		`[1, 2]`:                      `[1, 2]`,
	} {
		if got := string(UnquoteJSON(json.RawMessage(in))); got != want {
			t.Errorf("UnquoteJSON(%s) = %s, want %s", in, got, want)
		}
	}
}
