package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"askuser/internal/integrate"

	"github.com/BurntSushi/toml"
)

// planCodexIn plans `integrate codex --permissions` with config.toml
// holding text ("" = no file) and returns the planned change.
func planCodexIn(t *testing.T, text string) integrate.Change {
	t.Helper()
	home := t.TempDir()
	t.Setenv("CODEX_HOME", "")
	if text != "" {
		path := filepath.Join(home, ".codex", "config.toml")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	changes, notes, err := plan(integrate.Env{Home: home, Client: "/opt/my tools/askuser-client", Permissions: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || !strings.Contains(strings.Join(notes, "\n"), "/hooks") {
		t.Fatalf("changes %d, notes %q", len(changes), notes)
	}
	return changes[0]
}

// codexConfig is config.toml as Codex reads the parts askuser writes.
type codexConfig struct {
	Model      string `toml:"model"`
	MCPServers map[string]struct {
		Command string `toml:"command"`
	} `toml:"mcp_servers"`
	Hooks struct {
		PermissionRequest []struct {
			Matcher string `toml:"matcher"`
			Hooks   []struct {
				Type    string `toml:"type"`
				Command string `toml:"command"`
				Timeout int    `toml:"timeout"`
			} `toml:"hooks"`
		} `toml:"PermissionRequest"`
		PreToolUse []map[string]any `toml:"PreToolUse"`
	} `toml:"hooks"`
}

func decodeCodex(t *testing.T, text []byte) codexConfig {
	t.Helper()
	var c codexConfig
	if _, err := toml.Decode(string(text), &c); err != nil {
		t.Fatalf("%v in:\n%s", err, text)
	}
	return c
}

func TestCodexPermissionsHook(t *testing.T) {
	const want = `'/opt/my tools/askuser-client' codex-hook`
	t.Run("a new config: the MCP server and the hook", func(t *testing.T) {
		c := planCodexIn(t, "")
		got := decodeCodex(t, c.New)
		if got.MCPServers["askuser"].Command != "/opt/my tools/askuser-client" {
			t.Errorf("mcp_servers.askuser = %+v", got.MCPServers["askuser"])
		}
		pr := got.Hooks.PermissionRequest
		if len(pr) != 1 || pr[0].Matcher != "*" || len(pr[0].Hooks) != 1 || pr[0].Hooks[0].Type != "command" ||
			pr[0].Hooks[0].Command != want || pr[0].Hooks[0].Timeout != 86400 {
			t.Errorf("hooks.PermissionRequest = %+v\n%s", pr, c.New)
		}
		if !strings.Contains(c.Snippet, "[[hooks.PermissionRequest]]") {
			t.Errorf("the snippet shown lacks the hook:\n%s", c.Snippet)
		}
	})
	t.Run("the user's settings and hooks are kept; twice changes nothing", func(t *testing.T) {
		orig := `model = "o3"

[[hooks.PreToolUse]]
matcher = "^Bash$"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "my-policy"

[[hooks.PermissionRequest]]
[[hooks.PermissionRequest.hooks]]
type = "command"
command = "play-a-sound"
`
		c := planCodexIn(t, orig)
		if !strings.HasPrefix(string(c.New), orig) {
			t.Errorf("the user's text was changed:\n%s", c.New)
		}
		got := decodeCodex(t, c.New)
		if got.Model != "o3" || len(got.Hooks.PreToolUse) != 1 || len(got.Hooks.PermissionRequest) != 2 ||
			got.Hooks.PermissionRequest[1].Hooks[0].Command != want {
			t.Errorf("merged: %+v\n%s", got, c.New)
		}
		again := planCodexIn(t, string(c.New))
		if !again.Unchanged() {
			t.Errorf("a second run changes the file:\n%s", again.New)
		}
	})
	t.Run("an inline hooks table is refused with what to add by hand", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv("CODEX_HOME", filepath.Join(home, "cx"))
		if err := os.MkdirAll(filepath.Join(home, "cx"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "cx", "config.toml"), []byte("hooks = { PermissionRequest = [] }\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := plan(integrate.Env{Home: home, Client: "askuser-client", Permissions: true})
		if err == nil || !strings.Contains(err.Error(), "add this by hand") || !strings.Contains(err.Error(), "askuser-client codex-hook") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("without --permissions no hook", func(t *testing.T) {
		home := t.TempDir()
		t.Setenv("CODEX_HOME", "")
		changes, _, err := plan(integrate.Env{Home: home, Client: "askuser-client"})
		if err != nil || strings.Contains(string(changes[0].New), "hooks") {
			t.Errorf("err %v, config:\n%s", err, changes[0].New)
		}
	})
}
