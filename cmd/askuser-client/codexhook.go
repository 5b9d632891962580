package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"askuser/internal/agentinput"
	"askuser/internal/agents/claudecode"
	"askuser/internal/agents/codex"
)

const codexHookSynopsis = `codex-hook [--socket PATH] [--config PATH]

A Codex hook command for its PermissionRequest hook: given an approval
prompt (a shell command Codex wants to run outside its sandbox, or a network
access), it asks in askuser whether to allow it, with the whole command
shown: Allow, or Deny (a note or typed text is the message the model reads).

Codex runs the hook before it shows its own approval prompt, and shows that
prompt only when the hook gives no decision. So when askuserd cannot be
reached, or refuses the question, the hook prints nothing and Codex asks as
usual. A SIGTERM or SIGINT withdraws the question from askuser. It exits 0
unless a signal ends it.

In ~/.codex/config.toml ("askuser-client integrate codex --permissions"
writes it; Codex runs it once you trust it in /hooks):
  [[hooks.PermissionRequest]]
  matcher = "*"
  [[hooks.PermissionRequest.hooks]]
  type = "command"
  command = "askuser-client codex-hook"
  timeout = 86400`

var codexHookCommand = command{
	name:     "codex-hook",
	summary:  "answer Codex's approval prompts in askuser (its PermissionRequest hook)",
	synopsis: codexHookSynopsis,
	daemon:   reachDaemon,
	args:     noArgs,
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		return func(x *invocation) error { return exitStatus(runCodexHook(x)) }
	},
}

// runCodexHook answers one approval prompt through the daemon. Whatever
// goes wrong, it exits 0 with nothing on stdout: Codex then asks in its own
// prompt, which is better than a prompt lost.
func runCodexHook(x *invocation) int {
	data, err := io.ReadAll(io.LimitReader(x.stdin, maxHookInput+1))
	if err != nil {
		fmt.Fprintf(x.stderr, "askuser-client codex-hook: reading stdin: %v\n", err)
		return exitOK
	}
	if len(data) > maxHookInput {
		fmt.Fprintf(x.stderr, "askuser-client codex-hook: stdin: more than %d bytes; not a hook input\n", maxHookInput)
		return exitOK
	}
	var in codex.HookInput
	if err := json.Unmarshal(data, &in); err != nil {
		fmt.Fprintf(x.stderr, "askuser-client codex-hook: stdin: not a Codex hook input: %v\n", err)
		return exitOK
	}
	if in.HookEventName != "PermissionRequest" || in.ToolName == "" {
		return exitOK
	}
	input := agentinput.UnquoteJSON(in.ToolInput)
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	// The same question as Claude Code's permission prompt: Allow approves
	// the whole input, shown as its preview. Codex has no "don't ask
	// again" suggestions to offer, and refuses updatedPermissions.
	perm := claudecode.Permission{Tool: in.ToolName, Input: input, Agent: "codex", Form: codex.PreviewForm(in.ToolName)}
	resp, code, ok := codexHook.ask(x, in.SessionID, in.Cwd, perm.Request(), nil)
	if !ok {
		return code
	}
	d := perm.Decide(resp)
	decision := map[string]any{"behavior": "deny", "message": d.Message}
	if d.Allow {
		decision = map[string]any{"behavior": "allow"}
	}
	return writeHookOutput(x, codexHook.command, codex.PermissionOutput(decision))
}
