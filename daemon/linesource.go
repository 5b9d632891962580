package daemon

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"

	"askuser/socketproto"

	"golang.org/x/sys/unix"
)

// lineSource frames a connection's bytes into lines exactly like
// socketproto.LineReader (same limit, same errors, blank lines skipped, a
// trailing '\r' dropped), but holds no buffer while the connection is idle:
// it waits for readability first and reads through a pooled chunk. With
// 10,000 agents waiting, that is 40 MB of read buffers not kept.
type lineSource struct {
	nc   *net.UnixConn
	raw  syscall.RawConn
	max  int
	pend []byte // bytes read and not yet returned; nil when none
}

var chunkPool = sync.Pool{New: func() any { b := make([]byte, 4096); return &b }}

func newLineSource(nc *net.UnixConn, max int) (*lineSource, error) {
	if max <= 0 {
		max = socketproto.DefaultLimits().MaxMessageBytes
	}
	raw, err := nc.SyscallConn()
	if err != nil {
		return nil, err
	}
	return &lineSource{nc: nc, raw: raw, max: max}, nil
}

// next returns the next non-blank line without its newline; it is valid
// until the following call. Errors: socketproto.ErrTooLarge (the connection
// is unusable), io.EOF at a clean end, io.ErrUnexpectedEOF mid-line.
func (ls *lineSource) next() ([]byte, error) {
	for {
		if i := bytes.IndexByte(ls.pend, '\n'); i >= 0 {
			line := ls.pend[:i]
			ls.pend = ls.pend[i+1:]
			if len(ls.pend) == 0 {
				ls.pend = nil
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
		if len(ls.pend) == 0 {
			if err := ls.waitReadable(); err != nil {
				return nil, err
			}
		}
		chunk := chunkPool.Get().(*[]byte)
		n, err := ls.nc.Read(*chunk)
		if n > 0 {
			ls.pend = append(ls.pend, (*chunk)[:n]...)
		}
		chunkPool.Put(chunk)
		if err != nil && n == 0 {
			// Whitespace after the last newline is not a message cut short.
			if errors.Is(err, io.EOF) && len(bytes.TrimSpace(ls.pend)) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// rest is the unterminated last line after next returned io.ErrUnexpectedEOF
// (without a trailing '\r').
func (ls *lineSource) rest() []byte { return bytes.TrimRight(ls.pend, "\r") }

// waitReadable sleeps in the netpoller until the socket has bytes, an end of
// file or an error, without a buffer in hand.
func (ls *lineSource) waitReadable() error {
	var one [1]byte
	return ls.raw.Read(func(fd uintptr) bool {
		_, _, err := unix.Recvfrom(int(fd), one[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		return !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR)
	})
}
