package daemon

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"askuser/socketproto"

	"golang.org/x/sys/unix"
)

// lineSource frames a connection's bytes into lines exactly like
// socketproto.LineReader (same limit, same errors, blank lines skipped, a
// trailing '\r' dropped), but holds no buffer while the connection is idle:
// next says errIdle instead of waiting for a new line, its caller waits with
// waitReadable, and the line's first bytes are read through a pooled chunk.
// With 10,000 agents waiting, that is 40 MB of read buffers not kept; and
// the caller can wait from a shallow frame, so that the goroutine's stack
// stays at its smallest (conn.go).
//
// An unfinished line is held against the daemon's input budget beyond its
// first inputFreeBytes, and must be finished within the line timeout
// (budget.go): a client cannot make the daemon hold its half lines forever.
type lineSource struct {
	nc      *net.UnixConn
	raw     syscall.RawConn
	max     int
	budget  *inputBudget
	timeout time.Duration

	pend     []byte    // bytes read and not yet returned; nil when none
	reserved int       // bytes of budget taken for pend's capacity
	deadline time.Time // when the unfinished line in pend must be done; zero when none
	// ncDeadline: nc has a read deadline set (an unfinished line's), which
	// must go before the connection waits for its next line.
	ncDeadline bool
	readable   bool // waitReadable returned: a read now does not wait
}

// ErrLineTimeout: a line was not finished within the line timeout.
var ErrLineTimeout = errors.New("line not finished in time")

// errIdle: no line is buffered or begun; call waitReadable, then next again.
var errIdle = errors.New("waiting for a line")

var chunkPool = sync.Pool{New: func() any { b := make([]byte, 4096); return &b }}

func newLineSource(nc *net.UnixConn, max int, budget *inputBudget, timeout time.Duration) (*lineSource, error) {
	if max <= 0 {
		max = socketproto.DefaultLimits().MaxMessageBytes
	}
	if budget == nil {
		budget = newInputBudget(defaultInputBytes)
	}
	if timeout <= 0 {
		timeout = defaultLineTimeout
	}
	raw, err := nc.SyscallConn()
	if err != nil {
		return nil, err
	}
	return &lineSource{nc: nc, raw: raw, max: max, budget: budget, timeout: timeout}, nil
}

// next returns the next non-blank line without its newline; it is valid
// until the following call. Errors: errIdle (nothing read yet: wait),
// socketproto.ErrTooLarge (the connection is unusable), ErrLineTimeout,
// io.EOF at a clean end, io.ErrUnexpectedEOF mid-line. Once a line has
// begun, next waits for its end (within the line timeout).
func (ls *lineSource) next() ([]byte, error) {
	for {
		if i := bytes.IndexByte(ls.pend, '\n'); i >= 0 {
			line := ls.pend[:i]
			ls.pend = ls.pend[i+1:]
			ls.deadline = time.Time{} // a line ended: the next one's clock starts when it is waited for
			if len(ls.pend) == 0 {
				ls.pend = nil
				ls.release()
			}
			// Measured without its line ending, as LineReader does.
			if len(bytes.TrimSuffix(line, []byte("\r"))) > ls.max {
				return nil, socketproto.ErrTooLarge
			}
			line = bytes.TrimRight(line, "\r")
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			return line, nil
		}
		// A partial line may still end in the '\r' of a CRLF; like
		// LineReader, give up once no line ending could make it fit.
		if len(ls.pend) > ls.max+2 {
			return nil, socketproto.ErrTooLarge
		}
		var n int
		var err error
		if len(ls.pend) == 0 {
			if !ls.readable {
				return nil, ls.idle()
			}
			n, err = ls.readFirst()
		} else {
			n, err = ls.readMore()
		}
		if err != nil && n == 0 {
			// Whitespace after the last newline is not a message cut short.
			if errors.Is(err, io.EOF) && len(bytes.TrimSpace(ls.pend)) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			if errors.Is(err, os.ErrDeadlineExceeded) && len(ls.pend) > 0 {
				return nil, ErrLineTimeout
			}
			return nil, err
		}
	}
}

// idle clears an unfinished line's read deadline, so that waiting for the
// next line has none, and says errIdle.
func (ls *lineSource) idle() error {
	if ls.ncDeadline {
		if err := ls.nc.SetReadDeadline(time.Time{}); err != nil {
			return err
		}
		ls.ncDeadline = false
	}
	return errIdle
}

// readFirst reads the start of a line, which waitReadable said is there,
// through a pooled chunk.
func (ls *lineSource) readFirst() (int, error) {
	ls.readable = false
	chunk := chunkPool.Get().(*[]byte)
	defer chunkPool.Put(chunk)
	n, err := ls.nc.Read(*chunk)
	if n > 0 {
		ls.pend = append(make([]byte, 0, n), (*chunk)[:n]...)
	}
	return n, err
}

// readMore reads on into an unfinished line, growing pend against the input
// budget and under the line's deadline.
func (ls *lineSource) readMore() (int, error) {
	if ls.deadline.IsZero() {
		ls.deadline = time.Now().Add(ls.timeout)
		if err := ls.nc.SetReadDeadline(ls.deadline); err != nil {
			return 0, err
		}
		ls.ncDeadline = true
	}
	if cap(ls.pend)-len(ls.pend) < 512 {
		if !ls.grow() {
			return 0, ErrLineTimeout
		}
	}
	n, err := ls.nc.Read(ls.pend[len(ls.pend):cap(ls.pend)])
	ls.pend = ls.pend[:len(ls.pend)+n]
	return n, err
}

// grow gives pend room for more of its line: twice its size, at least a
// chunk more, at most what the limit allows. Room beyond inputFreeBytes is
// taken from the daemon's budget first, waiting for it until the line's
// deadline; false when it never came.
func (ls *lineSource) grow() bool {
	size := min(max(2*cap(ls.pend), len(ls.pend)+4096), ls.max+4096)
	if need := size - inputFreeBytes - ls.reserved; need > 0 {
		if !ls.budget.take(need, ls.deadline) {
			return false
		}
		ls.reserved += need
	}
	grown := make([]byte, len(ls.pend), size)
	copy(grown, ls.pend)
	ls.pend = grown
	return true
}

// release gives the budget back once no line is held.
func (ls *lineSource) release() {
	ls.budget.give(ls.reserved)
	ls.reserved = 0
}

// lineBuffered reports whether a whole line is read and not yet returned.
func (ls *lineSource) lineBuffered() bool { return bytes.IndexByte(ls.pend, '\n') >= 0 }

// rest is the unterminated last line after next returned io.ErrUnexpectedEOF
// (without a trailing '\r').
func (ls *lineSource) rest() []byte { return bytes.TrimRight(ls.pend, "\r") }

// waitReadable sleeps in the netpoller until the socket has bytes, an end of
// file or an error, without a buffer in hand. Whatever it meets, the read
// that follows (next) reports.
func (ls *lineSource) waitReadable() {
	_ = ls.raw.Read(ls.peek)
	ls.readable = true
}

// peek reports whether a read would not wait.
func (ls *lineSource) peek(fd uintptr) bool {
	var one [1]byte
	_, _, err := unix.Recvfrom(int(fd), one[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
	return !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR)
}
