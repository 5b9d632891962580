// Command askuser-client is the agent's and the script's side of askuser
// (SPEC §7): ask and wait, answer, cancel, list, watch, and an MCP server.
// Each subcommand lives in its own file; the table below lists them all.
// What is more than flags and wiring lives in packages of its own: the
// agents' settings in internal/integrate, AskUserQuestion's translation in
// askuser/cmd/internal/claudecode, the tools' schemas and result shapes in
// askuser/socketproto/agenttool, the daemon's client in
// askuser/socketproto/askclient. The MCP server is the program askuser-mcp
// (askuser/cmd/internal/mcpserver), which `mcp` runs in this one's place.
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit codes of SPEC §7.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitCancelled   = 3
	exitUnreachable = 4
)

// command is one subcommand: run gets the arguments after its name.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands are all the subcommands, in the order help lists them.
var commands = []command{
	{"answer", "answer a waiting request as the user", runAnswer},
	{"ask", "ask the user and wait for the answer", runAsk},
	{"cancel", "decline a waiting request as the user", runCancel},
	{"claude-hook", "answer Claude Code's own AskUserQuestion in askuser (a PreToolUse hook)", runClaudeHook},
	{"history", "show the requests resolved lately (history.jsonl)", runHistory},
	{"integrate", "connect an agent (claude, codex, gemini, pi): print, or --write, its settings", runIntegrate},
	{"list", "list the requests waiting for the user", runList},
	{"mcp", "serve the ask tools to an MCP client on stdio", runMCP},
	{"pending", "show the pending file and the waiting questions; 'pending clear' cancels them all", runPending},
	{"schema", "print a tool's input JSON Schema", runSchema},
	{"status", "show the daemon's state", runStatus},
	{"wait", "wait for a parked or orphaned request's result", runWait},
	{"watch", "print the daemon's events, one JSON object per line", runWatch},
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// dispatch runs the subcommand args name. Help asked for (-h, --help, help)
// is printed on stdout with exit 0; no command or an unknown one is a usage
// error, on stderr with exit 2.
func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return exitOK
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "askuser-client: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: askuser-client COMMAND [ARGS]\n\ncommands:")
	width := 0
	for _, c := range commands {
		width = max(width, len(c.name))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'askuser-client COMMAND -h' for a command's flags.")
}
