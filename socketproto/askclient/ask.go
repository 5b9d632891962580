package askclient

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"time"

	"askuser/socketproto"
	"askuser/socketproto/peertrust"
)

// ErrConnectionLost means the connection dropped while waiting and could not
// be resumed within ReconnectWindow, or (for Wait) the daemon no longer knew
// the request when it was resumed.
var ErrConnectionLost = errors.New("connection to askuserd lost")

// ReconnectWindow is how long Ask and Wait try to get back to the daemon after
// the connection drops (docs/contract.md §7: 30 s).
var ReconnectWindow = 30 * time.Second

// AckWait bounds how long Ask waits for the daemon to acknowledge a
// question (ask_user_queued, which it sends at once). Only an acknowledged
// question waits for the user's answer without a deadline; one that a
// daemon took the connection for and never read (it was starting, then
// refused to run) must not hold its asker for ever.
var AckWait = 30 * time.Second

// withdrawWait bounds how long a cancelled Ask waits for the daemon to
// acknowledge the withdrawal before closing anyway (closing orphans it, which
// the orphan grace then withdraws).
const withdrawWait = 2 * time.Second

// Ask sends req and blocks for the result. onQueued (may be nil) sees the
// ask_user_queued. If req has no requestId, Ask makes one, so that it can
// resume even if the connection drops before the daemon's acknowledgement.
//
// If the connection drops while waiting, Ask reconnects (autostarting if
// o.Autostart) for up to ReconnectWindow and resumes with {"type":"wait"}, or
// asks again with the same id if the daemon no longer knows the request (it
// restarted); past the window it gives up with an error wrapping
// ErrConnectionLost. If ctx is
// cancelled it withdraws the request ({"type":"cancel"} on its own
// connection) and returns ctx.Err(). A refusal comes back as a
// *socketproto.Error.
func Ask(ctx context.Context, o Options, req socketproto.AskUserRequest, onQueued func(socketproto.Queued)) (socketproto.Response, error) {
	if req.RequestID == "" {
		req.RequestID = NewRequestID()
	}
	req.Wait = nil // waiting is what Ask does; Park is the other way
	return waitFor(ctx, o, req.RequestID, req, onQueued, true, false)
}

// Wait collects the result of a parked or orphaned request, reconnecting as
// Ask does. A cancelled ctx only stops waiting: the request was parked on
// purpose, so it is left to the daemon (orphaned, for another Wait within the
// orphan grace) rather than withdrawn.
func Wait(ctx context.Context, o Options, requestID string) (socketproto.Response, error) {
	// A parked request was acknowledged when it was asked: it is waiting
	// for the user's answer from the start.
	return waitFor(ctx, o, requestID, socketproto.Wait{RequestID: requestID}, nil, false, true)
}

// NewRequestID makes a request id matching [A-Za-z0-9._:-]{1,128}: 64
// random bits, from math/rand/v2's generator, which the runtime seeds from
// the system's randomness. (crypto/rand would be no more unique, and would
// link and initialise the crypto packages into every short client command.)
func NewRequestID() string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], rand.Uint64())
	return "req-" + hex.EncodeToString(b[:])
}

// received is one Recv result carried from a connection's reader goroutine.
type received struct {
	msg socketproto.Message
	err error
}

// session is one connection and the goroutine reading it.
type session struct {
	conn *socketproto.Conn
	in   chan received
	done chan struct{}
}

func openSession(ctx context.Context, o Options) (*session, error) {
	c, err := Connect(ctx, o)
	if err != nil {
		return nil, err
	}
	s := &session{conn: c, in: make(chan received), done: make(chan struct{})}
	go s.read()
	return s, nil
}

func (s *session) read() {
	for {
		m, err := s.conn.Recv()
		if err != nil && !socketproto.Broken(err) {
			continue // a message type this client does not know
		}
		select {
		case s.in <- received{m, err}:
		case <-s.done:
			return
		}
		if err != nil {
			return
		}
	}
}

func (s *session) close() {
	close(s.done)
	s.conn.Close()
}

