package web

import (
	"io"
	"log/slog"
	"net"
	"testing"
	"time"
)

// A stream still writing a view is dropped once what waits for it passes
// streamBudget; one that keeps up, or has only its first big view waiting,
// is not.
func TestStreamSlowReaderDropped(t *testing.T) {
	se := &session{streams: map[*stream]struct{}{}}
	newStream := func() *stream {
		st := &stream{ch: make(chan []byte, 1), gone: make(chan struct{})}
		se.streams[st] = struct{}{}
		return st
	}
	view := make([]byte, streamBudget/2)

	idle, slow := newStream(), newStream()
	slow.unwritten.Store(streamBudget/2 + 1)
	se.put(idle, view)
	se.put(idle, view) // replaces the one not taken: still one view waiting
	se.put(slow, view)
	if _, ok := se.streams[idle]; !ok || len(idle.ch) != 1 {
		t.Fatal("a stream not writing was dropped, or holds more than the latest view")
	}
	select {
	case <-slow.gone:
	default:
		t.Fatal("a stream with more than streamBudget waiting was kept")
	}
	if _, ok := se.streams[slow]; ok {
		t.Fatal("a dropped stream is still the session's")
	}
	se.drop(slow) // dropping twice is harmless
}

// pipeListener hands out the connections it is given.
type pipeListener struct{ conns chan net.Conn }

func (p pipeListener) Accept() (net.Conn, error) { return <-p.conns, nil }
func (pipeListener) Close() error                { return nil }
func (pipeListener) Addr() net.Addr              { return &net.TCPAddr{} }

// Past the bound the connection unused for the longest goes, unless it
// serves a logged-in request; when all do, the newcomer is refused.
func TestConnLimitClosesTheOldestIdle(t *testing.T) {
	pl := pipeListener{conns: make(chan net.Conn, 8)}
	l := newConnLimit(pl, 2, slog.New(slog.NewTextHandler(io.Discard, nil)))
	accept := func() (*limitedConn, net.Conn) {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		pl.conns <- a
		c, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		return c.(*limitedConn), b
	}
	// A pipe whose other end closed reads EOF before its deadline counts.
	isClosed := func(peer net.Conn) bool {
		_ = peer.SetReadDeadline(time.Now())
		_, err := peer.Read(make([]byte, 1))
		return err == io.EOF
	}
	first, firstPeer := accept()
	second, secondPeer := accept()
	release := second.hold()
	first.touch() // used after second was accepted; second is held anyway
	_, _ = accept()
	if !isClosed(firstPeer) || isClosed(secondPeer) {
		t.Fatal("the third connection should have closed the first (idle), not the second (logged in)")
	}
	release()

	// Now hold both: a newcomer is refused.
	l.mu.Lock()
	for c := range l.live {
		c.authed++
	}
	l.mu.Unlock()
	a, b := net.Pipe()
	defer b.Close()
	pl.conns <- a
	done := make(chan struct{})
	go func() { defer close(done); _, _ = l.Accept() }()    // waits for a connection it can take
	_ = b.SetReadDeadline(time.Now().Add(10 * time.Second)) // refused on Accept's goroutine
	if _, err := b.Read(make([]byte, 1)); err != io.EOF {
		t.Fatal("a newcomer was taken in while every connection serves a logged-in request")
	}
	l.mu.Lock()
	for c := range l.live {
		c.authed--
	}
	l.mu.Unlock()
	c, d := net.Pipe()
	defer d.Close()
	pl.conns <- c
	<-done
	if l.refused != 1 || l.evicted != 2 {
		t.Fatalf("refused %d, evicted %d; want 1 and 2", l.refused, l.evicted)
	}
}
