package daemon

import (
	"net"
	"sync"
	"syscall"
	"time"

	"askuser/socketproto"
)

// overflowGrace is how long a disconnected slow reader gets to take the
// lines already in flight and the error that explains the disconnect;
// evictGrace the same for one shed by the daemon-wide budget, whose memory
// is wanted back soon.
const (
	overflowGrace = 10 * time.Second
	evictGrace    = time.Second
)

// maxUnhandled is how many lines a connection may have sent that the queue
// has not finished with (their replies not yet queued) before its reader
// stops reading: with the byte check of waitRoom, it keeps a client that
// pipelines requests from having more replies made for it than its budget.
const maxUnhandled = 16

// outbox carries lines to one connection without ever blocking the queue
// goroutine: push appends under a short lock and a writer goroutine, started
// only while there is something to write, does the blocking writes. An idle
// connection therefore costs no goroutine on this side. What waits is
// counted in bytes, against the connection's budget and the daemon's
// (budget.go).
type outbox struct {
	nc    net.Conn
	limit int             // bytes of unread output allowed beyond the line being written
	wg    *sync.WaitGroup // the server's: writers finish before Run returns
	all   *outputBudget

	mu        sync.Mutex
	lines     [][]byte
	queued    int       // bytes in lines
	inflight  int       // bytes taken by the writer and not yet written
	unhandled int       // lines read from the connection, not yet handled
	progress  time.Time // when it last had nothing waiting, or last wrote
	writing   bool      // a writer goroutine is running
	closing   bool      // close the connection once the lines are written
	closed    bool      // nothing more is accepted
	// partial: lines[0] is the rest of a line push wrote in part
	// (writeNow); it must go out whole before anything else, and is never
	// dropped, or the reader would get half a line glued to the next.
	partial bool
	drained *sync.Cond // signalled (on mu) when lines were written, handled, or it closed
}

func newOutbox(nc net.Conn, limit int, all *outputBudget, wg *sync.WaitGroup) *outbox {
	if limit <= 0 {
		limit = defaultConnOutputBytes
	}
	if all == nil {
		all = newOutputBudget(defaultOutputBytes)
	}
	o := &outbox{nc: nc, limit: limit, wg: wg, all: all}
	o.drained = sync.NewCond(&o.mu)
	all.register(o)
	return o
}

// waitRoom blocks the connection's reader while half its budget is taken or
// many of its lines wait to be handled: a client that pipelines requests
// faster than it reads the replies is slowed down, not disconnected. Events,
// which the client did not ask for, and replies to a flood of requests can
// still overflow the outbox.
func (o *outbox) waitRoom() {
	o.mu.Lock()
	for !o.closed && !o.closing && (o.queued+o.inflight >= o.limit/2 || o.unhandled >= maxUnhandled) {
		o.drained.Wait()
	}
	o.mu.Unlock()
}

// lineRead counts a line handed to the queue; lineHandled, run once its
// replies are queued, lets the reader go on.
func (o *outbox) lineRead() {
	o.mu.Lock()
	o.unhandled++
	o.mu.Unlock()
}

func (o *outbox) lineHandled() {
	o.mu.Lock()
	o.unhandled--
	o.drained.Broadcast()
	o.mu.Unlock()
}

// condition is the bytes waiting for the connection to read them, since
// when the connection has not taken any, and whether it is being closed.
func (o *outbox) condition() (unread int, stalledSince time.Time, closing bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.queued + o.inflight, o.progress, o.closing || o.closed
}

// push queues one line. It reports false when the line does not fit the
// connection's budget: the caller must then give up on this connection
// (see overflow). A line always fits an empty outbox, whatever its size.
func (o *outbox) push(line []byte) bool {
	o.mu.Lock()
	if o.closed || o.closing {
		o.mu.Unlock()
		return true
	}
	if size := o.queued + o.inflight; size > 0 && size+len(line) > o.limit {
		o.mu.Unlock()
		return false
	}
	if o.queued+o.inflight == 0 {
		o.progress = time.Now()
		if !o.writing {
			// Nothing waits and no writer runs: try the line straight
			// into the socket's buffer, which almost always has room.
			// Handing every line to a writer goroutine started for it
			// cost a goroutine's start and a wake-up on each hop.
			n := o.writeNow(line)
			if n == len(line) {
				o.mu.Unlock()
				return true
			}
			line = line[n:]
			o.partial = n > 0
		}
	}
	o.lines = append(o.lines, line)
	o.queued += len(line)
	o.kick()
	o.mu.Unlock()
	o.all.add(len(line))
	return true
}

