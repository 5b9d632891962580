package daemon

import (
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"time"

	"askuser/socketproto"
)

// conn is one client connection. nc and out are safe from any goroutine; the
// fields below them belong to the queue goroutine.
type conn struct {
	id  uint64
	nc  *net.UnixConn
	out *outbox

	// For the connection bound (connlimit.go): when it was accepted, and
	// whether it has sent a whole line yet. evicted is the accept loop's,
	// under server.mu.
	opened  time.Time
	spoke   atomic.Bool
	evicted bool

	role       socketproto.Role // subscriber role; "" when not subscribed
	asking     waitSet          // requests this connection waits for
	gone       bool             // disconnected; nothing more is sent
	halfClosed bool             // the client has sent all it will send
}

// send queues msg for c; a backlog past the bound disconnects the
// connection (the slow-reader rule of docs/contract.md §4). msg is encoded
// when the step's sends are released (commit), each just before it is
// written: the first line of a step, the one its client waits for, does not
// wait for the encoding of the lines after it. A message is a value whose
// slices are never changed in place, so encoding it later reads the same.
func (s *state) send(c *conn, msg socketproto.Message) {
	if c.gone {
		return
	}
	s.historyBeforeAck(msg)
	s.held = append(s.held, func() {
		if line := s.encode(msg); line != nil {
			s.pushLine(c, line)
		}
	})
}

// encode is msg's line, or nil (logged) if it cannot be encoded.
func (s *state) encode(msg socketproto.Message) []byte {
	line, err := socketproto.Encode(msg)
	if err != nil {
		s.log.Error("encoding a message", "type", msg.MessageType(), "err", err)
		return nil
	}
	return line
}

// sendLine queues line for c once the step's journal writes are done.
func (s *state) sendLine(c *conn, line []byte) {
	if c.gone {
		return
	}
	s.held = append(s.held, func() { s.pushLine(c, line) })
}

// pushLine hands line to c's outbox, giving up on a connection that does not read.
func (s *state) pushLine(c *conn, line []byte) {
	if !c.out.push(line) {
		s.dropSlow(c)
	}
}

// closeAfter closes c's connection after what was sent to it, in step with
// the held sends.
func (s *state) closeAfter(c *conn, last []byte) {
	s.held = append(s.held, func() { c.out.closeAfter(last) })
}

// sendErr sends a protocol error, with the request id when known.
func (s *state) sendErr(c *conn, id string, e *socketproto.Error) {
	if e.RequestID == "" {
		e.RequestID = id
	}
	s.send(c, e)
}

// dropSlow disconnects a connection that stopped reading: it gets no more
// events, an error if it ever reads again, and then the connection closes.
func (s *state) dropSlow(c *conn) {
	s.unsubscribe(c)
	e := socketproto.Errf(socketproto.CodeMessageTooLarge, "",
		"disconnected: more than %d bytes waited for this connection to read them", c.out.limit)
	// There is no code for "too slow"; message_too_large is the closest
	// promise of "this connection is closed after this error".
	line, _ := socketproto.Encode(e)
	c.out.overflow(line)
	s.log.Warn("disconnected a client that does not read", "conn", c.id, "unread_bytes_allowed", c.out.limit)
}

// serveConn serves a new connection: it waits for its first line.
func (d *server) serveConn(c *conn) {
	ls, err := newLineSource(c.nc, d.limits.MaxMessageBytes, d.input, d.opts.LineTimeout)
	if err != nil {
		d.q.post(func(s *state) { s.disconnected(c) })
		d.connEnded(c, nil)
		return
	}
	d.waitThenServe(c, ls)
}

// waitThenServe waits until the connection has bytes, then hands the queue
// every line it can read without waiting, and so on until the connection
// ends.
//
// A connection spends nearly all its life waiting (an agent for its
// answer), and a goroutine keeps the largest stack it ever needed: Go
// shrinks a stack at a collection only when under a quarter of it is in use,
// which a goroutine parked in the netpoller never is. So the goroutine that
// read and decoded a batch of lines, whose stack grew for it, does not wait
// for the next one: it starts a fresh goroutine to wait, in frames that fit
// the smallest stack (2 KiB), and ends. 10,000 waiting agents keep 20 MB of
// stack, not 40 or 80. The fresh goroutine is started once the batch is
// handled (postAndRun), not before reading it: starting a goroutine can wake
// a second thread, which a line's trip to its reply should not wait for.
func (d *server) waitThenServe(c *conn, ls *lineSource) {
	ls.waitReadable()
	switch d.serveLines(c, ls) {
	case waitLine:
		go d.waitThenServe(c, ls)
	case waitHangup:
		go d.waitForHangup(c, ls) // as long as an answer takes: from a fresh stack too
	default:
		d.connEnded(c, ls)
	}
}

// waitForHangup waits until a client that sent all it will is gone.
func (d *server) waitForHangup(c *conn, ls *lineSource) {
	awaitHangup(c.nc)
	d.q.post(func(s *state) { s.disconnected(c) })
	d.connEnded(c, ls)
}

// connEnded releases what an ended connection held: its unfinished line's
// room in the input budget, and its place in the live set.
func (d *server) connEnded(c *conn, ls *lineSource) {
	if ls != nil {
		ls.release()
	}
	d.forget(c)
	d.wg.Done()
}

// forget removes an ended connection from the live set.
func (d *server) forget(c *conn) {
	d.mu.Lock()
	delete(d.live, c)
	d.mu.Unlock()
	if d.opts.connEnded != nil {
		d.opts.connEnded()
	}
}

// readerNext is what waitThenServe does after serveLines.
type readerNext int

const (
	waitLine   readerNext = iota // wait for the next line
	waitHangup                   // the client sent all it will; wait until it is gone
	readerDone                   // the connection ended; the queue was told
)

