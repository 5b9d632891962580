package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"askuser/cmd/internal/agentinput"
	"askuser/cmd/internal/claudecode"
	"askuser/socketproto"
	"askuser/socketproto/askclient"
)

const claudeHookSynopsis = `claude-hook [--socket PATH] [--config PATH]

A Claude Code PreToolUse hook command. Given AskUserQuestion's call on stdin,
it asks those questions through askuserd, waits, and prints the hook output
that hands Claude Code the answers, so its own dialog never shows. For any
other tool it prints nothing. When askuserd cannot be reached it prints
nothing either, and Claude Code asks in its own dialog. It always exits 0.

In ~/.claude/settings.json ("askuser-client integrate claude" writes it):
  "hooks": {"PreToolUse": [{"matcher": "AskUserQuestion",
    "hooks": [{"type": "command", "command": "askuser-client claude-hook", "timeout": 86400}]}]}`

// maxHookInput bounds what is read from Claude Code: a tool call is small.
const maxHookInput = 8 << 20

// claudeHookInput is the part of Claude Code's PreToolUse input the hook reads.
type claudeHookInput struct {
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
}

var claudeHookCommand = command{
	name:     "claude-hook",
	summary:  "answer Claude Code's own AskUserQuestion in askuser (a PreToolUse hook)",
	synopsis: claudeHookSynopsis,
	daemon:   reachDaemon,
	args:     noArgs,
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		return func(x *invocation) error { return exitStatus(runClaudeHook(x)) }
	},
}

// runClaudeHook answers AskUserQuestion through the daemon; its exit code is
// always 0.
func runClaudeHook(x *invocation) int {
	stdin, stdout, stderr := x.stdin, x.stdout, x.stderr
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
	var in claudeHookInput
	if err := json.Unmarshal(data, &in); err != nil {
		fmt.Fprintf(stderr, "askuser-client claude-hook: stdin: not a Claude Code hook input: %v\n", err)
		return exitOK
	}
	if in.ToolName != claudecode.AskTool || (in.HookEventName != "" && in.HookEventName != "PreToolUse") {
		return exitOK
	}
	cfg, err := x.config()
	if err != nil {
		fmt.Fprintln(stderr, "askuser-client claude-hook:", err)
		return exitOK
	}
	c, err := x.client()
	if err != nil {
		fmt.Fprintln(stderr, "askuser-client claude-hook:", err)
		return exitOK
	}
	req, perr := claudecode.Request(in.ToolInput, cfg.Limits)
	if perr != nil {
		fmt.Fprintf(stderr, "askuser-client claude-hook: tool_input.%s\n", perr.Message)
		return exitOK
	}
	req.RequestID = askclient.NewRequestID()
	req.Agent = claudeHookAgent(in)

	ctx, sig, stop := signalContext()
	defer stop()
	resp, err := c.Ask(ctx, req, nil)
	if err != nil {
		if ctx.Err() != nil {
			// Claude Code gave up on the hook (the user pressed Esc, or
			// the hook's timeout passed): the question is withdrawn.
			fmt.Fprintf(stderr, "askuser-client claude-hook: interrupted; request %s withdrawn\n", req.RequestID)
			return signalExit(sig())
		}
		var pe *socketproto.Error
		if errors.As(err, &pe) {
			fmt.Fprintf(stderr, "askuser-client claude-hook: askuserd refused the questions: %s\n", pe.Error())
		} else {
			fmt.Fprintf(stderr, "askuser-client claude-hook: %v; Claude Code asks in its own dialog\n", err)
		}
		return exitOK
	}
	if resp.ConnectionLost {
		return exitOK
	}
	updated, err := claudecode.UpdatedInput(in.ToolInput, req.Questions, resp)
	if err != nil {
		fmt.Fprintf(stderr, "askuser-client claude-hook: tool_input: %v\n", err)
		return exitOK
	}
	out := map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName":      "PreToolUse",
		"permissionDecision": "allow",
		"updatedInput":       updated,
	}}
	b, err := json.Marshal(out)
	if err != nil {
		fmt.Fprintf(stderr, "askuser-client claude-hook: encoding the answer: %v\n", err)
		return exitOK
	}
	b = append(b, '\n')
	if _, err := stdout.Write(b); err != nil {
		fmt.Fprintf(stderr, "askuser-client claude-hook: writing the answer: %v\n", err)
	}
	return exitOK
}

// claudeHookAgent is who asks: Claude Code's session, so two sessions are two
// agents in the pane; ASKUSER_AGENT_ID, when set, is the id instead.
func claudeHookAgent(in claudeHookInput) *socketproto.Agent {
	a := askclient.AgentFromEnv()
	if a.ID == "" {
		a.ID = "claude-code"
		if s := agentinput.Slug(in.SessionID); in.SessionID != "" && s != "mcp" {
			a.ID += "-" + s
		}
	}
	a.Name = "claude-code"
	if in.Cwd != "" && len(in.Cwd) <= socketproto.MaxAgentCwdChars {
		a.Cwd = agentinput.Printable(in.Cwd, socketproto.MaxAgentCwdChars)
	}
	return &a
}
