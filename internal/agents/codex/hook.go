// Package codex is all askuser knows of Codex (docs/contract.md §11): its
// PermissionRequest hook, its input and what codex-hook does with it
// (RunHook), how a rule reads its shell prompt (Shape), and what
// `askuser-client integrate codex` writes into its config.toml (the MCP
// server, and with --permissions the hook). Its approval prompts are asked
// as Claude Code's permission prompts are (claudecode.Permission).
package codex

import (
	"encoding/json"

	"askuser/socketproto/previewform"
)

// HookInput is the part of Codex's PermissionRequest hook input that
// codex-hook reads. Codex 0.169.0 sends session_id, turn_id, transcript_path, cwd,
// hook_event_name, model, permission_mode, tool_name ("Bash" for shell
// commands and network access) and tool_input ({"command", "description"}:
// the command and the model's justification).
type HookInput struct {
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
}

// PermissionOutput is the PermissionRequest hook's answer (its
// hookSpecificOutput) carrying decision.
func PermissionOutput(decision map[string]any) map[string]any {
	return map[string]any{"hookEventName": "PermissionRequest", "decision": decision}
}

// PreviewForm is the form Codex's tool's input is drawn in: apply_patch's
// ({"command": "*** Begin Patch…"}) as its patch; "" for any other tool.
func PreviewForm(tool string) string {
	if tool == "apply_patch" {
		return previewform.Patch
	}
	return ""
}
