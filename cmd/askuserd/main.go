// Command askuserd is the per-user daemon and its pane (docs/contract.md §2, §6).
//
//	askuserd serve     the daemon in the foreground, no pane
//	askuserd stop      stop the running daemon cleanly and wait for it
//	askuserd web       the web pane: the questions in a browser or on a phone
//	askuserd           start the daemon in the background if none answers, then open the pane
//	askuserd --split   inside tmux: open the pane in a new split
//
// Each command lives in its own file: its options, the command that parses
// its flags into them, and the function that runs it.
package main

import (
	"os"

	"askuser/cmd/internal/command"
)

func main() {
	os.Exit(program().Run(os.Args[1:], command.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}

// program is askuserd and its commands, each run by its run function.
func program() *command.Program {
	return &command.Program{
		Name:     "askuserd",
		Default:  newPaneCommand(runPane),
		Commands: []*command.Command{newServeCommand(runServe), newStopCommand(runStop), newWebCommand(runWeb)},
	}
}
