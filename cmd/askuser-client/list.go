package main

import (
	"context"
	"flag"
	"time"
)

var listCommand = command{
	name:     "list",
	summary:  "list the requests waiting for the user",
	synopsis: "list [--json] [flags]",
	daemon:   reachDaemon,
	args:     noArgs,
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		asJSON := fs.Bool("json", false, "print the pending requests as a JSON list")
		return func(x *invocation) error {
			c, err := x.client()
			if err != nil {
				return err
			}
			pending, err := c.List(context.Background())
			if err != nil {
				return err
			}
			if *asJSON {
				return writeJSON(x.stdout, pending)
			}
			writePendingTable(x.stdout, pending, time.Now())
			return nil
		}
	},
}
