package codex

import (
	"encoding/json"

	"askuser/internal/agentinput"
	"askuser/internal/agents/claudecode"
	"askuser/internal/agents/hookio"
)

// hook is codex-hook, asking as Codex ("codex" in the pane).
var hook = hookio.Hook{Command: "codex-hook", Agent: Kind, Fallback: "Codex asks in its own prompt"}

// RunHook is codex-hook (docs/contract.md §11): it answers one approval
// prompt through the daemon. Whatever goes wrong, it exits 0 with nothing
// on stdout: Codex then asks in its own prompt, which is better than a
// prompt lost.
func RunHook(env hookio.Env) int {
	var in HookInput
	if !hook.ReadInput(env, &in, "a Codex hook input") {
		return hookio.ExitOK
	}
	if in.HookEventName != "PermissionRequest" || in.ToolName == "" {
		return hookio.ExitOK
	}
	input := agentinput.UnquoteJSON(in.ToolInput)
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	// The same question as Claude Code's permission prompt: Allow approves
	// the whole input, shown as its preview. Codex has no "don't ask
	// again" suggestions to offer, and refuses updatedPermissions.
	perm := claudecode.Permission{Tool: in.ToolName, Input: input, Agent: Kind, Form: PreviewForm(in.ToolName)}
	resp, code, ok := hook.Ask(env, in.SessionID, in.Cwd, perm.Request(), nil)
	if !ok {
		return code
	}
	d := perm.Decide(resp)
	decision := map[string]any{"behavior": "deny", "message": d.Message}
	if d.Allow {
		decision = map[string]any{"behavior": "allow"}
	}
	return hook.WriteOutput(env, PermissionOutput(decision))
}
