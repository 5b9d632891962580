package main

import (
	"fmt"
	"io"

	"askuser/socketproto/askclient"
)

func runWait(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var cf connFlags
	fs := newFlags("wait", "wait ID [flags]\n\nExit codes as for ask.", stderr)
	cf.Register(fs, true)
	format := fs.String("format", "json", "output: json, claude, pi or text")
	pos, code := parseArgs(fs, args, stdout)
	if code != nil {
		return *code
	}
	if len(pos) != 1 {
		return usageError(fs, stderr, "want one request ID, got %d arguments", len(pos))
	}
	if !validFormat(*format) {
		return usageError(fs, stderr, "--format: must be json, claude, pi or text, got %q", *format)
	}
	r, err := cf.Resolve(true, stderr, "askuser-client wait")
	if err != nil {
		return failure(stderr, "wait", err)
	}
	ctx, sig, stop := signalContext()
	defer stop()
	resp, err := askclient.Wait(ctx, r.Client, pos[0])
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "askuser-client wait: interrupted; request %s is still pending: run wait again to collect it\n", pos[0])
			return signalExit(sig())
		}
		return askFailure(stdout, stderr, "wait", *format, pos[0], err)
	}
	return printResult(stdout, stderr, *format, resp)
}