// serveLines hands the queue every line that can be read without waiting
// for one to begin, and says what to wait for next.
func (d *server) serveLines(c *conn, ls *lineSource) readerNext {
	for {
		c.out.waitRoom()
		line, err := ls.next()
		if errors.Is(err, errIdle) {
			return waitLine
		}
		if err != nil {
			return d.readFailed(c, ls, err)
		}
		c.spoke.Store(true)
		msg, perr := socketproto.DecodeFromClient(line)
		c.out.lineRead()
		// A line with more behind it, already read (a client that
		// pipelines), goes to the queue goroutine, which takes in the
		// lines that come meanwhile as one group; the last line read is
		// handled here, with any still waiting before it.
		hand := d.q.postAndRun
		if ls.lineBuffered() {
			hand = d.q.postLine
		}
		if !hand(func(s *state) { s.handle(c, msg, perr); s.held = append(s.held, c.out.lineHandled) }) {
			return readerDone
		}
	}
}

// readFailed tells the queue how reading ended.
func (d *server) readFailed(c *conn, ls *lineSource, err error) readerNext {
	switch {
	case errors.Is(err, socketproto.ErrTooLarge):
		max := d.limits.MaxMessageBytes
		d.q.post(func(s *state) { s.tooLarge(c, max) })
	case errors.Is(err, ErrLineTimeout):
		timeout := d.opts.LineTimeout
		d.q.post(func(s *state) { s.lineTimedOut(c, timeout) })
	case errors.Is(err, io.EOF):
		d.q.post(func(s *state) { s.halfClosed(c) })
		return waitHangup
	case errors.Is(err, io.ErrUnexpectedEOF) && !peerGone(c.nc):
		// The client shut down its writing side after a last line
		// without a newline (printf '%s' "$json" | nc -N -U) and
		// still reads: that line is its message, answered like any
		// other. A client that hung up mid-line sent nothing.
		line := ls.rest()
		max := d.limits.MaxMessageBytes
		if len(line) > max {
			d.q.post(func(s *state) { s.tooLarge(c, max) })
			return readerDone
		}
		msg, perr := socketproto.DecodeFromClient(line)
		d.q.post(func(s *state) { s.handle(c, msg, perr); s.halfClosed(c) })
		return waitHangup
	case errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed), errors.Is(err, os.ErrDeadlineExceeded):
		d.q.post(func(s *state) { s.disconnected(c) })
	default:
		d.log.Debug("reading from a client", "conn", c.id, "err", err)
		d.q.post(func(s *state) { s.disconnected(c) })
	}
	return readerDone
}

// tooLarge answers a line over the limit and closes: the rest of that line
// is still unread, so nothing after it can be trusted to start a message.
func (s *state) tooLarge(c *conn, max int) {
	s.closeWithError(c, socketproto.Errf(socketproto.CodeMessageTooLarge, "",
		"message longer than %d bytes (limits.max_message_bytes); closing the connection", max))
}

// lineTimedOut answers a line that did not end in time and closes: its
// client holds room in the input budget that others may need.
func (s *state) lineTimedOut(c *conn, timeout time.Duration) {
	if s.closeWithError(c, socketproto.Errf(socketproto.CodeInvalidRequest, "",
		"a message line was not finished within %s (send whole lines ending in a newline); closing the connection", timeout)) {
		s.log.Warn("closed a connection whose line was not finished in time", "conn", c.id, "timeout", timeout)
	}
}

// closeWithError sends e as c's last message and closes c; false when c was
// gone already.
func (s *state) closeWithError(c *conn, e *socketproto.Error) bool {
	if c.gone {
		return false
	}
	line, _ := socketproto.Encode(e)
	s.closeAfter(c, line)
	s.disconnected(c)
	return true
}

// halfClosed notes that the client shut down its writing side (`ncat -U`,
// `nc -N` after one line). It still reads: it is closed once it has nothing
// more to receive, so that such a client exits after its answer.
func (s *state) halfClosed(c *conn) {
	if c.gone {
		return
	}
	c.halfClosed = true
	s.closeIfDone(c)
}

// closeIfDone closes a half-closed connection that waits for nothing.
func (s *state) closeIfDone(c *conn) {
	if c.halfClosed && !c.gone && c.asking.len() == 0 && c.role == "" {
		s.disconnected(c)
	}
}

// disconnected forgets a connection: its subscriptions end and the requests
// it waited for become orphaned (unless someone else waits for them too).
func (s *state) disconnected(c *conn) {
	if c.gone {
		return
	}
	s.unsubscribe(c)
	c.gone = true
	for _, r := range c.asking.all() {
		s.removeWaiter(r, c)
	}
	c.asking = waitSet{}
	s.closeAfter(c, nil)
	s.log.Debug("client left", "conn", c.id)
}

func (s *state) unsubscribe(c *conn) {
	if c.role == "" {
		return
	}
	if c.role == socketproto.RolePane {
		s.panes--
	}
	c.role = ""
	delete(s.subs, c)
}

// broadcastLine is broadcast for a message already encoded.
func (s *state) broadcastLine(line []byte) {
	for c := range s.subs {
		s.sendLine(c, line)
	}
}

// broadcast sends msg to every subscriber, encoded once, when the first
// of them is sent it (as send does).
func (s *state) broadcast(msg socketproto.Message) {
	if len(s.subs) == 0 {
		return
	}
	var line []byte
	encoded := false
	for c := range s.subs {
		if c.gone {
			continue
		}
		s.held = append(s.held, func() {
			if !encoded {
				line, encoded = s.encode(msg), true
			}
			if line != nil {
				s.pushLine(c, line)
			}
		})
	}
}
