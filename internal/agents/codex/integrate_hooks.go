package codex

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"askuser/internal/integrate"
	"askuser/internal/shell"
)

// Codex's approval prompts in askuser (integrate codex --permissions): its
// PermissionRequest hook, inline in config.toml, runs `askuser-client
// codex-hook` for every prompt ("*"). Codex 0.169.0 runs the hook before it
// shows its own approval prompt and kills it at its timeout, so the timeout
// is a day, as for Claude Code.

// codexHookCommand is the hook's command line (Codex runs it in a shell).
func codexHookCommand(client string) string { return shell.Quote(client) + " codex-hook" }

// codexPermissionBlock is what --permissions adds to config.toml.
func codexPermissionBlock(client string) string {
	return fmt.Sprintf(`[[hooks.PermissionRequest]]
matcher = "*"

[[hooks.PermissionRequest.hooks]]
type = "command"
command = %s
timeout = %d
statusMessage = "Waiting for your answer in askuser"
`, strconv.Quote(codexHookCommand(client)), integrate.TimeoutSec)
}

// codexPermissionNotes say what the user still has to do: Codex runs a new
// hook only once it is trusted, keyed to a hash of its definition that
// Codex computes; integrate does not forge that hash.
var codexPermissionNotes = []string{
	"Codex runs a new hook only once you trust it: start codex, open /hooks and trust askuser's PermissionRequest hook",
	"  (until then Codex warns at start that a hook needs review, and asks in its own prompt).",
	"Codex's approval prompts (commands outside the sandbox, network access) then wait in askuser: Allow, or Deny with a note",
	"  the model reads. Codex shows its own prompt only when askuser cannot be reached.",
}

// addCodexPermissionHook appends askuser's PermissionRequest hook to the
// config text unless a PermissionRequest group already runs this client's
// codex-hook. The result is parsed again: an inline `hooks = {…}` table,
// say, cannot take an appended [[hooks.PermissionRequest]].
func addCodexPermissionHook(text, client string) (string, error) {
	var parsed map[string]any
	if _, err := toml.Decode(text, &parsed); err != nil {
		return "", err
	}
	if codexHasPermissionHook(parsed, client) {
		return text, nil
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	text += codexPermissionBlock(client)
	var check map[string]any
	if _, err := toml.Decode(text, &check); err != nil || !codexHasPermissionHook(check, client) {
		return "", fmt.Errorf("hooks.PermissionRequest could not be appended (is [hooks] written inline?)")
	}
	return text, nil
}

// codexHasPermissionHook reports whether some hooks.PermissionRequest group
// has a command hook running this client's codex-hook.
func codexHasPermissionHook(parsed map[string]any, client string) bool {
	hooks, _ := parsed["hooks"].(map[string]any)
	groups, _ := hooks["PermissionRequest"].([]map[string]any)
	want := codexHookCommand(client)
	for _, g := range groups {
		handlers, _ := g["hooks"].([]map[string]any)
		for _, h := range handlers {
			if h["type"] == "command" && h["command"] == want {
				return true
			}
		}
	}
	return false
}