// waitFor sends first and reads until the result, resuming with a wait on a
// new connection whenever the current one breaks. withdrawOnCancel says
// whether a cancelled ctx withdraws the request before returning. acked
// says whether the request is known to wait for the user's answer already
// (a parked one); otherwise it is once the daemon says anything about it.
// Until then every wait has a deadline: AckWait for the acknowledgement,
// ReconnectWindow for a connection that broke, even when the socket is gone
// (a daemon that refused to run removes it as a stopped one does).
func waitFor(ctx context.Context, o Options, id string, first socketproto.Message, onQueued func(socketproto.Queued), withdrawOnCancel, acked bool) (socketproto.Response, error) {
	s, err := openSession(ctx, o)
	if err != nil {
		return socketproto.Response{}, err
	}
	w := &waiter{ctx: ctx, o: o, id: id, first: first, onQueued: onQueued, withdrawOnCancel: withdrawOnCancel, acked: acked, s: s}
	defer func() {
		if w.s != nil {
			w.s.close()
		}
	}()
	if !acked {
		t := time.NewTimer(AckWait)
		defer t.Stop()
		w.noAck = t.C
	}
	w.sendErr = s.conn.Send(first)
	for {
		r, err := w.next()
		if err != nil {
			return socketproto.Response{}, err
		}
		if r.err != nil {
			if err := w.resume(r.err); err != nil {
				return socketproto.Response{}, err
			}
			continue
		}
		if !w.acked {
			// Whatever the daemon says of the request, it has read it.
			w.acked, w.noAck = true, nil
		}
		if resp, done, err := w.handle(r.msg); done {
			return resp, err
		}
	}
}

// waiter is one waitFor: the request it waits for and the connection it
// waits on, which changes each time one breaks.
type waiter struct {
	ctx              context.Context
	o                Options
	id               string
	first            socketproto.Message
	onQueued         func(socketproto.Queued)
	withdrawOnCancel bool

	s       *session
	sendErr error            // the last send's, until the next read
	acked   bool             // the daemon has said something of the request
	noAck   <-chan time.Time // fires when it took too long to
	resumed bool             // reconnected, and not yet answered on the new connection
}

// next returns what the connection read next, or the error that ends the
// wait: ctx done, no acknowledgement in time, or a refusal the daemon sent
// before closing.
func (w *waiter) next() (received, error) {
	if w.sendErr != nil {
		// The daemon may have refused the message and closed while it
		// was still being written (a request over
		// limits.max_message_bytes): what it said before closing is
		// the answer, not a lost connection to resume from — resending
		// would be refused the same way, for ever.
		if e := refusalBeforeClose(w.s); e != nil {
			return received{}, e
		}
		return received{err: w.sendErr}, nil
	}
	select {
	case <-w.ctx.Done():
		if w.withdrawOnCancel {
			withdraw(w.s, w.id, settledHow(w.ctx))
		}
		return received{}, w.ctx.Err()
	case <-w.noAck:
		return received{}, fmt.Errorf("%w: askuserd took the connection but did not acknowledge request %s within %v", ErrConnectionLost, w.id, AckWait)
	case r := <-w.s.in:
		return r, nil
	}
}

// resume replaces a connection that broke with cause by a new one waiting
// for the same request, or says why it cannot.
func (w *waiter) resume(cause error) error {
	if errors.Is(cause, socketproto.ErrTooLarge) {
		// The client reads far more than limits.max_message_bytes
		// (see socketproto.NewConn): naming that setting would send
		// the user to a knob that does not help.
		return fmt.Errorf("askuserd sent a message over %d bytes, the most this client reads: %w", w.s.conn.ReadLimit(), cause)
	}
	w.s.close()
	w.s = nil
	ns, err := reconnect(w.ctx, w.o, w.acked)
	if err != nil {
		return w.gaveUp(cause, err)
	}
	w.s = ns
	w.resumed = true
	w.sendErr = w.s.conn.Send(socketproto.Wait{RequestID: w.id})
	return nil
}

// gaveUp is the error for a connection that broke with cause and could not
// be replaced because of err.
func (w *waiter) gaveUp(cause, err error) error {
	if w.ctx.Err() != nil {
		return w.ctx.Err()
	}
	if !w.acked && refusedToRun(err) {
		// The daemon never took the question, and none will
		// run here: as if the first dial had said so.
		return err
	}
	if refusedToRun(err) {
		return fmt.Errorf("%w while waiting for %s: %v; reconnecting: %w", ErrConnectionLost, w.id, cause, err)
	}
	return fmt.Errorf("%w while waiting for %s: %v; gave up reconnecting after %v: %w", ErrConnectionLost, w.id, cause, ReconnectWindow, err)
}

// handle acts on a message about the request; done says the wait is over.
func (w *waiter) handle(msg socketproto.Message) (resp socketproto.Response, done bool, err error) {
	switch m := msg.(type) {
	case socketproto.Queued:
		if w.onQueued != nil {
			w.onQueued(m)
		}
	case socketproto.Response:
		return m, true, nil
	case *socketproto.Error:
		return w.refused(m)
	}
	return socketproto.Response{}, false, nil
}

