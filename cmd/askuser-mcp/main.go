// Command askuser-mcp is askuser's MCP server on stdio (docs/contract.md §8): the tools
// ask_user_question, ask_user and permission_prompt, served over the daemon.
// Agents start it as `askuser-client mcp`, which runs this program in its
// place; it is a program of its own so that the MCP SDK and what it links
// (net/http, crypto/tls, JSON Schema) are loaded only by the server, not by
// every short askuser-client command an agent or a script runs.
package main

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"syscall"

	"askuser/cmd/internal/clientflags"
	"askuser/cmd/internal/command"
	"askuser/cmd/internal/mcpserver"
)

func main() {
	name := "askuser-mcp"
	// Run by askuser-client for `askuser-client mcp`: messages and ps
	// then show what the user typed.
	if os.Args[0] == clientflags.MCPViaClient {
		name = clientflags.MCPViaClient
	}
	os.Exit(program(name, serve).Run(os.Args[1:], command.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}

// options are the server's flags.
type options struct {
	conn     clientflags.Conn
	subagent bool
}

// program is askuser-mcp under name: one command, the server, which runF
// runs.
func program(name string, runF func(name string, o options, s command.Streams) error) *command.Program {
	other := "askuser-client mcp"
	if name == clientflags.MCPViaClient {
		other = "askuser-mcp"
	}
	return &command.Program{Name: name, Default: &command.Command{
		Synopsis: `[--socket PATH] [--config PATH] [--subagent] [--no-autostart]
       ` + other + ` [same flags]

An MCP server on stdio with the tools ask_user_question (strict) and ask_user (flexible),
and permission_prompt for Claude Code's --permission-prompt-tool mcp__askuser__permission_prompt.
Register it with your agent: askuser-client integrate claude|codex|gemini --write`,
		Setup: func(fs *flag.FlagSet) command.Run {
			var o options
			o.conn.Register(fs, true)
			// Here an unreachable daemon is a tool error, not an exit code.
			fs.Lookup("no-autostart").Usage = "do not start askuserd when none answers: calls then fail with a tool error saying how to start it"
			fs.BoolVar(&o.subagent, "subagent", false, "this server serves a sub-agent: refuse every call (also ASKUSER_SUBAGENT=1)")
			return func(_ []string, s command.Streams) error { return runF(name, o, s) }
		},
	}}
}

// serve serves until the MCP client closes stdin or the process is told to
// stop.
func serve(name string, o options, s command.Streams) error {
	// A broken config.toml is refused here rather than at the first tool
	// call: the MCP client shows the server's stderr when it fails to start,
	// which is where the user looks.
	conn, err := o.conn.Resolve(true, s.Err, name)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// An MCP client that goes away closes our stdout. Unhandled, the next
	// write to it (a progress notification, another call's result) would kill
	// the process with SIGPIPE before it withdrew the questions still
	// waiting, leaving them orphaned in the pane. Handled, the write fails
	// with EPIPE, the SDK closes the session and the calls are withdrawn.
	// (Notify rather than Ignore: an ignored signal would be inherited by an
	// autostarted askuserd.)
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	// Calls in flight are withdrawn when the process is told to stop (the
	// SDK itself cancels them only when stdin closes).
	cfg := mcpserver.Config{Client: conn.Client, Limits: conn.Config.Limits, Subagent: o.subagent}
	return mcpserver.Serve(ctx, cfg, s.In, s.Out)
}
