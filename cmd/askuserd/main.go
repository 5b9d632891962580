// Command askuserd is the per-user daemon and its pane (SPEC §2, §6).
//
//	askuserd serve     the daemon in the foreground, no pane
//	askuserd           start the daemon in the background if none answers, then open the pane
//	askuserd --split   inside tmux: open the pane in a new split
package main

import (
	"os"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "serve" {
		os.Exit(runServe(args[1:]))
	}
	os.Exit(runPane(args))
}
