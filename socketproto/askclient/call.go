package askclient

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"askuser/socketproto"
)

// ReplyWait bounds how long Call waits for the daemon's reply, which it
// gives at once: nothing Call sends waits for the user, so a daemon that
// took the connection and never answers (it refused to run before reading
// it, or hangs) is reported rather than waited for.
var ReplyWait = 30 * time.Second

// Call sends one message on a fresh connection and returns the daemon's first
// reply: hello, answer, cancel (as the user), list and status. A refusal comes
// back as a *socketproto.Error.
func Call(ctx context.Context, o Options, msg socketproto.Message) (socketproto.Message, error) {
	c, err := Connect(ctx, o)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	var late atomic.Bool
	noReply := time.AfterFunc(ReplyWait, func() { late.Store(true); c.Close() })
	defer noReply.Stop()
	if err := c.Send(msg); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: sending %s: %w", ErrConnectionLost, msg.MessageType(), err)
	}
	for {
		m, err := c.Recv()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil && late.Load() {
			return nil, fmt.Errorf("%w: askuserd did not reply to %s within %v", ErrConnectionLost, msg.MessageType(), ReplyWait)
		}
		if err != nil {
			if socketproto.Broken(err) {
				return nil, fmt.Errorf("%w: waiting for the reply to %s: %w", ErrConnectionLost, msg.MessageType(), err)
			}
			continue // a message this client does not know: not for it
		}
		if e, ok := m.(*socketproto.Error); ok {
			return nil, e
		}
		return m, nil
	}
}

// Park asks without waiting (docs/contract.md §4, "wait": false): the request stays
// pending after this returns, for `wait` to collect later.
func Park(ctx context.Context, o Options, req socketproto.AskUserRequest) (socketproto.Queued, error) {
	no := false
	req.Wait = &no
	m, err := Call(ctx, o, req)
	if err != nil {
		return socketproto.Queued{}, err
	}
	q, ok := m.(socketproto.Queued)
	if !ok {
		return socketproto.Queued{}, fmt.Errorf("askuserd answered ask_user_request with %s", m.MessageType())
	}
	return q, nil
}
