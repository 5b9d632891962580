package main

import (
	"flag"
	"fmt"
)

var waitCommand = command{
	name:     "wait",
	summary:  "wait for a parked or orphaned request's result",
	synopsis: "wait ID [flags]\n\nExit codes as for ask.",
	daemon:   startDaemon,
	args:     oneID,
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		format := fs.String("format", "json", "output: json, claude, pi or text")
		return func(x *invocation) error {
			if !validFormat(*format) {
				return usagef("--format: must be json, claude, pi or text, got %q", *format)
			}
			id := x.args[0]
			c, err := x.client()
			if err != nil {
				return err
			}
			ctx, sig, stop := signalContext()
			defer stop()
			resp, err := c.Wait(ctx, id)
			if err != nil {
				if ctx.Err() != nil {
					fmt.Fprintf(x.stderr, "askuser-client wait: interrupted; request %s is still pending: run wait again to collect it\n", id)
					return exitStatus(signalExit(sig()))
				}
				return exitStatus(askFailure(x.stdout, x.stderr, "wait", *format, id, err))
			}
			return exitStatus(printResult(x.stdout, x.stderr, *format, resp))
		}
	},
}
