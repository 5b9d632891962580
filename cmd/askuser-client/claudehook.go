package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"askuser/internal/agentinput"
	"askuser/internal/agents/claudecode"
	"askuser/socketproto"
)

const claudeHookSynopsis = `claude-hook [--socket PATH] [--config PATH]

A Claude Code hook command, for three hooks:

PreToolUse: given AskUserQuestion's call on stdin, it asks those questions
through askuserd, waits, and prints the hook output that hands Claude Code
the answers, so its own dialog never shows. For any other tool it prints
nothing.

PermissionRequest: given a permission prompt, it asks in askuser whether to
allow the tool with its whole input shown: Allow, Deny (a note or typed text
is the message the model reads), or one of Claude Code's "don't ask again"
suggestions. If Claude Code's own dialog is answered first, the question is
withdrawn from askuser as soon as Claude Code's session record says so (or
the call's result is in the session's transcript, or Claude Code ends the
hook), saying how it was answered there: a later answer in askuser is then
refused, and history records Claude Code's outcome.

Elicitation: an MCP server's form becomes typed questions in askuser, one
per field (choices, Yes / No, numbers and text checked against the form's
rules); accepted, the answers go to the server with their JSON types;
declined in askuser, a decline. A URL the server asks the user to visit is
shown, never opened, with the question whether the user finished there.
Ended by Claude Code (its timeout, the elicitation abandoned), the question
is withdrawn and the answer is a cancel.

When askuserd cannot be reached it prints nothing, and Claude Code asks in
its own dialog. It exits 0 unless a signal ends it.

In ~/.claude/settings.json ("askuser-client integrate claude [--permissions]"
writes it; PermissionRequest only with --permissions):
  "hooks": {
    "PreToolUse": [{"matcher": "AskUserQuestion",
      "hooks": [{"type": "command", "command": "askuser-client claude-hook", "timeout": 86400}]}],
    "Elicitation": [{"matcher": "*",
      "hooks": [{"type": "command", "command": "askuser-client claude-hook", "timeout": 86400}]}],
    "PermissionRequest": [{"matcher": "*",
      "hooks": [{"type": "command", "command": "askuser-client claude-hook", "timeout": 86400}]}]}`

// maxHookInput bounds what is read from Claude Code: a tool call is small.
const maxHookInput = 8 << 20

var claudeHookCommand = command{
	name:     "claude-hook",
	summary:  "answer Claude Code's AskUserQuestion, permission prompts and MCP elicitations in askuser (a hook)",
	synopsis: claudeHookSynopsis,
	daemon:   reachDaemon,
	args:     noArgs,
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		return func(x *invocation) error { return exitStatus(runClaudeHook(x)) }
	},
}

// runClaudeHook answers AskUserQuestion (PreToolUse), a permission prompt
// (PermissionRequest) or an MCP elicitation (Elicitation) through the daemon; its exit code is always 0, unless
// a signal ended it.
func runClaudeHook(x *invocation) int {
	began := time.Now()
	stdin, stderr := x.stdin, x.stderr
	// Whatever goes wrong below, the hook exits 0 with nothing on stdout:
	// Claude Code then carries on as if there were no hook and asks in its
	// own dialog, which is better than a question lost.
	data, err := io.ReadAll(io.LimitReader(stdin, maxHookInput+1))
	if err != nil {
		fmt.Fprintf(stderr, "askuser-client claude-hook: reading stdin: %v\n", err)
		return exitOK
	}
	if len(data) > maxHookInput {
		fmt.Fprintf(stderr, "askuser-client claude-hook: stdin: more than %d bytes; not a hook input\n", maxHookInput)
		return exitOK
	}
	var in claudecode.HookInput
	if err := json.Unmarshal(data, &in); err != nil {
		fmt.Fprintf(stderr, "askuser-client claude-hook: stdin: not a Claude Code hook input: %v\n", err)
		return exitOK
	}
	in.Began = began
	switch in.HookEventName {
	case "PermissionRequest":
		return runPermissionHook(x, in)
	case "Elicitation":
		return runElicitationHook(x, in)
	case "", "PreToolUse":
		if in.ToolName == claudecode.AskTool {
			return runAskHook(x, in)
		}
	}
	return exitOK
}

// runAskHook answers AskUserQuestion's call before it runs: the call is
// allowed with the answers in its input, so Claude Code's dialog never shows.
func runAskHook(x *invocation, in claudecode.HookInput) int {
	updated, code, ok := askNative(x, in)
	if !ok {
		return code
	}
	return writeHookOutput(x, claudeHook.command, map[string]any{
		"hookEventName":      "PreToolUse",
		"permissionDecision": "allow",
		"updatedInput":       updated,
	})
}

// askNative asks AskUserQuestion's questions and returns its input with the
// answers; ok false means the hook ends now with code and prints nothing.
func askNative(x *invocation, in claudecode.HookInput) (updated map[string]json.RawMessage, code int, ok bool) {
	cfg, err := x.config()
	if err != nil {
		fmt.Fprintln(x.stderr, "askuser-client claude-hook:", err)
		return nil, exitOK, false
	}
	req, perr := claudecode.Request(in.ToolInput, cfg.Limits)
	if perr != nil {
		fmt.Fprintf(x.stderr, "askuser-client claude-hook: tool_input.%s\n", perr.Message)
		return nil, exitOK, false
	}
	resp, code, ok := hookAsk(x, in, req, nil)
	if !ok {
		return nil, code, false
	}
	updated, err = claudecode.UpdatedInput(in.ToolInput, req.Questions, resp)
	if err != nil {
		fmt.Fprintf(x.stderr, "askuser-client claude-hook: tool_input: %v\n", err)
		return nil, exitOK, false
	}
	return updated, exitOK, true
}

// runPermissionHook answers a permission prompt in askuser: Allow, Deny (the
// user's words become the message the model reads) or one of Claude Code's
// "don't ask again" suggestions, handed back as updatedPermissions.
// AskUserQuestion's own prompt is its questions, answered as the PreToolUse
// hook answers them.
func runPermissionHook(x *invocation, in claudecode.HookInput) int {
	if in.ToolName == "" {
		return exitOK
	}
	if in.ToolName == claudecode.AskTool {
		updated, code, ok := askNative(x, in)
		if !ok {
			return code
		}
		return writeHookOutput(x, claudeHook.command, claudecode.PermissionOutput(map[string]any{"behavior": "allow", "updatedInput": updated}))
	}
	input := agentinput.UnquoteJSON(in.ToolInput)
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	perm := claudecode.Permission{Tool: in.ToolName, Input: input, Suggestions: in.PermissionSuggestions}
	watch := claudecode.NewSettledWatch(in.TranscriptPath, in.SessionID, in.ToolName, input, in.Began)
	resp, code, ok := hookAsk(x, in, perm.Request(), watch)
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
	return writeHookOutput(x, claudeHook.command, claudecode.PermissionOutput(decision))
}

// hookAsk asks req through the daemon as Claude Code's session and waits
// (agentHook.ask); watch (nil: none) says when, and how, the user answered
// in Claude Code's own dialog, which withdraws the question saying so.
func hookAsk(x *invocation, in claudecode.HookInput, req socketproto.AskUserRequest, watch *claudecode.SettledWatch) (resp socketproto.Response, code int, ok bool) {
	var elsewhere func(<-chan struct{}) <-chan string
	if watch != nil {
		elsewhere = watch.Settled
	}
	return claudeHook.ask(x, in.SessionID, in.Cwd, req, elsewhere)
}