// overflow drops the lines not yet written, queues last (the error saying
// why) and closes the connection after it, or after overflowGrace if the
// reader still does not read.
func (o *outbox) overflow(last []byte) { o.overflowWithin(last, overflowGrace) }

func (o *outbox) overflowWithin(last []byte, grace time.Duration) {
	o.mu.Lock()
	if o.closed || o.closing {
		o.mu.Unlock()
		return
	}
	keep := o.lines[:0]
	if o.partial && len(o.lines) > 0 {
		keep = o.lines[:1] // half written: it goes out whole first
	}
	kept := 0
	for _, l := range keep {
		kept += len(l)
	}
	dropped := o.queued - kept
	o.lines = append(keep, last)
	o.queued = kept + len(last)
	o.closing = true
	_ = o.nc.SetWriteDeadline(time.Now().Add(grace))
	o.kick()
	o.mu.Unlock()
	o.all.sub(dropped - len(last))
}

// evict is overflow ordered by the daemon-wide budget.
func (o *outbox) evict() {
	e := socketproto.Errf(socketproto.CodeMessageTooLarge, "",
		"disconnected: the daemon's output waiting for clients to read it passed %d bytes, and this connection held the most of it", o.all.limit)
	line, _ := socketproto.Encode(e)
	o.overflowWithin(line, evictGrace)
}

// closeAfter queues last (may be nil) and closes the connection once
// everything queued has been written.
func (o *outbox) closeAfter(last []byte) {
	o.mu.Lock()
	if o.closed || o.closing {
		o.mu.Unlock()
		return
	}
	if last != nil {
		o.lines = append(o.lines, last)
		o.queued += len(last)
	}
	o.closing = true
	_ = o.nc.SetWriteDeadline(time.Now().Add(overflowGrace))
	o.kick()
	o.mu.Unlock()
	if last != nil {
		o.all.add(len(last))
	}
}

// shut closes the connection now, dropping what was not written.
func (o *outbox) shut() {
	o.mu.Lock()
	o.closeNow()
	o.mu.Unlock()
}

// closeNow closes the connection and forgets what waits; o.mu is held.
func (o *outbox) closeNow() {
	if !o.closed {
		o.closed = true
		o.all.unregister(o)
	}
	o.all.sub(o.queued)
	o.queued = 0
	o.lines = nil
	o.drained.Broadcast()
	_ = o.nc.Close()
}

// writeNow writes what of line the socket takes without waiting, and says
// how much that was (0 when it would wait, or on any error: the writer
// goroutine then meets the error and closes the connection as before).
// o.mu is held.
func (o *outbox) writeNow(line []byte) int {
	sc, ok := o.nc.(syscall.Conn)
	if !ok {
		return 0
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	_ = rc.Write(func(fd uintptr) bool {
		for n < len(line) {
			m, err := syscall.Write(int(fd), line[n:])
			if err == syscall.EINTR {
				continue
			}
			if err != nil || m <= 0 {
				break
			}
			n += m
		}
		return true // never wait here: what is left goes to the writer
	})
	return n
}

// kick starts the writer if it is not running; o.mu is held.
func (o *outbox) kick() {
	if o.writing {
		return
	}
	if len(o.lines) == 0 {
		if o.closing {
			o.closeNow()
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
				o.closeNow()
			}
			o.drained.Broadcast()
			o.mu.Unlock()
			return
		}
		batch := o.lines
		o.lines = nil
		o.partial = false // the writer takes it whole
		o.inflight, o.queued = o.queued, 0
		o.mu.Unlock()

		bufs := net.Buffers(batch)
		_, err := bufs.WriteTo(o.nc)

		o.mu.Lock()
		o.all.sub(o.inflight)
		o.inflight = 0
		o.progress = time.Now()
		o.drained.Broadcast()
		if err != nil {
			// The peer is gone or too slow; its reader sees the close and
			// tells the queue.
			o.writing = false
			o.closeNow()
			o.mu.Unlock()
			return
		}
		o.mu.Unlock()
	}
}
