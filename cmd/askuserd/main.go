// Command askuserd is the per-user daemon and its pane (docs/contract.md §2, §6).
//
//	askuserd serve     the daemon in the foreground, no pane
//	askuserd stop      stop the running daemon cleanly and wait for it
//	askuserd web       the web pane: the questions in a browser or on a phone
//	askuserd           start the daemon in the background if none answers, then open the pane
//	askuserd --split   inside tmux: open the pane in a new split
//
// The program lives in askuser/cmd/internal/askuserd, one file per command.
package main

import (
	"os"

	"askuser/cmd/internal/askuserd"
)

func main() { os.Exit(askuserd.Main()) }
