// Package askuserd is the program askuserd (docs/contract.md §2, §6), its
// commands and their flags, so that cmd/askuserd stays a one-line main and
// tests can run the real program in-process (testscript registers it):
//
//	askuserd serve     the daemon in the foreground, no pane
//	askuserd stop      stop the running daemon cleanly and wait for it
//	askuserd web       the web pane: the questions in a browser or on a phone
//	askuserd           start the daemon in the background if none answers, then open the pane
//	askuserd --split   inside tmux: open the pane in a new split
//
// Each command lives in its own file: its options, the command that parses
// its flags into them, and the function that runs it.
package askuserd

import (
	"os"

	"askuser/cmd/internal/command"
)

// Main runs askuserd with the process's arguments and streams and returns
// its exit code.
func Main() int {
	return program().Run(os.Args[1:], command.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
}

// program is askuserd and its commands, each run by its run function.
func program() *command.Program {
	return &command.Program{
		Name:     "askuserd",
		Default:  newPaneCommand(runPane),
		Commands: []*command.Command{newServeCommand(runServe), newStopCommand(runStop), newWebCommand(runWeb)},
	}
}
