package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"askuser/cmd/internal/agentinput"
	"askuser/socketproto"
	"askuser/socketproto/askclient"
)

// What the agents' hooks (claude-hook, codex-hook) share.

// writeHookOutput prints {"hookSpecificOutput": out}, the one line the agent
// reads from its hook; hook names the command in what goes to stderr.
func writeHookOutput(x *invocation, hook string, out map[string]any) int {
	b, err := json.Marshal(map[string]any{"hookSpecificOutput": out})
	if err != nil {
		fmt.Fprintf(x.stderr, "askuser-client %s: encoding the answer: %v\n", hook, err)
		return exitOK
	}
	b = append(b, '\n')
	if _, err := x.stdout.Write(b); err != nil {
		fmt.Fprintf(x.stderr, "askuser-client %s: writing the answer: %v\n", hook, err)
	}
	return exitOK
}

// hookAgent is who asks from an agent's hook: its session ("NAME-SESSION"),
// so two sessions are two agents in the pane; ASKUSER_AGENT_ID, when set, is
// the id instead.
func hookAgent(name, sessionID, cwd string) *socketproto.Agent {
	a := askclient.AgentFromEnv()
	if a.ID == "" {
		a.ID = name
		if s := agentinput.Slug(sessionID); sessionID != "" && s != "mcp" {
			a.ID += "-" + s
		}
	}
	a.Name = name
	if cwd != "" && len(cwd) <= socketproto.MaxAgentCwdChars {
		a.Cwd = agentinput.Printable(cwd, socketproto.MaxAgentCwdChars)
	}
	return &a
}

// hookAskFailed says on stderr why a hook's question got no answer in
// askuser and returns the hook's exit code: after a signal (the agent ended
// the hook) the question was withdrawn; otherwise the agent asks in its own
// prompt (fallback says how).
func hookAskFailed(stderr io.Writer, hook, fallback, id string, err error, ctx context.Context, sig func() os.Signal) int {
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "askuser-client %s: interrupted; request %s withdrawn\n", hook, id)
		return signalExit(sig())
	}
	var pe *socketproto.Error
	if errors.As(err, &pe) {
		fmt.Fprintf(stderr, "askuser-client %s: askuserd refused the question: %s; %s\n", hook, pe.Error(), fallback)
	} else {
		fmt.Fprintf(stderr, "askuser-client %s: %v; %s\n", hook, err, fallback)
	}
	return exitOK
}
