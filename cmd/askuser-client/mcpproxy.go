package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"askuser/cmd/internal/mcpproxy"
	"askuser/socketproto"
	"askuser/socketproto/askclient"
)

// mcpProxyCommand runs an stdio MCP server behind a relay that answers the
// server's elicitations in askuser (docs/contract.md §8; cmd/internal/mcpproxy).
var mcpProxyCommand = command{
	name:     "mcp-proxy",
	summary:  "run an stdio MCP server and answer its elicitation forms in askuser",
	synopsis: "mcp-proxy [--agent-id ID] [--subagent] [flags] -- COMMAND [ARG…]",
	daemon:   startDaemon,
	raw:      true, // flags end at "--" or the server's command; its own flags are its own
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		agentID := fs.String("agent-id", "", "the agent id questions are asked under (default: $ASKUSER_AGENT_ID, else the MCP client's name and this process's id)")
		subagent := fs.Bool("subagent", false, "the proxy serves a sub-agent: its elicitations are not asked (also ASKUSER_SUBAGENT=1)")
		// Here an unreachable daemon is the server's error, not an exit code.
		fs.Lookup("no-autostart").Usage = "do not start askuserd when none answers: elicitations then fail with an error saying how to start it"
		flagsUsage := fs.Usage
		fs.Usage = func() {
			flagsUsage()
			fmt.Fprint(fs.Output(), mcpProxyHelp)
		}
		return func(x *invocation) error {
			argv, r, err := x.wrappedCommand(fs, "want the MCP server's command: askuser-client mcp-proxy -- COMMAND [ARG…]")
			if err != nil {
				return err
			}
			agent := askclient.AgentFromEnv()
			if *agentID != "" {
				agent.ID = *agentID
			}
			if *subagent {
				agent.Subagent = true
			}
			return runProxy(x, r, agent, argv)
		}
	},
}

const mcpProxyHelp = `
Runs COMMAND, an MCP server on stdio, and relays every message between it and
the MCP client that started this proxy, unchanged, except:
  - the client's initialize request tells the server the client can elicit
    (forms and URLs), so servers that ask their user do;
  - the server's elicitation/create requests are answered here, in askuser:
    each field of the form is a typed question (enums as options, booleans as
    Yes / No, numbers and strings with their rules, defaults pre-filled); the
    answers go back with their JSON types. Declining in askuser declines the
    form; a form withdrawn (the client quits, the proxy is stopped) is
    cancelled. A URL is shown, never opened: you are asked whether you
    finished there;
  - the client's lines reach the server only as JSON-RPC messages it may
    send: a line that is not JSON gets a parse error back, and an answer
    to a request the client was never sent (keys are matched case-exactly)
    is dropped.
Even when the MCP client can elicit itself, forms are answered in askuser; the
client's own form is used only when askuserd cannot be reached or the form
has a field askuser cannot ask.

Wrap a configured server: askuser-client integrate claude|gemini --wrap NAME
`

// runProxy runs the server through mcpproxy until the client goes away,
// the server exits, or the proxy is told to stop (a signal, whose
// conventional status it then exits with).
func runProxy(x *invocation, res resolved, agent socketproto.Agent, argv []string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	var got os.Signal
	go func() {
		select {
		case got = <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	// A client that goes away closes our stdout: a write to it must fail
	// with EPIPE, not kill the proxy before it withdrew its questions and
	// stopped its server.
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)

	client := askclient.New(res.Client)
	code, err := mcpproxy.Run(ctx, mcpproxy.Options{
		Argv: argv, Stdin: x.stdin, Stdout: x.stdout, Stderr: x.stderr,
		Ask: func(ctx context.Context, req socketproto.AskUserRequest) (socketproto.Response, error) {
			return client.Ask(ctx, req, nil)
		},
		Limits:    res.Config.Limits,
		Agent:     agent,
		Autostart: res.Client.Autostart,
	})
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return exitStatus(signalExit(got)) // got is written before ctx is cancelled
	}
	return exitStatus(code)
}
