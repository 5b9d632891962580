package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"askuser/socketproto"
)

const pendingSynopsis = `pending [--json] [flags]
       pending clear [--yes] [flags]

pending prints the pending file's path and every waiting question. pending clear
cancels every waiting request as the user (each asker gets a cancelled result);
it asks first on a terminal, and needs --yes otherwise.`

func runPending(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var cf connFlags
	fs := newFlags("pending", pendingSynopsis, stderr)
	cf.Register(fs, false)
	asJSON := fs.Bool("json", false, "print {\"pendingFile\": …, \"pending\": […]}")
	yes := fs.Bool("yes", false, "with clear: do not ask for confirmation")
	pos, code := parseArgs(fs, args, stdout)
	if code != nil {
		return *code
	}
	clear := false
	switch {
	case len(pos) == 1 && pos[0] == "clear":
		clear = true
	case len(pos) > 0:
		return usageError(fs, stderr, "unknown argument %q; the only subcommand is clear", pos[0])
	}
	if *yes && !clear {
		return usageError(fs, stderr, "--yes goes with pending clear")
	}
	r, err := cf.Resolve(false, stderr, "askuser-client pending")
	if err != nil {
		return failure(stderr, "pending", err)
	}
	if clear {
		return clearPending(r, *yes, stdin, stdout, stderr)
	}
	return showPending(r, *asJSON, stdout, stderr)
}

func showPending(r resolved, asJSON bool, stdout, stderr io.Writer) int {
	path := r.Config.PendingFilePath()
	m, err := callOnce(r, socketproto.Hello{Protocol: socketproto.ProtocolVersion, Client: "askuser-client"})
	if err != nil {
		// The path is still worth knowing: the file may hold what the
		// daemon wrote before it stopped.
		fmt.Fprintf(stdout, "Pending file: %s\n", path)
		return failure(stderr, "pending", err)
	}
	if h, ok := m.(socketproto.Hello); ok && h.PendingFile != "" {
		path = h.PendingFile
	}
	pending, err := fetchPending(r)
	if err != nil {
		return failure(stderr, "pending", err)
	}
	if asJSON {
		if err := writeJSON(stdout, map[string]any{"pendingFile": path, "pending": pending}); err != nil {
			return failure(stderr, "pending", err)
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "Pending file: %s\n", path)
	switch len(pending) {
	case 0:
		fmt.Fprintln(stdout, "No questions waiting.")
		return exitOK
	case 1:
		fmt.Fprintln(stdout, "1 request waiting:")
	default:
		fmt.Fprintf(stdout, "%d requests waiting:\n", len(pending))
	}
	fmt.Fprintln(stdout)
	writePendingDetail(stdout, pending, time.Now())
	return exitOK
}

func clearPending(r resolved, yes bool, stdin io.Reader, stdout, stderr io.Writer) int {
	pending, err := fetchPending(r)
	if err != nil {
		return failure(stderr, "pending clear", err)
	}
	n := len(pending)
	if n == 0 {
		fmt.Fprintln(stdout, "No questions waiting.")
		return exitOK
	}
	if !yes {
		if !isTerminal(stdin) {
			fmt.Fprintf(stderr, "askuser-client pending clear: refusing to cancel %d pending %s without --yes (stdin is not a terminal)\n", n, plural(n, "request", "requests"))
			return exitUsage
		}
		fmt.Fprintf(stderr, "Cancel %d pending %s? [y/N] ", n, plural(n, "request", "requests"))
		line, _ := bufio.NewReader(stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(stderr, "Nothing cancelled.")
			return exitOK
		}
	}
	cancelled, gone := 0, 0
	for _, p := range pending {
		_, err := callOnce(r, socketproto.Cancel{RequestID: p.RequestID, Via: socketproto.ViaCLI})
		var pe *socketproto.Error
		switch {
		case err == nil:
			cancelled++
		case errors.As(err, &pe) && (pe.Code == socketproto.CodeNotFound || pe.Code == socketproto.CodeAlreadyResolved):
			gone++ // answered or withdrawn since the list: nothing to do
		default:
			fmt.Fprintf(stdout, "Cancelled %d of %d.\n", cancelled, n)
			return failure(stderr, "pending clear", err)
		}
	}
	fmt.Fprintf(stdout, "Cancelled %d %s.", cancelled, plural(cancelled, "request", "requests"))
	if gone > 0 {
		fmt.Fprintf(stdout, " %d resolved meanwhile.", gone)
	}
	fmt.Fprintln(stdout)
	return exitOK
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
