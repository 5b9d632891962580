package askclient

import (
	"context"
	"encoding/json"
	"fmt"

	"askuser/socketproto"
)

// Client is the daemon as its clients see it: one typed method per thing
// they ask of it, each on a connection of its own (made, and the daemon
// started when allowed, through Connect). askuser-client's commands, the MCP
// server, the Claude Code hook and the panes all talk through it, so the
// protocol's replies are decoded and checked in one place.
//
// Errors: a refusal is a *socketproto.Error (its Code says which, e.g.
// not_found, already_resolved, invalid_answer); a daemon that cannot be
// reached wraps ErrUnreachable; a connection lost before the reply wraps
// ErrConnectionLost; a reply of the wrong type is an *UnexpectedReply.
type Client struct {
	opts Options
}

// New is a client of the daemon o describes.
func New(o Options) *Client { return &Client{opts: o} }

// UnexpectedReply is a reply the protocol does not give to what was sent:
// a daemon of another version, or not a daemon at all.
type UnexpectedReply struct {
	Sent, Got string // message types
}

func (e *UnexpectedReply) Error() string {
	return fmt.Sprintf("askuserd answered %s with %s", e.Sent, e.Got)
}

// call sends msg and returns the reply as a T.
func call[T socketproto.Message](ctx context.Context, c *Client, msg socketproto.Message) (T, error) {
	var zero T
	m, err := Call(ctx, c.opts, msg)
	if err != nil {
		return zero, err
	}
	t, ok := m.(T)
	if !ok {
		return zero, &UnexpectedReply{Sent: msg.MessageType(), Got: m.MessageType()}
	}
	return t, nil
}

// Hello says who the daemon is and where its pending file is.
func (c *Client) Hello(ctx context.Context, client string) (socketproto.Hello, error) {
	return call[socketproto.Hello](ctx, c, socketproto.Hello{Protocol: socketproto.ProtocolVersion, Client: client})
}

// Status is the daemon's state, pid, socket, state dir and uptime.
func (c *Client) Status(ctx context.Context) (socketproto.Status, error) {
	return call[socketproto.Status](ctx, c, socketproto.StatusRequest{})
}

// List is the pending requests, oldest first; never nil.
func (c *Client) List(ctx context.Context) ([]socketproto.Pending, error) {
	l, err := call[socketproto.List](ctx, c, socketproto.ListRequest{})
	if err != nil {
		return nil, err
	}
	if l.Pending == nil {
		l.Pending = []socketproto.Pending{}
	}
	return l.Pending, nil
}

// Answer answers request id as the user, one answer per question (docs/contract.md §4).
func (c *Client) Answer(ctx context.Context, id string, answers []json.RawMessage, via socketproto.Via) error {
	_, err := call[socketproto.OK](ctx, c, socketproto.AnswerRequest{RequestID: id, Answers: answers, Via: via})
	return err
}

// Decline cancels request id as the user: its asker gets a cancelled result.
// (The asker withdraws its own request by cancelling Ask's context.)
func (c *Client) Decline(ctx context.Context, id string, via socketproto.Via) error {
	_, err := call[socketproto.OK](ctx, c, socketproto.Cancel{RequestID: id, Via: via})
	return err
}

// Park asks without waiting: the request stays pending for Wait.
func (c *Client) Park(ctx context.Context, req socketproto.AskUserRequest) (socketproto.Queued, error) {
	return Park(ctx, c.opts, req)
}

// Ask asks and waits for the result, reconnecting as the package's Ask does.
func (c *Client) Ask(ctx context.Context, req socketproto.AskUserRequest, onQueued func(socketproto.Queued)) (socketproto.Response, error) {
	return Ask(ctx, c.opts, req, onQueued)
}

// Wait collects a parked or orphaned request's result.
func (c *Client) Wait(ctx context.Context, id string) (socketproto.Response, error) {
	return Wait(ctx, c.opts, id)
}

// Watch subscribes as role (pane or watch) and returns the connection, its
// snapshot on the way: read the events from it until it breaks.
func (c *Client) Watch(ctx context.Context, role socketproto.Role) (*socketproto.Conn, error) {
	conn, err := Connect(ctx, c.opts)
	if err != nil {
		return nil, err
	}
	if err := conn.Send(socketproto.Subscribe{Role: role}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%w: subscribing: %w", ErrConnectionLost, err)
	}
	return conn, nil
}
