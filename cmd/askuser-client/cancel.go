package main

import (
	"context"
	"flag"

	"askuser/socketproto"
)

var cancelCommand = command{
	name:     "cancel",
	summary:  "decline a waiting request as the user",
	synopsis: "cancel ID [flags]\n\nThe asking agent gets a cancelled result (it exits 3).",
	daemon:   reachDaemon,
	args:     oneID,
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		return func(x *invocation) error {
			c, err := x.client()
			if err != nil {
				return err
			}
			return c.Decline(context.Background(), x.args[0], socketproto.ViaCLI)
		}
	},
}
