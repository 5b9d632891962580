package testdaemon

import (
	"testing"
	"time"

	"askuser/socketproto"
)

// Dial connects to sock as a typed client; closed when the test ends.
func Dial(t testing.TB, sock string) *socketproto.Conn {
	t.Helper()
	c, err := socketproto.Dial(sock, 0)
	if err != nil {
		t.Fatalf("dial %s: %v", sock, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Watch subscribes as role watch and reads the snapshot, so that a test
// learns of each new request the moment the daemon queues it.
func Watch(t testing.TB, sock string) *socketproto.Conn {
	t.Helper()
	c := Dial(t, sock)
	if err := c.Send(socketproto.Subscribe{Role: socketproto.RoleWatch}); err != nil {
		t.Fatal(err)
	}
	RecvType(t, c, "snapshot", Wait)
	return c
}

// Recv reads the next message within timeout, failing the test otherwise.
func Recv(t testing.TB, c *socketproto.Conn, timeout time.Duration) socketproto.Message {
	t.Helper()
	_ = c.NetConn().SetReadDeadline(time.Now().Add(timeout))
	defer c.NetConn().SetReadDeadline(time.Time{})
	m, err := c.Recv()
	if err != nil {
		t.Fatalf("recv: %v", err)
	}
	return m
}

// RecvType reads messages until one of type typ arrives (skipping others).
func RecvType(t testing.TB, c *socketproto.Conn, typ string, timeout time.Duration) socketproto.Message {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			t.Fatalf("no %s message within %v", typ, timeout)
		}
		m := Recv(t, c, left)
		if m.MessageType() == typ {
			return m
		}
	}
}

// SendOK sends msg on a fresh connection, as the user would from the CLI,
// and expects ok.
func SendOK(t testing.TB, sock string, msg socketproto.Message) {
	t.Helper()
	c, err := socketproto.Dial(sock, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Send(msg); err != nil {
		t.Fatal(err)
	}
	if m := Recv(t, c, Wait); m.MessageType() != "ok" {
		t.Fatalf("sent %s, got %#v", msg.MessageType(), m)
	}
}

// WatchNext is Watch as a function that reads until a message of the given
// type arrives (within Wait) and returns it.
func WatchNext(t testing.TB, sock string) func(typ string) socketproto.Message {
	t.Helper()
	c := Watch(t, sock)
	return func(typ string) socketproto.Message {
		t.Helper()
		return RecvType(t, c, typ, Wait)
	}
}
