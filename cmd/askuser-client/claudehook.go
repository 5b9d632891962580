package main

import (
	"flag"

	"askuser/internal/agents/claudecode"
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

var claudeHookCommand = command{
	name:     "claude-hook",
	summary:  "answer Claude Code's AskUserQuestion, permission prompts and MCP elicitations in askuser (a hook)",
	synopsis: claudeHookSynopsis,
	daemon:   reachDaemon,
	args:     noArgs,
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		return func(x *invocation) error { return exitStatus(claudecode.RunHook(hookEnv(x))) }
	},
}
