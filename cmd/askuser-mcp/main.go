// Command askuser-mcp is askuser's MCP server on stdio (docs/contract.md §8): the tools
// ask_user_question, ask_user and permission_prompt, served over the daemon.
// Agents start it as `askuser-client mcp`, which runs this program in its
// place; it is a program of its own so that the MCP SDK and what it links
// (net/http, crypto/tls, JSON Schema) are loaded only by the server, not by
// every short askuser-client command an agent or a script runs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"askuser/cmd/internal/clientflags"
	"askuser/cmd/internal/mcpserver"
)

// Exit codes, as askuser-client's (docs/contract.md §7).
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

func main() {
	name := "askuser-mcp"
	// Run by askuser-client for `askuser-client mcp`: messages and ps
	// then show what the user typed.
	if os.Args[0] == clientflags.MCPViaClient {
		name = clientflags.MCPViaClient
	}
	os.Exit(run(name, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run serves until the MCP client closes stdin or the process is told to
// stop.
func run(name string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf clientflags.Conn
	cf.Register(fs, true)
	// Here an unreachable daemon is a tool error, not an exit code.
	fs.Lookup("no-autostart").Usage = "do not start askuserd when none answers: calls then fail with a tool error saying how to start it"
	subagent := fs.Bool("subagent", false, "this server serves a sub-agent: refuse every call (also ASKUSER_SUBAGENT=1)")
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, "usage: askuser-client mcp [--socket PATH] [--config PATH] [--subagent] [--no-autostart]")
		fmt.Fprintln(w, "       askuser-mcp [same flags]")
		fmt.Fprintln(w, "\nAn MCP server on stdio with the tools ask_user_question (strict) and ask_user (flexible),")
		fmt.Fprintln(w, "and permission_prompt for Claude Code's --permission-prompt-tool mcp__askuser__permission_prompt.")
		fmt.Fprintln(w, "Register it with your agent: askuser-client integrate claude|codex|gemini --write")
		fmt.Fprintln(w, "\nflags:")
		fs.PrintDefaults()
	}
	if err := clientflags.Parse(fs, args, stdout, name); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", name, fs.Arg(0))
		clientflags.HelpHint(stderr, name)
		return exitUsage
	}
	// A broken config.toml is refused here rather than at the first tool
	// call: the MCP client shows the server's stderr when it fails to start,
	// which is where the user looks.
	conn, err := cf.Resolve(true, stderr, name)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return exitFailed
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
	cfg := mcpserver.Config{Client: conn.Client, Limits: conn.Config.Limits, Subagent: *subagent}
	if err := mcpserver.Serve(ctx, cfg, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return exitFailed
	}
	return exitOK
}
