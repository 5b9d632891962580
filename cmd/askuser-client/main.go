// Command askuser-client is the agent's and the script's side of askuser
// (docs/contract.md §7): ask and wait, answer, cancel, list, watch, and an MCP server.
// Each subcommand lives in its own file; the table below lists them all.
// What is more than flags and wiring lives in packages of its own: what it
// knows of each agent (hook shapes, prompts, settings) in
// askuser/cmd/internal/agents/NAME, the merging of settings files in
// askuser/cmd/internal/integrate, the tools' schemas and result shapes in
// askuser/socketproto/agenttool, the daemon's client in
// askuser/socketproto/askclient. The MCP server is the program askuser-mcp
// (askuser/cmd/internal/mcpserver), which `mcp` runs in this one's place.
package main

import (
	"fmt"
	"io"
	"os"

	"askuser/cmd/internal/clientflags"
	"askuser/internal/didyoumean"
)

// Exit codes of docs/contract.md §7.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitCancelled   = 3
	exitUnreachable = 4
)

// commands are all the subcommands, in the order help lists them. Each
// lives in its own file.
var commands = []*command{
	&answerCommand,
	&askCommand,
	&cancelCommand,
	&claudeHookCommand,
	&codexHookCommand,
	&historyCommand,
	&integrateCommand,
	&listCommand,
	&mcpCommand,
	&mcpProxyCommand,
	&pendingCommand,
	&rulesCommand,
	&schemaCommand,
	&showCommand,
	&statusCommand,
	&waitCommand,
	&watchCommand,
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
	fmt.Fprintf(stderr, "askuser-client: unknown command %q", args[0])
	if guess := nearestCommand(args[0]); guess != "" {
		fmt.Fprintf(stderr, "; did you mean %q?", guess)
	}
	fmt.Fprintln(stderr)
	clientflags.HelpHint(stderr, "askuser-client")
	return exitUsage
}

// nearestCommand is the command a mistyped name most likely meant
// (didyoumean's one rule); "" when none is close.
func nearestCommand(typed string) string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return didyoumean.Nearest(typed, names)
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
