package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// claudeHooks reads the "hooks" of Claude Code's settings.json.
func claudeHooks(t *testing.T, path string) map[string][]struct {
	Matcher string
	Hooks   []map[string]any
} {
	t.Helper()
	var s struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []map[string]any
		}
	}
	if err := json.Unmarshal([]byte(readTestFile(t, path)), &s); err != nil {
		t.Fatal(err)
	}
	return s.Hooks
}

// Permission prompts come to askuser only when the user asks for it
// (docs/contract.md §11): --permissions adds the PermissionRequest hook, for every tool,
// next to the PreToolUse one; without it none is added.
func TestIntegrateClaudePermissions(t *testing.T) {
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")

	out, errOut, code := integrateIn(t, home, "claude", "--write", "--command", testClient)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if hooks := claudeHooks(t, settings); hooks["PermissionRequest"] != nil || len(hooks["PreToolUse"]) != 1 {
		t.Fatalf("without --permissions: hooks %+v", hooks)
	}
	if !strings.Contains(out, "--permissions") {
		t.Errorf("the output does not say how to add permission prompts:\n%s", out)
	}

	// The plan shows the new hook before anything is written.
	out, errOut, code = integrateIn(t, home, "claude", "--permissions", "--command", testClient)
	if code != 0 || !strings.Contains(out, `"PermissionRequest"`) || !strings.Contains(out, `"matcher": "*"`) {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}

	for range 2 { // the second run changes nothing
		out, errOut, code = integrateIn(t, home, "claude", "--write", "--permissions", "--command", testClient)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	}
	if !strings.Contains(out, "already set up") {
		t.Errorf("second run:\n%s", out)
	}
	hooks := claudeHooks(t, settings)
	perm := hooks["PermissionRequest"]
	if len(perm) != 1 || perm[0].Matcher != "*" || len(perm[0].Hooks) != 1 {
		t.Fatalf("PermissionRequest = %+v", perm)
	}
	if h := perm[0].Hooks[0]; h["command"] != testClient+" claude-hook" || h["timeout"] != 86400.0 || h["type"] != "command" {
		t.Errorf("the permission hook = %v", h)
	}
	if len(hooks["PreToolUse"]) != 1 {
		t.Errorf("PreToolUse = %+v", hooks["PreToolUse"])
	}
	if len(backups(t, settings)) != 1 {
		t.Errorf("backups: %v; want one, from the run that added the hook", backups(t, settings))
	}
}

func TestIntegratePermissionsOnlyForClaude(t *testing.T) {
	_, errOut, code := integrateIn(t, t.TempDir(), "gemini", "--permissions", "--command", testClient)
	if code != exitUsage || !strings.Contains(errOut, "--permissions: only for claude") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
