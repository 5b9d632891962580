package claudecode

import (
	"encoding/json"
	"time"

	"askuser/internal/elicit"
)

// HookInput is the part of Claude Code's hook input (PreToolUse,
// PermissionRequest, Elicitation) that claude-hook reads.
type HookInput struct {
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	// TranscriptPath is the session's transcript, where a permission
	// prompt answered in Claude Code's own dialog shows.
	TranscriptPath string `json:"transcript_path"`
	// PermissionRequest only: Claude Code's "don't ask again" offers,
	// each a permission update handed back as given when chosen.
	PermissionSuggestions []json.RawMessage `json:"permission_suggestions"`
	// Elicitation only: an MCP server's form or URL, as Claude Code
	// hands it on.
	MCPServerName   string          `json:"mcp_server_name"`
	Message         string          `json:"message"`
	Mode            string          `json:"mode"`
	URL             string          `json:"url"`
	ElicitationID   string          `json:"elicitation_id"`
	RequestedSchema json.RawMessage `json:"requested_schema"`

	// Began is when the hook started: a result in the transcript written
	// before it is not this prompt's.
	Began time.Time `json:"-"`
}

// PermissionOutput is the PermissionRequest hook's answer (its
// hookSpecificOutput) carrying decision.
func PermissionOutput(decision map[string]any) map[string]any {
	return map[string]any{"hookEventName": "PermissionRequest", "decision": decision}
}

// ElicitationOutput is the Elicitation hook's answer for Claude Code: the action, and
// for an accepted form its content.
func ElicitationOutput(r elicit.Result) map[string]any {
	out := map[string]any{"hookEventName": "Elicitation", "action": r.Action}
	if r.Action == elicit.ActionAccept && r.Content != nil {
		out["content"] = r.Content
	}
	return out
}
