// Command askuserd is the per-user daemon and its pane (SPEC §2, §6).
//
//	askuserd serve     the daemon in the foreground, no pane
//	askuserd stop      stop the running daemon cleanly and wait for it
//	askuserd           start the daemon in the background if none answers, then open the pane
//	askuserd --split   inside tmux: open the pane in a new split
package main

import (
	"os"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 {
		switch args[0] {
		case "serve":
			os.Exit(runServe(args[1:]))
		case "stop":
			os.Exit(runStop(args[1:]))
		}
	}
	os.Exit(runPane(args))
}
