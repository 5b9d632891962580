package claudecode

import (
	"encoding/json"
	"fmt"
	"time"

	"askuser/internal/agentinput"
	"askuser/internal/agents/hookio"
	"askuser/socketproto"
)

// hook is claude-hook, asking as Claude Code ("claude-code" in the pane).
var hook = hookio.Hook{Command: "claude-hook", Agent: Kind, Fallback: "Claude Code asks in its own dialog"}

// RunHook is claude-hook (docs/contract.md §11): it answers
// AskUserQuestion (PreToolUse), a permission prompt (PermissionRequest) or
// an MCP elicitation (Elicitation) through the daemon. Its exit code is
// always 0, unless a signal ended it: whatever goes wrong, it prints
// nothing, and Claude Code carries on as if there were no hook and asks in
// its own dialog, which is better than a question lost.
func RunHook(env hookio.Env) int {
	began := time.Now()
	var in HookInput
	if !hook.ReadInput(env, &in, "a Claude Code hook input") {
		return hookio.ExitOK
	}
	in.Began = began
	switch in.HookEventName {
	case "PermissionRequest":
		return runPermissionHook(env, in)
	case "Elicitation":
		return runElicitationHook(env, in)
	case "", "PreToolUse":
		if in.ToolName == AskTool {
			return runAskHook(env, in)
		}
	}
	return hookio.ExitOK
}

// runAskHook answers AskUserQuestion's call before it runs: the call is
// allowed with the answers in its input, so Claude Code's dialog never shows.
func runAskHook(env hookio.Env, in HookInput) int {
	updated, code, ok := askNative(env, in)
	if !ok {
		return code
	}
	return hook.WriteOutput(env, map[string]any{
		"hookEventName":      "PreToolUse",
		"permissionDecision": "allow",
		"updatedInput":       updated,
	})
}

// askNative asks AskUserQuestion's questions and returns its input with the
// answers; ok false means the hook ends now with code and prints nothing.
func askNative(env hookio.Env, in HookInput) (updated map[string]json.RawMessage, code int, ok bool) {
	cfg, err := env.Config()
	if err != nil {
		fmt.Fprintln(env.Stderr, "askuser-client claude-hook:", err)
		return nil, hookio.ExitOK, false
	}
	req, perr := Request(in.ToolInput, cfg.Limits)
	if perr != nil {
		fmt.Fprintf(env.Stderr, "askuser-client claude-hook: tool_input.%s\n", perr.Message)
		return nil, hookio.ExitOK, false
	}
	resp, code, ok := hookAsk(env, in, req, nil)
	if !ok {
		return nil, code, false
	}
	updated, err = UpdatedInput(in.ToolInput, req.Questions, resp)
	if err != nil {
		fmt.Fprintf(env.Stderr, "askuser-client claude-hook: tool_input: %v\n", err)
		return nil, hookio.ExitOK, false
	}
	return updated, hookio.ExitOK, true
}

// runPermissionHook answers a permission prompt in askuser: Allow, Deny (the
// user's words become the message the model reads) or one of Claude Code's
// "don't ask again" suggestions, handed back as updatedPermissions.
// AskUserQuestion's own prompt is its questions, answered as the PreToolUse
// hook answers them.
func runPermissionHook(env hookio.Env, in HookInput) int {
	if in.ToolName == "" {
		return hookio.ExitOK
	}
	if in.ToolName == AskTool {
		updated, code, ok := askNative(env, in)
		if !ok {
			return code
		}
		return hook.WriteOutput(env, PermissionOutput(map[string]any{"behavior": "allow", "updatedInput": updated}))
	}
	input := agentinput.UnquoteJSON(in.ToolInput)
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	perm := Permission{Tool: in.ToolName, Input: input, Suggestions: in.PermissionSuggestions}
	watch := NewSettledWatch(in.TranscriptPath, in.SessionID, in.ToolName, input, in.Began)
	resp, code, ok := hookAsk(env, in, perm.Request(), watch)
	if !ok {
		return code
	}
	d := perm.Decide(resp)
	decision := map[string]any{"behavior": "deny", "message": d.Message}
	if d.Allow {
		decision = map[string]any{"behavior": "allow"}
		if d.Suggestion != nil {
			decision["updatedPermissions"] = []json.RawMessage{d.Suggestion}
		}
	}
	return hook.WriteOutput(env, PermissionOutput(decision))
}

// hookAsk asks req through the daemon as Claude Code's session and waits
// (hookio.Hook.Ask); watch (nil: none) says when, and how, the user answered
// in Claude Code's own dialog, which withdraws the question saying so.
func hookAsk(env hookio.Env, in HookInput, req socketproto.AskUserRequest, watch *SettledWatch) (resp socketproto.Response, code int, ok bool) {
	var elsewhere func(<-chan struct{}) <-chan string
	if watch != nil {
		elsewhere = watch.Settled
	}
	return hook.Ask(env, in.SessionID, in.Cwd, req, elsewhere)
}
