package web

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Connections are what a client can take from everyone else without
// logging in: each costs a descriptor and some memory whether or not it
// ever sends a request. So the listener keeps at most max of them. When a
// new one would pass that, the connection unused for the longest is closed
// — unless it is serving a logged-in request (an event stream, an action):
// those are the user's, and a flood of connections that never log in must
// not cut them. Closing the oldest rather than refusing the newest is what
// lets a page in while an attacker holds the rest: the newcomer is let in
// and one of the attacker's goes. Only when every connection is serving a
// logged-in request is the newcomer closed.
type connLimit struct {
	net.Listener
	max int
	log *slog.Logger

	mu      sync.Mutex
	live    map[*limitedConn]struct{}
	evicted int // connections closed to make room, for the log
	refused int // newcomers closed because there was no room
}

func newConnLimit(ln net.Listener, max int, log *slog.Logger) *connLimit {
	return &connLimit{Listener: ln, max: max, log: log, live: map[*limitedConn]struct{}{}}
}

// limitedConn is one connection the listener counts.
type limitedConn struct {
	net.Conn
	l    *connLimit
	once sync.Once

	// Guarded by l.mu.
	lastUsed time.Time // accepted, or last between requests
	authed   int       // logged-in requests in flight
}

func (l *connLimit) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		c := &limitedConn{Conn: nc, l: l, lastUsed: time.Now()}
		if l.admit(c) {
			return c, nil
		}
		_ = nc.Close()
	}
}

// admit takes c in, closing the connection unused for the longest to make
// room; false when every connection is serving a logged-in request.
func (l *connLimit) admit(c *limitedConn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.live) >= l.max {
		var victim *limitedConn
		for o := range l.live {
			if o.authed == 0 && (victim == nil || o.lastUsed.Before(victim.lastUsed)) {
				victim = o
			}
		}
		if victim == nil {
			l.refused++
			if l.refused == 1 || l.refused%1000 == 0 {
				l.log.Warn("refused a connection: every one open is serving a logged-in page", "refused_so_far", l.refused, "max_connections", l.max)
			}
			return false
		}
		delete(l.live, victim)
		_ = victim.Conn.Close() // its server goroutine sees the close and ends
		l.evicted++
		if l.evicted == 1 || l.evicted%1000 == 0 {
			l.log.Warn("closed idle connections to make room (not logged in, unused for the longest first)",
				"closed_so_far", l.evicted, "max_connections", l.max, "unused_for", time.Since(victim.lastUsed).Round(time.Millisecond))
		}
	}
	l.live[c] = struct{}{}
	return true
}

func (c *limitedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.live, c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// touch marks the connection used now.
func (c *limitedConn) touch() {
	c.l.mu.Lock()
	c.lastUsed = time.Now()
	c.l.mu.Unlock()
}

// hold keeps the connection from being closed to make room while a
// logged-in request runs on it; the function returned lets it go.
func (c *limitedConn) hold() func() {
	c.l.mu.Lock()
	c.authed++
	c.l.mu.Unlock()
	return func() {
		c.l.mu.Lock()
		c.authed--
		c.lastUsed = time.Now()
		c.l.mu.Unlock()
	}
}

// connKey carries a request's limitedConn in its context.
type connKey struct{}

// connOf is the counted connection under c (a TLS connection wraps it).
func connOf(c net.Conn) *limitedConn {
	for c != nil {
		if lc, ok := c.(*limitedConn); ok {
			return lc
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return nil
		}
		c = u.NetConn()
	}
	return nil
}

// track wires the listener's bookkeeping into the server: each request
// finds its connection, and a connection between requests counts as used
// then.
func (l *connLimit) track(hs *http.Server) {
	hs.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if lc := connOf(c); lc != nil {
			return context.WithValue(ctx, connKey{}, lc)
		}
		return ctx
	}
	hs.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateIdle {
			if lc := connOf(c); lc != nil {
				lc.touch()
			}
		}
	}
}

// holdConn keeps r's connection open while a logged-in request runs.
func holdConn(r *http.Request) func() {
	if lc, ok := r.Context().Value(connKey{}).(*limitedConn); ok {
		return lc.hold()
	}
	return func() {}
}
