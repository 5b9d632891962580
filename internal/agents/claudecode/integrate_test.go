package claudecode

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"askuser/internal/integrate"
)

// claudeSettingsHooks applies the plan for Claude Code in a fresh home and
// returns the "hooks" of the settings file it writes.
func claudeSettingsHooks(t *testing.T, env integrate.Env) map[string][]struct {
	Matcher string
	Hooks   []map[string]any
} {
	t.Helper()
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	changes, _, err := plan(env)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if c.Path != filepath.Join(env.Home, ".claude", "settings.json") {
			continue
		}
		var s struct {
			Hooks map[string][]struct {
				Matcher string
				Hooks   []map[string]any
			}
		}
		if err := json.Unmarshal(c.New, &s); err != nil {
			t.Fatalf("%s: %v\n%s", c.Path, err, c.New)
		}
		return s.Hooks
	}
	t.Fatalf("the plan does not change settings.json: %+v", changes)
	return nil
}

// MCP servers' elicitations are questions meant for the user, as
// AskUserQuestion's are: integrate claude adds the Elicitation hook, for
// every server, with or without --permissions.
func TestIntegrateClaudeElicitationHook(t *testing.T) {
	for _, perms := range []bool{false, true} {
		env := integrate.Env{Home: t.TempDir(), Client: "/opt/bin/askuser-client", Permissions: perms}
		hooks := claudeSettingsHooks(t, env)
		el := hooks["Elicitation"]
		if len(el) != 1 || el[0].Matcher != "*" || len(el[0].Hooks) != 1 {
			t.Fatalf("--permissions %v: Elicitation = %+v", perms, el)
		}
		h := el[0].Hooks[0]
		if h["type"] != "command" || h["command"] != "/opt/bin/askuser-client claude-hook" || h["timeout"] != 86400.0 {
			t.Errorf("--permissions %v: the Elicitation hook = %v", perms, h)
		}
		if got := hooks["PermissionRequest"] != nil; got != perms {
			t.Errorf("--permissions %v: PermissionRequest hook present %v", perms, got)
		}
	}
}
