package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"askuser/internal/integrate"
)

func writeSettings(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func serverEntry(t *testing.T, data []byte, name string) map[string]any {
	t.Helper()
	var root struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
	return root.MCPServers[name]
}

// --wrap puts a configured stdio server behind mcp-proxy, keeping the rest
// of its entry, merged with askuser's own entry into one change, and
// running it again changes nothing.
func TestWrapGemini(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	home := t.TempDir()
	path := filepath.Join(home, ".gemini", "settings.json")
	writeSettings(t, path, `{"theme":"dark","mcpServers":{"gh":{"command":"npx","args":["-y","gh-mcp"],"env":{"T":"1"},"trust":true},"web":{"httpUrl":"https://x"}}}`)
	env := integrate.Env{Home: home, Client: "/bin/askuser-client"}
	changes, _, err := agent(t, "gemini").Plan(env)
	if err != nil {
		t.Fatal(err)
	}
	changes, notes, err := integrate.Wrap(agent(t, "gemini"), env, changes, []string{"gh"})
	if err != nil {
		t.Fatal(err)
	}
	// One change for settings.json, askuser's entry and the wrapped server
	// together; the other is askuser's policy file.
	if len(changes) != 2 || changes[0].Path != path || !strings.HasSuffix(changes[1].Path, filepath.Join("policies", "askuser.toml")) {
		t.Fatalf("changes %v, want settings.json and the policy", changes)
	}
	gh := serverEntry(t, changes[0].New, "gh")
	want := map[string]any{"command": "/bin/askuser-client", "args": []any{"mcp-proxy", "--", "npx", "-y", "gh-mcp"},
		"env": map[string]any{"T": "1"}, "trust": true, "timeout": 86400000.0}
	if !reflect.DeepEqual(gh, want) {
		t.Errorf("gh = %v\nwant %v", gh, want)
	}
	if serverEntry(t, changes[0].New, "askuser") == nil || !strings.Contains(string(changes[0].New), `"theme": "dark"`) {
		t.Errorf("askuser's entry or the user's settings are missing:\n%s", changes[0].New)
	}
	if len(notes) != 1 || !strings.Contains(changes[0].Snippet, "mcp-proxy") {
		t.Errorf("notes %q, snippet:\n%s", notes, changes[0].Snippet)
	}
	for _, c := range changes {
		if _, err := c.Apply("x"); err != nil {
			t.Fatal(err)
		}
	}
	again, _, err := agent(t, "gemini").Plan(env)
	if err == nil {
		again, _, err = integrate.Wrap(agent(t, "gemini"), env, again, []string{"gh"})
	}
	for _, c := range again {
		if err != nil || !c.Unchanged() {
			t.Errorf("a second run changes %s (%v):\n%s", c.Path, err, c.New)
		}
	}

	for _, c := range []struct{ name, want string }{
		{"web", "no command"},
		{"nope", `no MCP server "nope"`},
	} {
		if _, _, err := integrate.Wrap(agent(t, "gemini"), env, nil, []string{c.name}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--wrap %s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, _, err := integrate.Wrap(agent(t, "codex"), env, nil, []string{"gh"}); err == nil {
		t.Error("codex was wrapped")
	}
}

// Claude Code's user-scope servers in ~/.claude.json; no timeout is added
// (its MCP tool timeout is MCP_TOOL_TIMEOUT, not per server).
func TestWrapClaude(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	home := t.TempDir()
	path := filepath.Join(home, ".claude.json")
	writeSettings(t, path, `{"numStartups":3,"mcpServers":{"probe":{"type":"stdio","command":"/opt/probe","args":[],"env":{}}}}`)
	changes, _, err := integrate.Wrap(agent(t, "claude"), integrate.Env{Home: home, Client: "askuser-client"}, nil, []string{"probe"})
	if err != nil {
		t.Fatal(err)
	}
	probe := serverEntry(t, changes[0].New, "probe")
	want := map[string]any{"type": "stdio", "command": "askuser-client", "args": []any{"mcp-proxy", "--", "/opt/probe"}, "env": map[string]any{}}
	if !reflect.DeepEqual(probe, want) {
		t.Errorf("probe = %v\nwant %v", probe, want)
	}
}

func agent(t *testing.T, name string) integrate.Agent {
	t.Helper()
	a, ok := Named(name)
	if !ok {
		t.Fatalf("no agent %q", name)
	}
	return a
}
