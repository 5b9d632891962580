package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"askuser/socketproto"
	"askuser/socketproto/askclient"
)

const pendingSynopsis = `pending [--json] [flags]
       pending clear [--yes] [flags]

pending prints the pending file's path and every waiting question. pending clear
cancels every waiting request as the user (each asker gets a cancelled result);
it asks first on a terminal, and needs --yes otherwise.`

var pendingCommand = command{
	name:     "pending",
	summary:  "show the pending file and the waiting questions; 'pending clear' cancels them all",
	synopsis: pendingSynopsis,
	daemon:   reachDaemon,
	args:     argCount{0, 1, "subcommand (clear)"},
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		asJSON := fs.Bool("json", false, "print {\"pendingFile\": …, \"pending\": […]}")
		yes := fs.Bool("yes", false, "with clear: do not ask for confirmation")
		return func(x *invocation) error {
			clear := len(x.args) == 1
			if clear && x.args[0] != "clear" {
				return unknownWord("argument", x.args[0], []string{"clear"}, "the only subcommand is clear")
			}
			if *yes && !clear {
				return usagef("--yes goes with pending clear")
			}
			c, err := x.client()
			if err != nil {
				return err
			}
			if clear {
				return clearPending(c, *yes, x)
			}
			cfg, _ := x.config()
			return showPending(c, cfg.PendingFilePath(), *asJSON, x.stdout)
		}
	},
}

// showPending prints the pending file's path (the daemon's word for it
// first) and every waiting question.
func showPending(c *askclient.Client, path string, asJSON bool, stdout io.Writer) error {
	ctx := context.Background()
	h, err := c.Hello(ctx, "askuser-client")
	if err != nil {
		// The path is still worth knowing: the file may hold what the
		// daemon wrote before it stopped.
		fmt.Fprintf(stdout, "Pending file: %s\n", path)
		return err
	}
	if h.PendingFile != "" {
		path = h.PendingFile
	}
	pending, err := c.List(ctx)
	if err != nil {
		return err
	}
	st, err := c.Status(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		out := map[string]any{"pendingFile": path, "pending": pending}
		if st.PendingFileError != "" {
			out["pendingFileError"] = st.PendingFileError
		}
		return writeJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "Pending file: %s\n", path)
	if st.PendingFileError != "" {
		// What was wrong with the last save: the file itself says it too,
		// under "problems". It may quote the file, agent text and all, so
		// it goes through the sanitiser.
		fmt.Fprintf(stdout, "Problem with the last save: %s\n", flatText(st.PendingFileError))
	}
	switch len(pending) {
	case 0:
		fmt.Fprintln(stdout, "No questions waiting.")
		return nil
	case 1:
		fmt.Fprintln(stdout, "1 request waiting:")
	default:
		fmt.Fprintf(stdout, "%d requests waiting:\n", len(pending))
	}
	fmt.Fprintln(stdout)
	writePendingDetail(stdout, pending, time.Now())
	return nil
}

// clearPending declines every waiting request, after a confirmation on a
// terminal (--yes for scripts).
func clearPending(c *askclient.Client, yes bool, x *invocation) error {
	ctx := context.Background()
	pending, err := c.List(ctx)
	if err != nil {
		return err
	}
	n := len(pending)
	if n == 0 {
		fmt.Fprintln(x.stdout, "No questions waiting.")
		return nil
	}
	if !yes {
		if !isTerminal(x.stdin) {
			return usagef("refusing to cancel %d pending %s without --yes (stdin is not a terminal)", n, plural(n, "request", "requests"))
		}
		fmt.Fprintf(x.stderr, "Cancel %d pending %s? [y/N] ", n, plural(n, "request", "requests"))
		line, _ := bufio.NewReader(x.stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(x.stderr, "Nothing cancelled.")
			return nil
		}
	}
	cancelled, gone := 0, 0
	for _, p := range pending {
		err := c.Decline(ctx, p.RequestID, socketproto.ViaCLI)
		var pe *socketproto.Error
		switch {
		case err == nil:
			cancelled++
		case errors.As(err, &pe) && (pe.Code == socketproto.CodeNotFound || pe.Code == socketproto.CodeAlreadyResolved):
			gone++ // answered or withdrawn since the list: nothing to do
		default:
			fmt.Fprintf(x.stdout, "Cancelled %d of %d.\n", cancelled, n)
			return err
		}
	}
	fmt.Fprintf(x.stdout, "Cancelled %d %s.", cancelled, plural(cancelled, "request", "requests"))
	if gone > 0 {
		fmt.Fprintf(x.stdout, " %d resolved meanwhile.", gone)
	}
	fmt.Fprintln(x.stdout)
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// isTerminal reports whether stream (stdin, stderr) is a terminal: a
// confirmation can be asked there, or a person reads it.
func isTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}
