// Command askuser-client is the agent's and the script's side of askuser
// (docs/contract.md §7): ask and wait, answer, cancel, list, watch, and an MCP server.
// Each subcommand lives in its own file; the table below lists them all.
// What is more than flags and wiring lives in packages of its own: what it
// knows of each agent (its hooks, prompts, settings) in
// askuser/internal/agents/NAME, the mcp-proxy relay in
// askuser/cmd/internal/mcpproxy, the merging of settings files in
// askuser/internal/integrate, the tools' schemas and result shapes in
// askuser/socketproto/agenttool, the daemon's client in
// askuser/socketproto/askclient. The MCP server is the program askuser-mcp
// (askuser/cmd/internal/mcpserver), which `mcp` runs in this one's place.
package main

import (
	"io"
	"os"

	runner "askuser/cmd/internal/command"
)

// Exit codes of docs/contract.md §7. Their values are declared once, in
// cmd/internal/command, for all three programs; the commands here name
// them briefly.
const (
	exitOK          = runner.ExitOK
	exitFailed      = runner.ExitFailed
	exitUsage       = runner.ExitUsage
	exitCancelled   = runner.ExitCancelled
	exitUnreachable = runner.ExitUnreachable
)

// commands are all the subcommands, in the order help lists them. Each
// lives in its own file.
var commands = []*command{
	&acpProxyCommand,
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

// dispatch runs the subcommand args names, through the runner all three
// programs share: help asked for (-h, --help, help) on stdout with exit 0,
// no command or an unknown one a usage error on stderr with exit 2.
func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return program().Run(args, runner.Streams{In: stdin, Out: stdout, Err: stderr})
}

// program is askuser-client and its commands.
func program() *runner.Program {
	p := &runner.Program{Name: "askuser-client", FailureCode: exitCode}
	for _, c := range commands {
		p.Commands = append(p.Commands, c.shared())
	}
	return p
}
