package main

import (
	"context"
	"fmt"
	"io"

	"askuser/socketproto"
	"askuser/socketproto/askclient"
)

func runWatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var cf connFlags
	fs := newFlags("watch", "watch [flags]\n\nPrints the snapshot, then every event, one JSON object per line, until\ninterrupted (exit 0) or the daemon goes away (exit 4).", stderr)
	cf.Register(fs, false)
	pos, code := parseArgs(fs, args, stdout)
	if code != nil {
		return *code
	}
	if len(pos) != 0 {
		return usageError(fs, stderr, "watch takes no arguments")
	}
	r, err := cf.Resolve(false, stderr, "askuser-client watch")
	if err != nil {
		return failure(stderr, "watch", err)
	}
	ctx, _, stop := signalContext()
	defer stop()
	c, err := askclient.Connect(ctx, r.Client)
	if err != nil {
		return failure(stderr, "watch", err)
	}
	defer c.Close()
	// Ctrl-C ends the blocked read below.
	defer context.AfterFunc(ctx, func() { c.Close() })()
	if err := c.Send(socketproto.Subscribe{Role: socketproto.RoleWatch}); err != nil {
		return failure(stderr, "watch", fmt.Errorf("%w: %w", askclient.ErrConnectionLost, err))
	}
	// The daemon's lines are printed as they came, not decoded and
	// re-encoded: a newer daemon's events and fields pass through intact.
	// Nothing was read through c yet, so its own buffer is empty.
	lr := socketproto.NewLineReader(c.NetConn(), c.ReadLimit())
	for {
		line, err := lr.ReadLine()
		if err != nil {
			if ctx.Err() != nil {
				return exitOK
			}
			return failure(stderr, "watch", fmt.Errorf("%w: %w", askclient.ErrConnectionLost, err))
		}
		out := make([]byte, 0, len(line)+1)
		out = append(append(out, line...), '\n')
		if _, err := stdout.Write(out); err != nil {
			return exitOK // the reader went away (watch | head): a normal end
		}
	}
}
