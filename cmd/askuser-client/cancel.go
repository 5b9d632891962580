package main

import (
	"io"

	"askuser/socketproto"
)

func runCancel(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var cf connFlags
	fs := newFlags("cancel", "cancel ID [flags]\n\nThe asking agent gets a cancelled result (it exits 3).", stderr)
	cf.Register(fs, false)
	pos, code := parseArgs(fs, args, stdout)
	if code != nil {
		return *code
	}
	if len(pos) != 1 {
		return usageError(fs, stderr, "want one request ID, got %d arguments", len(pos))
	}
	r, err := cf.Resolve(false, stderr, "askuser-client cancel")
	if err != nil {
		return failure(stderr, "cancel", err)
	}
	if _, err := callOnce(r, socketproto.Cancel{RequestID: pos[0], Via: socketproto.ViaCLI}); err != nil {
		return failure(stderr, "cancel", err)
	}
	return exitOK
}
