package panecore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	"askuser/socketproto"
	"askuser/socketproto/askclient"
)

// Link is the pane's connection to the daemon. It subscribes as a pane,
// passes every message on, and when the connection drops it says so and
// dials again every second, for as long as the pane runs. It is also the
// pane's Sender.
type Link struct {
	Socket   string
	MaxBytes int
	// Restart, when set, starts the daemon again and waits until it answers.
	// It is called when the daemon died without cleaning up: its socket is
	// still there but nothing answers (a crash, a SIGKILL). A daemon that
	// stopped cleanly (askuserd stop, SIGTERM) removed its socket, and is
	// left stopped. At most once per restartEvery.
	Restart func() error
	// RestartDelay is how long the socket must keep refusing before Restart
	// is called, so that a supervisor (systemd's Restart=) brings back the
	// daemon it runs before the pane starts another.
	RestartDelay time.Duration
	// Log, when set, receives the raw error behind each change of the
	// notice (a dial's "connect: no such file or directory", why a restart
	// failed), one line each: the notice says what happened in the user's
	// words.
	Log func(line string)

	sendMu       sync.Mutex // one message at a time: a closing pane may send from another goroutine
	mu           sync.Mutex
	conn         *socketproto.Conn
	refusedSince time.Time // when the socket started refusing; zero while it does not
	lastRestart  time.Time

	// Owned by Run's goroutine.
	everConnected bool   // a daemon answered here since the pane started: a missing socket was stopped
	restartFailed bool   // the last restart failed; said until the next one
	lastLogged    string // the raw error last logged, so a retry every second logs once
}

// restartEvery spaces the restarts of a daemon that keeps dying, so that a
// broken one is not started again every second.
const restartEvery = 10 * time.Second

var errNotConnected = errors.New("not connected to askuserd")

// Send writes one message on the current connection.
func (l *Link) Send(msg socketproto.Message) error {
	l.mu.Lock()
	c := l.conn
	l.mu.Unlock()
	if c == nil {
		return errNotConnected
	}
	l.sendMu.Lock()
	defer l.sendMu.Unlock()
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
		connected, err := l.session(stop, deliver)
		if connected {
			l.everConnected, l.restartFailed = true, false
		}
		if err != nil {
			select {
			case <-stop:
				return
			default:
			}
			cause := lostCauseOf(err, connected, l.everConnected)
			l.logf("not connected to askuserd at %s: %v", l.Socket, err)
			msg := lostNotice(cause, l.Socket, err, l.Restart != nil)
			if l.shouldRestart(err) {
				deliver(ConnLost{Err: restartingNotice()})
				rerr := l.Restart()
				if rerr == nil {
					l.restartFailed = false
					retry.Reset(0)
					continue
				}
				l.restartFailed = true
				l.logf("starting askuserd at %s again failed: %v", l.Socket, rerr)
			}
			if cause == causeDied && l.restartFailed {
				msg = restartFailedNotice()
			}
			deliver(ConnLost{Err: msg})
		}
		retry.Reset(time.Second)
	}
}

// logf logs a raw error once, not at every retry.
func (l *Link) logf(format string, args ...any) {
	if l.Log == nil {
		return
	}
	if msg := fmt.Sprintf(format, args...); msg != l.lastLogged {
		l.lastLogged = msg
		l.Log(msg)
	}
}

// shouldRestart reports whether err says the daemon died without cleaning
// up (its socket refuses connections), for RestartDelay now, and a restart
// is due.
func (l *Link) shouldRestart(err error) bool {
	if l.Restart == nil {
		return false
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		l.refusedSince = time.Time{}
		return false
	}
	now := time.Now()
	if l.refusedSince.IsZero() {
		l.refusedSince = now
	}
	if now.Sub(l.refusedSince) < l.RestartDelay || now.Sub(l.lastRestart) < restartEvery {
		return false
	}
	l.lastRestart = now
	return true
}

// session is one connection's life: dial, subscribe, read until it breaks.
// connected says it got as far as subscribing.
func (l *Link) session(stop <-chan struct{}, deliver func(socketproto.Message)) (connected bool, err error) {
	c, err := askclient.New(askclient.Options{SocketPath: l.Socket, MaxMessageBytes: l.MaxBytes}).
		Watch(context.Background(), socketproto.RolePane)
	if err != nil {
		return false, err
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
				return true, err
			}
			continue // a message this pane does not know: not a reason to drop the link
		}
		deliver(msg)
	}
}
