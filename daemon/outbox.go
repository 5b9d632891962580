package daemon

import (
	"net"
	"sync"
	"time"
)

// defaultOutboxLimit bounds the lines waiting for one connection. A
// subscriber that falls this far behind is disconnected (SPEC §4).
const defaultOutboxLimit = 1024

// overflowGrace is how long a disconnected slow reader gets to take the
// lines already in flight and the error that explains the disconnect.
const overflowGrace = 10 * time.Second

// outbox carries lines to one connection without ever blocking the queue
// goroutine: push appends under a short lock and a writer goroutine, started
// only while there is something to write, does the blocking writes. An idle
// connection therefore costs no goroutine on this side.
type outbox struct {
	nc    net.Conn
	limit int
	wg    *sync.WaitGroup // the server's: writers finish before Run returns

	mu       sync.Mutex
	lines    [][]byte
	inflight int        // lines taken by the writer and not yet written
	writing  bool       // a writer goroutine is running
	closing  bool       // close the connection once the lines are written
	closed   bool       // nothing more is accepted
	drained  *sync.Cond // signalled (on mu) when lines were written or it closed
}

func newOutbox(nc net.Conn, limit int, wg *sync.WaitGroup) *outbox {
	if limit <= 0 {
		limit = defaultOutboxLimit
	}
	o := &outbox{nc: nc, limit: limit, wg: wg}
	o.drained = sync.NewCond(&o.mu)
	return o
}

// waitRoom blocks the connection's reader while half the backlog is taken:
// a client that pipelines requests faster than it reads the replies is
// slowed down, not disconnected. Only events, which the client did not ask
// for, can overflow the outbox.
func (o *outbox) waitRoom() {
	o.mu.Lock()
	for !o.closed && !o.closing && len(o.lines)+o.inflight >= o.limit/2 {
		o.drained.Wait()
	}
	o.mu.Unlock()
}

// push queues one line. It reports false when the backlog is full: the caller
// must then give up on this connection (see overflow).
func (o *outbox) push(line []byte) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || o.closing {
		return true
	}
	if len(o.lines)+o.inflight >= o.limit {
		return false
	}
	o.lines = append(o.lines, line)
	o.kick()
	return true
}

// overflow drops the lines not yet written, queues last (the error saying
// why) and closes the connection after it, or after overflowGrace if the
// reader still does not read.
func (o *outbox) overflow(last []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || o.closing {
		return
	}
	o.lines = append(o.lines[:0], last)
	o.closing = true
	_ = o.nc.SetWriteDeadline(time.Now().Add(overflowGrace))
	o.kick()
}

// closeAfter queues last (may be nil) and closes the connection once
// everything queued has been written.
func (o *outbox) closeAfter(last []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || o.closing {
		return
	}
	if last != nil {
		o.lines = append(o.lines, last)
	}
	o.closing = true
	_ = o.nc.SetWriteDeadline(time.Now().Add(overflowGrace))
	o.kick()
}

// shut closes the connection now, dropping what was not written.
func (o *outbox) shut() {
	o.mu.Lock()
	o.closed = true
	o.lines = nil
	o.drained.Broadcast()
	o.mu.Unlock()
	_ = o.nc.Close()
}

// kick starts the writer if it is not running; o.mu is held.
func (o *outbox) kick() {
	if o.writing {
		return
	}
	if len(o.lines) == 0 {
		if o.closing {
			o.closed = true
			_ = o.nc.Close()
		}
		return
	}
	o.writing = true
	o.wg.Add(1)
	go o.write()
}

// write drains the outbox, several lines per system call.
func (o *outbox) write() {
	defer o.wg.Done()
	for {
		o.mu.Lock()
		if o.closed || len(o.lines) == 0 {
			o.writing = false
			if o.closing && !o.closed {
				o.closed = true
				_ = o.nc.Close()
			}
			o.drained.Broadcast()
			o.mu.Unlock()
			return
		}
		batch := o.lines
		o.lines = nil
		o.inflight = len(batch)
		o.mu.Unlock()

		bufs := net.Buffers(batch)
		_, err := bufs.WriteTo(o.nc)

		o.mu.Lock()
		o.inflight = 0
		o.drained.Broadcast()
		if err != nil {
			// The peer is gone or too slow; its reader sees the close and
			// tells the queue.
			o.closed = true
			o.lines = nil
			o.writing = false
			o.mu.Unlock()
			_ = o.nc.Close()
			return
		}
		o.mu.Unlock()
	}
}
