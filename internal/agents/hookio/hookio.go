// Package hookio is what the agents' hook commands share (claude-hook,
// codex-hook): reading the hook's input, asking through the daemon as the
// agent's session and withdrawing on a signal, and printing the one line
// of output the agent reads. Whatever goes wrong, a hook exits 0 with
// nothing on stdout, so that the agent asks in its own prompt: better than
// a question lost. It knows no agent; each folder names its own Hook.
package hookio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"askuser/internal/agentinput"
	"askuser/internal/config"
	"askuser/socketproto"
	"askuser/socketproto/askclient"
)

// ExitOK is a hook's exit code unless a signal ends it.
const ExitOK = 0

// Env is what the hook command hands a hook: its streams, askuser's
// configuration and daemon, and the signals that end it.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Config is config.toml with its defaults, Client the daemon's
	// client; each read when first asked for.
	Config func() (config.Config, error)
	Client func() (*askclient.Client, error)
	// Signals starts watching for SIGINT and SIGTERM: ctx ends on one,
	// exit is then the command's exit code for it, stop ends the watch.
	Signals func() (ctx context.Context, exit func() int, stop func())
}

// MaxInput bounds what is read from an agent: a tool call is small.
const MaxInput = 8 << 20

// Hook is one agent's hook command.
type Hook struct {
	Command  string // "claude-hook", in what goes to stderr
	Agent    string // the agent's name in the pane ("claude-code")
	Fallback string // what the agent does without an answer from askuser
}

// ReadInput reads the hook's input from stdin into in, what naming it in a
// refusal ("a Claude Code hook input"). ok false (said on stderr) means
// there is none: the hook ends with exit 0 and prints nothing.
func (h Hook) ReadInput(env Env, in any, what string) (ok bool) {
	data, err := io.ReadAll(io.LimitReader(env.Stdin, MaxInput+1))
	if err != nil {
		fmt.Fprintf(env.Stderr, "askuser-client %s: reading stdin: %v\n", h.Command, err)
		return false
	}
	if len(data) > MaxInput {
		fmt.Fprintf(env.Stderr, "askuser-client %s: stdin: more than %d bytes; not a hook input\n", h.Command, MaxInput)
		return false
	}
	if err := json.Unmarshal(data, in); err != nil {
		fmt.Fprintf(env.Stderr, "askuser-client %s: stdin: not %s: %v\n", h.Command, what, err)
		return false
	}
	return true
}

// Ask asks req through the daemon as the agent's session and waits. ok
// false means there is no answer to give the agent: the hook ends with code
// and prints nothing, and the agent asks in its own prompt. A SIGTERM or
// SIGINT (the agent answered in its own prompt first, the user pressed Esc,
// the hook's timeout passed) withdraws the question from askuser before the
// hook exits; so does a word from answeredElsewhere's channel (nil: never),
// which says how the user answered in the agent's own prompt: the
// withdrawal carries it (askclient.Settled), so askuser refuses a later
// answer with it and history records it.
func (h Hook) Ask(env Env, sessionID, cwd string, req socketproto.AskUserRequest,
	answeredElsewhere func(done <-chan struct{}) <-chan string) (resp socketproto.Response, code int, ok bool) {
	stderr := env.Stderr
	if _, err := env.Config(); err != nil {
		fmt.Fprintf(stderr, "askuser-client %s: %v; %s\n", h.Command, err, h.Fallback)
		return resp, ExitOK, false
	}
	c, err := env.Client()
	if err != nil {
		fmt.Fprintf(stderr, "askuser-client %s: %v; %s\n", h.Command, err, h.Fallback)
		return resp, ExitOK, false
	}
	req.RequestID = askclient.NewRequestID()
	req.Agent = agent(h.Agent, sessionID, cwd)

	sigCtx, exit, stop := env.Signals()
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
			fmt.Fprintf(stderr, "askuser-client %s: %s; request %s withdrawn\n", h.Command, settled.How, req.RequestID)
			return resp, ExitOK, false
		}
		return resp, h.askFailed(stderr, req.RequestID, err, ctx, exit), false
	}
	return resp, ExitOK, !resp.ConnectionLost
}

// WriteOutput prints {"hookSpecificOutput": out}, the one line the agent
// reads from its hook.
func (h Hook) WriteOutput(env Env, out map[string]any) int {
	b, err := json.Marshal(map[string]any{"hookSpecificOutput": out})
	if err != nil {
		fmt.Fprintf(env.Stderr, "askuser-client %s: encoding the answer: %v\n", h.Command, err)
		return ExitOK
	}
	b = append(b, '\n')
	if _, err := env.Stdout.Write(b); err != nil {
		fmt.Fprintf(env.Stderr, "askuser-client %s: writing the answer: %v\n", h.Command, err)
	}
	return ExitOK
}

// agent is who asks from an agent's hook: its session ("NAME-SESSION"),
// so two sessions are two agents in the pane; ASKUSER_AGENT_ID, when set, is
// the id instead.
func agent(name, sessionID, cwd string) *socketproto.Agent {
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

// askFailed says on stderr why a hook's question got no answer in askuser
// and returns the hook's exit code: after a signal (the agent ended the
// hook) the question was withdrawn; otherwise the agent asks in its own
// prompt (Fallback says how).
func (h Hook) askFailed(stderr io.Writer, id string, err error, ctx context.Context, exit func() int) int {
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "askuser-client %s: interrupted; request %s withdrawn\n", h.Command, id)
		return exit()
	}
	var pe *socketproto.Error
	if errors.As(err, &pe) {
		fmt.Fprintf(stderr, "askuser-client %s: askuserd refused the question: %s; %s\n", h.Command, pe.Error(), h.Fallback)
	} else {
		fmt.Fprintf(stderr, "askuser-client %s: %v; %s\n", h.Command, err, h.Fallback)
	}
	return ExitOK
}
