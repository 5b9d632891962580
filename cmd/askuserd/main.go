// Command askuserd is the per-user daemon and its pane (docs/contract.md §2, §6).
//
//	askuserd serve     the daemon in the foreground, no pane
//	askuserd stop      stop the running daemon cleanly and wait for it
//	askuserd web       the web pane: the questions in a browser or on a phone
//	askuserd           start the daemon in the background if none answers, then open the pane
//	askuserd --split   inside tmux: open the pane in a new split
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"askuser/cmd/internal/clientflags"
	"askuser/internal/didyoumean"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 {
		switch args[0] {
		case "serve":
			os.Exit(runServe(args[1:]))
		case "stop":
			os.Exit(runStop(args[1:]))
		case "web":
			os.Exit(runWeb(args[1:]))
		}
		// A word that is not a flag is a mistyped command (the pane takes
		// no arguments): say which one it likely was.
		if !strings.HasPrefix(args[0], "-") {
			fmt.Fprintf(os.Stderr, "askuserd: unknown command %q", args[0])
			if guess := didyoumean.Nearest(args[0], []string{"serve", "stop", "web"}); guess != "" {
				fmt.Fprintf(os.Stderr, "; did you mean %q?", guess)
			}
			fmt.Fprintln(os.Stderr, "\nRun 'askuserd --help' for usage.")
			os.Exit(2)
		}
	}
	os.Exit(runPane(args))
}

// parseFlags parses a command's flags and positional-free arguments the same
// way for every command: help asked for is printed on stdout (with the flag
// list after usage when listFlags is set) and ends the command with 0; a bad
// flag or a stray argument is reported on stderr, with the usage, and ends
// it with 2. ok says whether the command goes on; if not, exit with code.
func parseFlags(fs *flag.FlagSet, args []string, usage string, listFlags bool) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(os.Stdout, usage)
			if listFlags {
				fs.SetOutput(os.Stdout)
				fs.PrintDefaults()
			}
			return 0, false
		}
		fmt.Fprintf(os.Stderr, "%s: %v\n", fs.Name(), err)
		if guess := clientflags.FlagGuess(fs, err); guess != "" {
			fmt.Fprintf(os.Stderr, "did you mean --%s?\n", guess)
		}
		fmt.Fprint(os.Stderr, usage)
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "%s: unexpected argument %q\n%s", fs.Name(), fs.Arg(0), usage)
		return 2, false
	}
	return 0, true
}
