package web

import (
	"net/http"
	"syscall"
	"time"
)

// What one client can make `askuserd web` hold, before it logs in and after
// (docs/contract.md §12, README "What one client can make the daemon
// hold"). Every bound is in bytes, connections or seconds; none depends on
// the client behaving.

const (
	// maxHeaderBytes bounds a request's headers. A session token is some
	// 100 bytes; Go's default of 1 MiB let 150 connections that never
	// finish their headers add 280 MiB.
	maxHeaderBytes = 16 << 10

	// readHeaderTimeout is how long a connection may take to send its
	// headers (the first ones, or the next ones once it spoke).
	readHeaderTimeout = 10 * time.Second

	// idleTimeout is how long a kept-alive connection may wait for its
	// next request. A browser opens a new one when it needs to.
	idleTimeout = 60 * time.Second

	// bodyTimeout is how long a request may take to send its body (4 MiB
	// of typed text at phone speeds is well within it). Per request, not
	// the server's ReadTimeout: that would also end every event stream.
	bodyTimeout = 30 * time.Second

	// replyTimeout is how long a response other than the event stream may
	// take to be written (the event stream bounds each of its writes).
	replyTimeout = 30 * time.Second

	// maxBody bounds what one call may send: a batch of actions, text typed
	// included (an answer may be long).
	maxBody = 4 << 20

	// maxStreams is how many event streams one session may hold open. A
	// browser opens one per tab and, over HTTP/1.1, at most six
	// connections to a host; past the bound the oldest stream is closed,
	// as it is the likeliest to belong to a page that went away without
	// closing its connection (a phone that slept).
	maxStreams = 8

	// streamBudget is how many bytes a stream may have waiting: what is
	// left of the view being written plus the view that replaces the next
	// one. A stream still short of that when a new view comes is not being
	// read (the daemon's slow-reader rule, docs/contract.md §4) and is
	// closed; the page reconnects when it reads again.
	streamBudget = 4 << 20

	// streamWriteTimeout bounds each write to an event stream.
	streamWriteTimeout = 10 * time.Second
)

// maxConnections is how many connections askuserd web keeps open: 256, or
// fewer when the descriptor limit is low, keeping room for its own files
// and its sessions' daemon connections (the lesser of 128 and a quarter of
// the limit, as the daemon keeps).
func maxConnections() int {
	const most = 256
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return most
	}
	n := int(rl.Cur)
	return max(min(most, n-min(128, n/4)), 8)
}

// newHTTPServer is the server with the bounds above.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		MaxHeaderBytes:    maxHeaderBytes,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		// No ReadTimeout or WriteTimeout: either would cut the event
		// stream. bounded sets both per request instead.
	}
}

// bounded gives every request a deadline for its body and its reply, and
// a bound on the body's size: a body that never ends, or a reply never
// read, ends its connection instead of holding it. The event stream sets
// its own write deadlines and takes no body.
func bounded(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		_ = rc.SetWriteDeadline(time.Now().Add(replyTimeout))
		if r.ContentLength != 0 {
			_ = rc.SetReadDeadline(time.Now().Add(bodyTimeout))
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		}
		next.ServeHTTP(w, r)
	})
}
