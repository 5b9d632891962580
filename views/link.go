package views

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"askuser/socketproto"
)

// Link is the pane's connection to the daemon. It subscribes as a pane,
// passes every message on, and when the connection drops it says so and
// dials again every second, for as long as the pane runs. It is also the
// pane's Sender.
type Link struct {
	Socket   string
	MaxBytes int

	mu   sync.Mutex
	conn *socketproto.Conn
}

var errNotConnected = errors.New("not connected to askuserd")

// Send writes one message on the current connection.
func (l *Link) Send(msg socketproto.Message) error {
	l.mu.Lock()
	c := l.conn
	l.mu.Unlock()
	if c == nil {
		return errNotConnected
	}
	// A daemon that stopped reading must not freeze the UI.
	_ = c.NetConn().SetWriteDeadline(time.Now().Add(2 * time.Second))
	return c.Send(msg)
}

// Run connects and delivers messages until stop is closed.
func (l *Link) Run(stop <-chan struct{}, deliver func(socketproto.Message)) {
	retry := time.NewTimer(0)
	defer retry.Stop()
	for {
		select {
		case <-stop:
			return
		case <-retry.C:
		}
		if err := l.session(stop, deliver); err != nil {
			select {
			case <-stop:
				return
			default:
			}
			deliver(connLost{err: fmt.Sprintf("Not connected to askuserd at %s (%v); retrying every second. Nothing you typed is lost.", l.Socket, err)})
		}
		retry.Reset(time.Second)
	}
}

// session is one connection's life: dial, subscribe, read until it breaks.
func (l *Link) session(stop <-chan struct{}, deliver func(socketproto.Message)) error {
	c, err := socketproto.Dial(l.Socket, l.MaxBytes)
	if err != nil {
		return err
	}
	if err := c.Send(socketproto.Subscribe{Role: socketproto.RolePane}); err != nil {
		c.Close()
		return err
	}
	l.mu.Lock()
	l.conn = c
	l.mu.Unlock()
	closed := make(chan struct{})
	defer close(closed)
	go func() { // unblock Recv when the pane quits
		select {
		case <-stop:
			c.Close()
		case <-closed:
		}
	}()
	defer func() {
		l.mu.Lock()
		l.conn = nil
		l.mu.Unlock()
		c.Close()
	}()
	for {
		msg, err := c.Recv()
		if err != nil {
			if socketproto.Broken(err) {
				return err
			}
			continue // a message this pane does not know: not a reason to drop the link
		}
		deliver(msg)
	}
}
