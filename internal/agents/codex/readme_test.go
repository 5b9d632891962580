package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's snippets are what integrate writes.
func TestIntegrateReadmeSnippets(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	keys, vals := codexBlock("askuser-client")
	for _, k := range keys {
		if line := k + " = " + vals[k]; !strings.Contains(readme, line) {
			t.Errorf("README lacks the Codex line %q", line)
		}
	}
	for _, cmd := range []string{"askuser-client integrate claude --write", "askuser-client integrate codex --write",
		"askuser-client integrate gemini --write", "askuser-client integrate pi --write", "askuser-client integrate opencode --write", `"timeout": 86400`} {
		if !strings.Contains(readme, cmd) {
			t.Errorf("README lacks %q", cmd)
		}
	}
}
