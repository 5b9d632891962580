package main

import (
	"context"

	"askuser/internal/agents/hookio"
)

// hookEnv is what an agent's hook command (claude-hook, codex-hook) hands
// the agent's folder, which holds the hook itself: the command's streams,
// its config.toml and client, and its signals.
func hookEnv(x *invocation) hookio.Env {
	return hookio.Env{
		Stdin:  x.stdin,
		Stdout: x.stdout,
		Stderr: x.stderr,
		Config: x.config,
		Client: x.client,
		Signals: func() (context.Context, func() int, func()) {
			ctx, sig, stop := signalContext()
			return ctx, func() int { return signalExit(sig()) }, stop
		},
	}
}
