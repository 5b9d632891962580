package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"askuser/internal/agentinput"
	"askuser/socketproto"
	"askuser/socketproto/askclient"
)

// What the agents' hooks (claude-hook, codex-hook) share.

// agentHook is one agent's hook command.
type agentHook struct {
	command  string // "claude-hook", in what goes to stderr
	agent    string // the agent's name in the pane ("claude-code")
	fallback string // what the agent does without an answer from askuser
	own      string // the agent's own prompt, where the user may answer first
}

var (
	claudeHook = agentHook{command: "claude-hook", agent: "claude-code", fallback: "Claude Code asks in its own dialog", own: "Claude Code's own dialog"}
	codexHook  = agentHook{command: "codex-hook", agent: "codex", fallback: "Codex asks in its own prompt", own: "Codex's own prompt"}
)

// ask asks req through the daemon as the agent's session and waits. ok
// false means there is no answer to give the agent: the hook ends with code
// and prints nothing, and the agent asks in its own prompt. A SIGTERM or
// SIGINT (the agent answered in its own prompt first, the user pressed Esc,
// the hook's timeout passed) withdraws the question from askuser before the
// hook exits; so does a word from answeredElsewhere's channel (nil: never),
// which says how the user answered in the agent's own prompt: the
// withdrawal carries it (askclient.Settled), so askuser refuses a later
// answer with it and history records it.
func (h agentHook) ask(x *invocation, sessionID, cwd string, req socketproto.AskUserRequest,
	answeredElsewhere func(done <-chan struct{}) <-chan string) (resp socketproto.Response, code int, ok bool) {
	stderr := x.stderr
	if _, err := x.config(); err != nil {
		fmt.Fprintf(stderr, "askuser-client %s: %v; %s\n", h.command, err, h.fallback)
		return resp, exitOK, false
	}
	c, err := x.client()
	if err != nil {
		fmt.Fprintf(stderr, "askuser-client %s: %v; %s\n", h.command, err, h.fallback)
		return resp, exitOK, false
	}
	req.RequestID = askclient.NewRequestID()
	req.Agent = hookAgent(h.agent, sessionID, cwd)

	sigCtx, sig, stop := signalContext()
	defer stop()
	ctx, cancel := context.WithCancelCause(sigCtx)
	defer cancel(nil)
	if answeredElsewhere != nil {
		elsewhere := answeredElsewhere(ctx.Done())
		go func() {
			select {
			case how := <-elsewhere:
				cancel(askclient.Settled{How: how})
			case <-ctx.Done():
			}
		}()
	}
	resp, err = c.Ask(ctx, req, nil)
	if err != nil {
		var settled askclient.Settled
		if sigCtx.Err() == nil && errors.As(context.Cause(ctx), &settled) {
			fmt.Fprintf(stderr, "askuser-client %s: %s; request %s withdrawn\n", h.command, settled.How, req.RequestID)
			return resp, exitOK, false
		}
		return resp, hookAskFailed(stderr, h.command, h.fallback, req.RequestID, err, ctx, sig), false
	}
	return resp, exitOK, !resp.ConnectionLost
}

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
