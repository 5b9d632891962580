package acp

import (
	"encoding/json"
	"fmt"

	"askuser/internal/elicit"
)

// An agent's elicitation/create (form mode) is an MCP elicitation form in
// ACP's envelope: message, mode, requestedSchema, and the session (or the
// request) it belongs to; its result is MCP's, {"action", "content"}.

// ElicitationParams is elicitation/create's params.
type ElicitationParams struct {
	SessionID  string `json:"sessionId"`
	ToolCallID string `json:"toolCallId"`
	elicit.Params
}

// Form is the elicitation as askuser's typed questions. Only form mode is
// asked: a URL elicitation is the editor's to open.
func (p ElicitationParams) Form() (*elicit.Form, error) {
	if p.Mode != elicit.ModeForm {
		return nil, fmt.Errorf("mode %q: only forms are asked in askuser", p.Mode)
	}
	return elicit.Build(p.Params)
}

// ElicitationCancelled is the agent's answer to an elicitation whose turn
// ended before anyone answered it.
func ElicitationCancelled() elicit.Result { return elicit.Cancel() }

// DescribeElicitation says in words what the editor's result was
// ("accept", "decline", "cancel"); "" when it is none.
func DescribeElicitation(result json.RawMessage) string {
	var r elicit.Result
	if json.Unmarshal(result, &r) != nil {
		return ""
	}
	return r.Action
}
