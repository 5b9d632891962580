package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"askuser/cmd/internal/acpproxy"
	"askuser/socketproto"
	"askuser/socketproto/askclient"
)

// acpProxyCommand runs an ACP agent behind a relay that also asks its
// permission requests in askuser (docs/contract.md §11 "ACP").
var acpProxyCommand = command{
	name:     "acp-proxy",
	summary:  "run an ACP agent for an editor, its permission requests answered in the editor or askuser",
	synopsis: "acp-proxy [--agent-id ID] [flags] -- AGENT [ARG…]",
	daemon:   startDaemon,
	raw:      true, // flags end at "--" or the agent's command; its own flags are its own
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		agentID := fs.String("agent-id", "", "the agent id questions are asked under (default: $ASKUSER_AGENT_ID, else the agent's name and session)")
		flagsUsage := fs.Usage
		fs.Usage = func() {
			flagsUsage()
			fmt.Fprint(fs.Output(), acpProxyHelp)
		}
		return func(x *invocation) error {
			argv, res, err := x.wrappedCommand(fs, "want the agent's command: askuser-client acp-proxy -- AGENT [ARG…]")
			if err != nil {
				return err
			}
			agent := askclient.AgentFromEnv()
			agent.Cwd = "" // the session's, from session/new
			if *agentID != "" {
				agent.ID = *agentID
			}
			client := askclient.New(res.Client)
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			// An editor that goes away closes our stdout: a write to it
			// must fail with EPIPE, not kill the proxy before it withdrew
			// its questions and stopped the agent.
			signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
			code, err := acpproxy.Run(ctx, acpproxy.RunOptions{
				Argv: argv, Stdin: x.stdin, Stdout: x.stdout, Stderr: x.stderr,
				Ask: func(ctx context.Context, req socketproto.AskUserRequest, onQueued func(socketproto.Queued)) (socketproto.Response, error) {
					return client.Ask(ctx, req, onQueued)
				},
				Limits: res.Config.Limits,
				Agent:  agent,
			})
			if err != nil {
				fmt.Fprintln(x.stderr, "askuser-client acp-proxy:", err)
			}
			return exitStatus(code)
		}
	},
}

const acpProxyHelp = `
Runs AGENT, an ACP (Agent Client Protocol) agent on stdio, for the editor that
started this proxy, and relays every message both ways unchanged. Each
permission request the agent sends (session/request_permission) goes to the
editor as usual and waits in askuser too, with the agent's options and what
the tool call will do shown whole. The first answer wins: answered in
askuser, the agent gets that option and the editor is told to stop asking
($/cancel_request); answered in the editor, askuser's copy is withdrawn.
A cancelled turn withdraws it and the agent hears "cancelled".

In Zed's settings.json ("askuser-client integrate zed" writes it):
  "agent_servers": {"Claude Code (askuser)": {"command": "askuser-client",
    "args": ["acp-proxy", "--", "claude-code-acp"]}}
`
