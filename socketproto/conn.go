package socketproto

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"askuser/socketproto/peertrust"
)

// Conn is the client side of a socket connection: the pane, askuser-client and
// the MCP server all talk to the daemon through it.
type Conn struct {
	nc Stream
	r  *LineReader
	w  *LineWriter
}

// Dial connects to the daemon's socket. maxBytes <= 0 uses the default limit.
//
// It first checks who it talks to (docs/contract.md §2), before a byte is sent: the
// socket's directory and the socket must be the user's and closed to
// everyone else, and the process at the other end must run as the user.
// Anything else is a *peertrust.Refusal, never a reason to try elsewhere.
// A directory or socket that does not exist is the stat's error (nothing
// listens there), as a refused connection is the dial's.
func Dial(socketPath string, maxBytes int) (*Conn, error) {
	uid := os.Getuid()
	if err := peertrust.CheckDir(filepath.Dir(socketPath), uid, peertrust.GroupOrOthers); err != nil {
		return nil, err
	}
	if err := peertrust.CheckSocket(socketPath, uid); err != nil {
		return nil, err
	}
	nc, err := dialUnix(socketPath, 2*time.Second)
	if err != nil {
		return nil, err
	}
	// The checks above give the clearer message; this one holds even if
	// the socket was swapped after them.
	if err := peertrust.CheckPeer(nc, socketPath, uid); err != nil {
		nc.Close()
		return nil, err
	}
	return NewConn(nc, maxBytes), nil
}

// MaxDaemonLineBytes bounds what a client reads from the daemon in one line.
// It is far above limits.max_message_bytes on purpose: that limit protects the
// daemon from its clients, while a snapshot or list of 10,000 pending requests
// from the (same-user, trusted) daemon can be several megabytes.
const MaxDaemonLineBytes = 256 << 20

// NewConn wraps an established connection. maxBytes is the limit the daemon
// enforces on what we send; replies are read up to MaxDaemonLineBytes.
func NewConn(nc Stream, maxBytes int) *Conn {
	readLimit := MaxDaemonLineBytes
	if maxBytes > readLimit {
		readLimit = maxBytes
	}
	return &Conn{nc: nc, r: NewLineReader(nc, readLimit), w: NewLineWriter(nc)}
}

// Send writes one message; safe to call while another goroutine is in Recv.
func (c *Conn) Send(msg Message) error { return c.w.Write(msg) }

// Recv reads the next message from the daemon. An error message from the
// daemon is returned as a *Error value (not as the error result). After an
// error, Broken says whether the connection is done for or only that line
// was not understood.
func (c *Conn) Recv() (Message, error) {
	line, err := c.r.ReadLine()
	if err != nil {
		return nil, err
	}
	return DecodeFromDaemon(line)
}

// Close closes the connection; a blocked Recv returns.
func (c *Conn) Close() error { return c.nc.Close() }

// ReadLimit is the longest line Recv accepts; a longer one is ErrTooLarge.
func (c *Conn) ReadLimit() int { return c.r.max }

// NetConn exposes the underlying connection (deadlines).
func (c *Conn) NetConn() Stream { return c.nc }

// Broken reports whether err, from Recv or Send, means the connection can
// carry no more messages: anything but a line that could not be decoded
// (ErrUnknownMessage, ErrMalformedMessage), after which the next line reads
// fine. Both the pane and askuser-client decide with it whether to skip a
// line or to reconnect.
func Broken(err error) bool {
	return err != nil && !errors.Is(err, ErrUnknownMessage) && !errors.Is(err, ErrMalformedMessage)
}
