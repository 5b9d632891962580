package daemon

import (
	"net"
	"time"

	"golang.org/x/sys/unix"

	"askuser/socketproto"
)

// Descriptors are the one resource a client can take from everyone else
// without sending a byte: a process that opens thousands of connections and
// stays silent would fill the descriptor table, and then not even the pane
// gets in (accept fails with EMFILE, over and over). So the daemon holds the
// number of connections below its descriptor limit, keeping room for its own
// files, and when a new connection would pass that bound it closes the
// connection that has been open longest without sending a line — a client
// that is using the daemon has always said something by then (an ask, a
// subscribe, a list).

// connReserve is how many descriptors are kept for the daemon's own use (the
// journal, the pending file, watches, the log, a notify command's pipes)
// out of a limit of n.
func connReserve(n int) int { return min(128, n/4) }

// maxConnections is the connection bound for this process: its
// RLIMIT_NOFILE (which the Go runtime raises to the hard limit at start)
// less connReserve. 0 when the limit cannot be read: no bound.
func maxConnections() int {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == unix.RLIM_INFINITY || rl.Cur > 1<<30 {
		return 0
	}
	n := int(rl.Cur)
	return max(n-connReserve(n), 8)
}

// makeRoomLocked is called with d.mu held before a new connection is taken
// in. It reports whether there is room, closing the oldest connection that
// has not sent a line when there is none.
func (d *server) makeRoomLocked() bool {
	if d.maxConns <= 0 || len(d.live) < d.maxConns {
		return true
	}
	var victim *conn
	for c := range d.live {
		if c.spoke.Load() || c.evicted {
			continue
		}
		if victim == nil || c.opened.Before(victim.opened) {
			victim = c
		}
	}
	if victim == nil {
		return false
	}
	victim.evicted = true
	// Its serveConn sees the close, tells the queue and leaves d.live.
	_ = victim.nc.Close()
	d.evictions++
	if d.evictions == 1 || d.evictions%1000 == 0 {
		d.log.Warn("closed idle connections to make room (connections that sent nothing, oldest first)",
			"closed_so_far", d.evictions, "max_connections", d.maxConns, "silent_for", time.Since(victim.opened).Round(time.Millisecond))
	}
	return true
}

// refuseFull turns a connection away when every open one is in use.
func (d *server) refuseFull(nc *net.UnixConn) {
	defer d.wg.Done()
	line, _ := socketproto.Encode(socketproto.Errf(socketproto.CodeQueueFull, "",
		"askuserd has %d connections open, all in use, the most its descriptor limit allows; close some clients, or raise the limit (ulimit -n)", d.maxConns))
	_ = nc.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = nc.Write(line)
	_ = nc.Close()
}
