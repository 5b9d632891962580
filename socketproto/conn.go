package socketproto

import (
	"net"
	"time"
)

// Conn is the client side of a socket connection: the pane, askuser-client and
// the MCP server all talk to the daemon through it.
type Conn struct {
	nc net.Conn
	r  *LineReader
	w  *LineWriter
}

// Dial connects to the daemon's socket. maxBytes <= 0 uses the default limit.
func Dial(socketPath string, maxBytes int) (*Conn, error) {
	nc, err := net.DialTimeout("unix", socketPath, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return NewConn(nc, maxBytes), nil
}

// NewConn wraps an established connection.
func NewConn(nc net.Conn, maxBytes int) *Conn {
	return &Conn{nc: nc, r: NewLineReader(nc, maxBytes), w: NewLineWriter(nc)}
}

// Send writes one message; safe to call while another goroutine is in Recv.
func (c *Conn) Send(msg Message) error { return c.w.Write(msg) }

// Recv reads the next message from the daemon. An error message from the
// daemon is returned as a *Error value (not as the error result).
func (c *Conn) Recv() (Message, error) {
	line, err := c.r.ReadLine()
	if err != nil {
		return nil, err
	}
	return DecodeFromDaemon(line)
}

// Close closes the connection; a blocked Recv returns.
func (c *Conn) Close() error { return c.nc.Close() }

// NetConn exposes the underlying connection (deadlines, half-close).
func (c *Conn) NetConn() net.Conn { return c.nc }
