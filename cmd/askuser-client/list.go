package main

import (
	"io"
	"time"
)

func runList(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var cf connFlags
	fs := newFlags("list", "list [--json] [flags]", stderr)
	cf.Register(fs, false)
	asJSON := fs.Bool("json", false, "print the pending requests as a JSON list")
	pos, code := parseArgs(fs, args, stdout)
	if code != nil {
		return *code
	}
	if len(pos) != 0 {
		return usageError(fs, stderr, "list takes no arguments")
	}
	r, err := cf.Resolve(false, stderr, "askuser-client list")
	if err != nil {
		return failure(stderr, "list", err)
	}
	pending, err := fetchPending(r)
	if err != nil {
		return failure(stderr, "list", err)
	}
	if *asJSON {
		if err := writeJSON(stdout, pending); err != nil {
			return failure(stderr, "list", err)
		}
		return exitOK
	}
	writePendingTable(stdout, pending, time.Now())
	return exitOK
}