// refused acts on an error the daemon sent about the request.
func (w *waiter) refused(m *socketproto.Error) (resp socketproto.Response, done bool, err error) {
	if !w.resumed || m.Code != socketproto.CodeNotFound {
		return socketproto.Response{}, true, m
	}
	req, ok := w.first.(socketproto.AskUserRequest)
	if !ok {
		return socketproto.Response{}, true, fmt.Errorf("%w: reconnected, but askuserd no longer knows request %s (%w)", ErrConnectionLost, w.id, m)
	}
	// A daemon that restarted without its state has forgotten the
	// question: ask it again under the same id rather than lose it. Once
	// per reconnection, so this cannot loop.
	w.resumed = false
	w.sendErr = w.s.conn.Send(req)
	return socketproto.Response{}, false, nil
}

// refusalBeforeClose reads what the daemon sent on a connection whose send
// just failed, for up to refusalWait, and returns the error it sent before
// closing, if any.
func refusalBeforeClose(s *session) *socketproto.Error {
	timeout := time.After(refusalWait)
	for {
		select {
		case r := <-s.in:
			if r.err != nil {
				return nil
			}
			if e, ok := r.msg.(*socketproto.Error); ok {
				return e
			}
		case <-timeout:
			return nil
		}
	}
}

// refusalWait bounds how long a failed send waits for the daemon's last
// words; they are normally already in the socket's buffer.
const refusalWait = time.Second

// reconnect dials until it gets through or ReconnectWindow passes. Each
// attempt may autostart a daemon (Connect's own retries then run inside it)
// — unless the daemon was stopped on purpose (docs/contract.md §2): a clean stop removes
// its socket, a crash leaves it. Then a client whose request waits for the
// user's answer (acked) waits, without a deadline, for the user to start one
// again, and says so once. One whose request no daemon acknowledged cannot
// tell a stop from a daemon that refused to run and removed its socket: it
// reconnects as a new ask would, within the window. A started daemon that
// refuses to run ends the reconnecting at once: it would refuse again.
func reconnect(ctx context.Context, o Options, acked bool) (*session, error) {
	deadline := time.Now().Add(ReconnectWindow)
	pause := 50 * time.Millisecond
	said := false
	for {
		try := o
		stopped := acked && stoppedOnPurpose(o.SocketPath)
		if stopped {
			try.Autostart = false
			if !said && o.Say != nil {
				o.Say(fmt.Sprintf("askuserd on %s was stopped on purpose; waiting for it to be started again ('askuserd' or 'askuserd serve'; Ctrl-C gives up)", o.SocketPath))
				said = true
			}
		}
		s, err := dialSession(ctx, try)
		if err == nil {
			return s, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if refusedToRun(err) {
			return nil, err
		}
		left := time.Until(deadline)
		if stopped {
			left = time.Second // no deadline: the user decides when it runs again
			deadline = time.Now().Add(ReconnectWindow)
		}
		if left <= 0 {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(pause, left)):
		}
		pause = min(pause*2, time.Second)
	}
}

// dialSession is how reconnect opens a session: openSession, but for the
// tests of its back-off, which run in a synctest bubble with a fake.
var dialSession = openSession

// refusedToRun reports whether err says no daemon will run on the socket
// for this client however long it tries: one started for it refused, or the
// socket is not the user's.
func refusedToRun(err error) bool {
	var sr *StartRefusal
	return errors.As(err, &sr) || peertrust.IsRefusal(err)
}

// stoppedOnPurpose reports whether the daemon at socketPath went away
// cleanly: its socket is gone. One that died leaves the socket behind.
func stoppedOnPurpose(socketPath string) bool {
	_, err := os.Lstat(socketPath)
	return errors.Is(err, fs.ErrNotExist)
}

// Settled, as the cause of an Ask's cancelled context
// (context.WithCancelCause), withdraws the question saying how the user
// settled it in the agent's own prompt (How, e.g. "allowed in Claude Code's
// own dialog"; docs/contract.md §4): the surfaces and history say so, and a
// later answer in askuser is refused with it.
type Settled struct{ How string }

func (s Settled) Error() string { return "settled in the agent's own prompt: " + s.How }

// settledHow is the Settled text of ctx's cause, if any.
func settledHow(ctx context.Context) string {
	var st Settled
	if errors.As(context.Cause(ctx), &st) {
		return st.How
	}
	return ""
}

// withdraw sends the asker's cancel (saying how the agent's own prompt
// settled it, when settled is not empty) and waits briefly for the daemon
// to take it, so that a caller who exits right after does not leave an
// orphan.
func withdraw(s *session, id, settled string) {
	if err := s.conn.Send(socketproto.Cancel{RequestID: id, Settled: settled}); err != nil {
		return
	}
	timeout := time.After(withdrawWait)
	for {
		select {
		case r := <-s.in:
			if r.err != nil {
				return
			}
			switch r.msg.(type) {
			case socketproto.OK, *socketproto.Error, socketproto.Response:
				return
			}
		case <-timeout:
			return
		}
	}
}
