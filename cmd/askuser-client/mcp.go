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

	"askuser/cmd/askuser-client/internal/mcpserver"
)

// runMCP serves ask_user_question, ask_user and permission_prompt (SPEC §8) on stdin/stdout
// until the MCP client closes stdin or the process is told to stop.
func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("askuser-client mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf connFlags
	cf.register(fs, true)
	// Here an unreachable daemon is a tool error, not an exit code.
	fs.Lookup("no-autostart").Usage = "do not start askuserd when none answers: calls then fail with a tool error saying how to start it"
	subagent := fs.Bool("subagent", false, "this server serves a sub-agent: refuse every call (also ASKUSER_SUBAGENT=1)")
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, "usage: askuser-client mcp [--socket PATH] [--config PATH] [--subagent] [--no-autostart]")
		fmt.Fprintln(w, "\nAn MCP server on stdio with the tools ask_user_question (strict) and ask_user (flexible),")
		fmt.Fprintln(w, "and permission_prompt for Claude Code's --permission-prompt-tool mcp__askuser__permission_prompt.")
		fmt.Fprintln(w, "Register it with your agent: askuser-client integrate claude|codex|gemini --write")
		fmt.Fprintln(w, "\nflags:")
		fs.PrintDefaults()
	}
	if err := parseHelpToStdout(fs, args, stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "askuser-client mcp: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	// A broken config.toml is refused here rather than at the first tool
	// call: the MCP client shows the server's stderr when it fails to start,
	// which is where the user looks.
	conn, err := cf.resolve(true)
	if err != nil {
		fmt.Fprintln(stderr, "askuser-client mcp:", err)
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
	cfg := mcpserver.Config{Client: conn.opts, Limits: conn.cfg.Limits, Subagent: *subagent}
	if err := mcpserver.Serve(ctx, cfg, stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "askuser-client mcp:", err)
		return exitFailed
	}
	return exitOK
}
