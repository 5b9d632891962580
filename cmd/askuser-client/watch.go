package main

import (
	"context"
	"flag"
	"fmt"

	"askuser/socketproto"
	"askuser/socketproto/agenttext"
	"askuser/socketproto/askclient"
)

var watchCommand = command{
	name:    "watch",
	summary: "print the daemon's events, one JSON object per line",
	synopsis: "watch [flags]\n\nPrints the snapshot, then every event, one JSON object per line, until\n" +
		"interrupted (exit 0) or the daemon goes away (exit 4).",
	daemon: reachDaemon,
	args:   noArgs,
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		return func(x *invocation) error {
			c, err := x.client()
			if err != nil {
				return err
			}
			ctx, _, stop := signalContext()
			defer stop()
			conn, err := c.Watch(ctx, socketproto.RoleWatch)
			if err != nil {
				return err
			}
			defer conn.Close()
			// Ctrl-C ends the blocked read below.
			defer context.AfterFunc(ctx, func() { conn.Close() })()
			// The daemon's lines are printed as they came, not decoded and
			// re-encoded: a newer daemon's events and fields pass through
			// intact. Nothing was read through conn yet, so its own buffer
			// is empty.
			lr := socketproto.NewLineReader(conn.NetConn(), conn.ReadLimit())
			for {
				line, err := lr.ReadLine()
				if err != nil {
					if ctx.Err() != nil {
						return nil
					}
					return fmt.Errorf("%w: %w", askclient.ErrConnectionLost, err)
				}
				// Agent text passes the one sanitiser's JSON form: the
				// value is the same to a program, and a terminal shows a
				// bidi control as its escape instead of obeying it.
				// Copied: line is the reader's buffer, which the newline
				// must not overwrite.
				esc := agenttext.EscapeJSON(line)
				out := append(make([]byte, 0, len(esc)+1), esc...)
				out = append(out, '\n')
				if _, err := x.stdout.Write(out); err != nil {
					return nil // the reader went away (watch | head): a normal end
				}
			}
		}
	},
}
