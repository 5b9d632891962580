package panecore

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdir"
)

// TestLinkSubscribesAndReconnects runs a Link against a minimal daemon on a
// real socket: it must subscribe as a pane, pass events on, report a lost
// connection, dial again, and refuse to send while disconnected.
func TestLinkSubscribesAndReconnects(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(testdir.Private(t), "d.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conns := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns <- c
		}
	}()
	link := &Link{Socket: sock}
	got := make(chan socketproto.Message, 16)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { link.Run(stop, func(m socketproto.Message) { got <- m }); close(done) }()
	defer func() {
		close(stop)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("Link.Run did not stop")
		}
	}()

	next := func() socketproto.Message { t.Helper(); return nextFromLink(t, got) }
	serve := func() (net.Conn, *socketproto.LineReader) {
		t.Helper()
		var c net.Conn
		select {
		case c = <-conns:
		case <-time.After(10 * time.Second):
			t.Fatal("the link did not dial within 10s")
		}
		r := socketproto.NewLineReader(c, 0)
		line, err := r.ReadLine()
		if err != nil {
			t.Fatal(err)
		}
		m, perr := socketproto.DecodeFromClient(line)
		if perr != nil || m.(socketproto.Subscribe).Role != socketproto.RolePane {
			t.Fatalf("first message %s (%v), want subscribe as pane", line, perr)
		}
		b, _ := socketproto.Encode(socketproto.Snapshot{State: socketproto.StateIdle, Pending: []socketproto.Pending{}})
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
		return c, r
	}

	c, r := serve()
	if _, ok := next().(socketproto.Snapshot); !ok {
		t.Fatal("the snapshot was not passed on")
	}
	if err := link.Send(socketproto.Cancel{RequestID: "r1", Via: socketproto.ViaPane}); err != nil {
		t.Fatal(err)
	}
	if line, err := r.ReadLine(); err != nil || string(line) != `{"type":"cancel","requestId":"r1","via":"pane"}` {
		t.Fatalf("daemon read %s, %v", line, err)
	}
	c.Close()
	if _, ok := next().(ConnLost); !ok {
		t.Fatal("a dropped connection was not reported")
	}
	if err := link.Send(socketproto.Cancel{RequestID: "r1"}); err == nil {
		t.Fatal("Send while disconnected did not fail")
	}
	c2, _ := serve() // the link dials again by itself
	defer c2.Close()
	if _, ok := next().(socketproto.Snapshot); !ok {
		t.Fatal("no snapshot after reconnecting")
	}
}

// A daemon that died without cleaning up leaves its socket behind, refusing
// connections: the link restarts it (once per restartEvery) and connects.
// A daemon that stopped cleanly removed its socket: the link only retries.
func TestLinkRestartsOnlyACrashedDaemon(t *testing.T) {
	t.Parallel()
	dir := testdir.Private(t)
	sock := filepath.Join(dir, "d.sock")
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close() // the socket file stays, and refuses: a crashed daemon's

	// restart is the daemon starting again: the stale socket replaced by a
	// listening one, handed to the test.
	restarts := make(chan net.Listener, 4)
	restart := func() error {
		if err := os.Remove(sock); err != nil {
			return err
		}
		ln, err := net.Listen("unix", sock)
		if err != nil {
			return err
		}
		restarts <- ln
		return nil
	}
	got := make(chan socketproto.Message, 16)
	runLink := func(link *Link) (stop func()) {
		ch, done := make(chan struct{}), make(chan struct{})
		go func() { link.Run(ch, func(m socketproto.Message) { got <- m }); close(done) }()
		return func() { close(ch); <-done }
	}
	next := func() socketproto.Message { t.Helper(); return nextFromLink(t, got) }

	stop := runLink(&Link{Socket: sock, Restart: restart})
	if m, ok := next().(ConnLost); !ok || !strings.Contains(m.Err, "it died; starting it again now") {
		t.Fatalf("first message %#v, want the restart announced", m)
	}
	ln := <-restarts
	c, err := ln.Accept() // restart returned: the link dials at once
	if err != nil {
		t.Fatal(err)
	}
	line, err := socketproto.NewLineReader(c, 0).ReadLine()
	if err != nil || !strings.Contains(string(line), `"subscribe"`) {
		t.Fatalf("after the restart the link sent %s, %v", line, err)
	}
	c.Close()
	stop()
	// What the first link said of the closed connection, before it
	// stopped, is not the second link's to answer for.
	for len(got) > 0 {
		<-got
	}
	ln.Close() // removes the socket, as a clean stop does
	if len(restarts) != 0 {
		t.Fatalf("%d more restarts, want 1 in all", len(restarts))
	}

	// No socket: stopped on purpose. Two failed dials, no restart.
	stop = runLink(&Link{Socket: sock, Restart: restart})
	defer stop()
	for range 2 {
		if m, ok := next().(ConnLost); !ok || !strings.Contains(m.Err, "no daemon is running") {
			t.Fatalf("got %#v, want a plain retry", m)
		}
	}
	if len(restarts) != 0 {
		t.Fatal("the link restarted a daemon that had stopped cleanly")
	}
}

// nextFromLink is the next message a link delivered on got (10 s safety net).
func nextFromLink(t *testing.T, got <-chan socketproto.Message) socketproto.Message {
	t.Helper()
	select {
	case m := <-got:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no message from the link within 10s")
		return nil
	}
}
