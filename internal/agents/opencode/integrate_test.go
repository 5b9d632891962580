package opencode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"askuser/internal/integrate"
)

// planAndApply plans OpenCode's changes and writes them.
func planAndApply(t *testing.T, env integrate.Env) []integrate.Change {
	t.Helper()
	changes, _, err := plan(env)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if _, err := c.Apply("test"); err != nil {
			t.Fatal(err)
		}
	}
	return changes
}

// OpenCode: the plugin copied into plugins/ with the client's path, and the
// MCP server merged into opencode.json beside what the user has; a second
// run changes nothing.
func TestPlanOpencodeMergesAndIsIdempotent(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	dir := filepath.Join(cfg, "opencode")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	user := `{"model": "anthropic/claude", "mcp": {"other": {"type": "local", "command": ["other"]}}}`
	if err := os.WriteFile(filepath.Join(dir, "opencode.json"), []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	env := integrate.Env{Home: t.TempDir(), Client: "/opt/askuser/bin/askuser-client"}
	planAndApply(t, env)

	plugin := readFile(t, filepath.Join(dir, "plugins", "askuser.ts"))
	if !strings.Contains(plugin, `const defaultClient = "/opt/askuser/bin/askuser-client";`) {
		t.Errorf("the plugin does not name the client")
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "opencode.json"))), &got); err != nil {
		t.Fatal(err)
	}
	mcp := got["mcp"].(map[string]any)
	if got["model"] != "anthropic/claude" || mcp["other"] == nil {
		t.Errorf("the user's settings were not kept: %v", got)
	}
	askuser, _ := json.Marshal(mcp["askuser"])
	if want := `{"command":["/opt/askuser/bin/askuser-client","mcp"],"enabled":true,"timeout":86400000,"type":"local"}`; string(askuser) != want {
		t.Errorf("mcp.askuser = %s, want %s", askuser, want)
	}

	again, _, err := plan(env)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range again {
		if !c.Unchanged() {
			t.Errorf("%s would change again", c.Path)
		}
	}
}

// The opencode.jsonc OpenCode writes on its first start is the file merged
// into when it is the only one.
func TestPlanOpencodeTakesTheJSONCFile(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	dir := filepath.Join(cfg, "opencode")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	jsonc := filepath.Join(dir, "opencode.jsonc")
	if err := os.WriteFile(jsonc, []byte(`{"$schema": "https://opencode.ai/config.json"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	changes := planAndApply(t, integrate.Env{Home: t.TempDir(), Client: "askuser-client"})
	if changes[1].Path != jsonc {
		t.Errorf("merged into %s, want %s", changes[1].Path, jsonc)
	}
	if _, err := os.Stat(filepath.Join(dir, "opencode.json")); err == nil {
		t.Errorf("an opencode.json was made beside the opencode.jsonc")
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
