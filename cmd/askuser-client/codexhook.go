package main

import (
	"flag"

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
		return func(x *invocation) error { return exitStatus(codex.RunHook(hookEnv(x))) }
	},
}
