package web

import (
	"bytes"
	"sync"
	"sync/atomic"
	"time"

	"askuser/socketproto"
	"askuser/views/panecore"
)

// A browser session (one session token) has a core of its own
// (docs/contract.md §6, §12): its own daemon connection, its own view — the
// request and question on screen, what is being typed, the guard —, and
// the page's streams that show it. Everything the core does happens on the
// session's one goroutine: daemon messages, the page's actions, the core's
// wake-ups; each of them ends with the new view sent to the streams.
type session struct {
	core  *panecore.Core
	link  *panecore.Link
	msgs  chan socketproto.Message
	work  chan func()
	stop  chan struct{} // closed to end the session (the secret changed, the server stops)
	done  chan struct{} // closed when its goroutine has ended
	close sync.Once

	// Owned by the session's goroutine.
	streams map[*stream]struct{}
	opened  uint64 // streams opened so far
	ready   bool   // the daemon (or its absence) has spoken: the view is the truth
	last    []byte // the latest view sent

	lastActivity time.Time
}

// stream is one open page's event stream. It holds at most the latest view:
// every view is the whole state, so one that was not read yet is replaced.
// The views are the session's own bytes, shared by all its streams: a
// stream holds no copy of its own.
type stream struct {
	ch   chan []byte   // the next view
	gone chan struct{} // closed when the session drops the stream
	seq  uint64        // the order streams were opened in

	// unwritten is how much of the view being written has not been
	// written yet: written by the stream's handler, read by the session.
	unwritten atomic.Int64
}

// idleEnd is how long a session outlives its last stream: a phone that
// slept, or a page reloaded, comes back to the question and the text as it
// left them. After that its core closes (what was typed goes to the daemon
// as a draft, docs/contract.md §6) and its daemon connection ends.
const idleEnd = 2 * time.Minute

// logLine logs the raw error behind a session's notice; a server built
// without a logger (in tests) drops it.
func (s *server) logLine(line string) {
	if s.log != nil {
		s.log.Info(line)
	}
}

func (s *server) newSession() *session {
	link := &panecore.Link{Socket: s.o.Socket, MaxBytes: s.o.MaxMessageBytes, Restart: s.o.RestartDaemon, RestartDelay: 5 * time.Second,
		Log: s.logLine}
	se := &session{
		link:    link,
		msgs:    make(chan socketproto.Message),
		work:    make(chan func()),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		streams: map[*stream]struct{}{},
	}
	se.core = panecore.New(link, panecore.Options{
		Socket:     s.o.Socket,
		SoftLimit:  s.o.SoftLimit,
		Bell:       true, // the page raises a notification for a new question when in the background
		InputGuard: s.o.InputGuard,
		Via:        socketproto.ViaWeb, // "answered elsewhere (web)", and history's via
	})
	return se
}

// session returns the session id's core, started on first use.
func (s *server) sessionFor(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if se := s.sessions[id]; se != nil {
		return se
	}
	se := s.newSession()
	s.sessions[id] = se
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		se.run()
		s.mu.Lock()
		if s.sessions[id] == se {
			delete(s.sessions, id)
		}
		s.mu.Unlock()
	}()
	return se
}

// endSessions ends every session (the secret changed: every token is void;
// or the server stops).
func (s *server) endSessions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, se := range s.sessions {
		se.end()
		delete(s.sessions, id)
	}
}

func (se *session) end() { se.close.Do(func() { close(se.stop) }) }

// do runs f on the session's goroutine and waits for it; false when the
// session has ended.
func (se *session) do(f func()) bool {
	ran := make(chan struct{})
	select {
	case se.work <- func() { f(); close(ran) }:
	case <-se.done:
		return false
	}
	<-ran
	return true
}

func (se *session) run() {
	defer close(se.done)
	linkStop, linkDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(linkDone)
		se.link.Run(linkStop, func(m socketproto.Message) {
			select {
			case se.msgs <- m:
			case <-linkStop:
			}
		})
	}()
	defer func() { close(linkStop); <-linkDone }()

	wake := time.NewTimer(time.Hour)
	defer wake.Stop()
	idle := time.NewTimer(idleEnd)
	defer idle.Stop()
	open := 0 // streams open as of the last turn
	for {
		select {
		case m := <-se.msgs:
			se.core.Event(m)
			switch m.(type) {
			case socketproto.Snapshot, panecore.ConnLost:
				se.ready = true
			}
		case f := <-se.work:
			f()
		case <-wake.C:
			se.core.Tick()
		case <-idle.C:
			if len(se.streams) == 0 {
				se.core.Close()
				return
			}
		case <-se.stop:
			se.core.Close()
			return
		}
		se.publish()
		wake.Stop()
		if d := se.core.NextWake(); d > 0 {
			wake.Reset(d)
		}
		// The idle time counts from the last stream's end, whatever the
		// daemon says meanwhile (a busy queue must not keep an abandoned
		// session alive).
		if n := len(se.streams); (n == 0) != (open == 0) {
			if n == 0 {
				idle.Reset(idleEnd)
			} else {
				idle.Stop()
			}
			open = n
		}
	}
}

// publish sends the view to every stream when it changed.
func (se *session) publish() {
	if !se.ready {
		return // not the truth yet: the page keeps saying "Connecting…"
	}
	b := encodeView(se.core.View())
	if bytes.Equal(b, se.last) {
		return
	}
	se.last = b
	for st := range se.streams {
		se.put(st, b)
	}
}

// put leaves b as the stream's next message, replacing one not read yet.
// A stream that is still writing an earlier view, with more than
// streamBudget bytes waiting counting this one, is not being read: it is
// dropped. Only the session's goroutine puts, so the send after draining
// never blocks.
func (se *session) put(st *stream, b []byte) {
	if left := st.unwritten.Load(); left > 0 && left+int64(len(b)) > streamBudget {
		se.drop(st)
		return
	}
	select {
	case st.ch <- b:
	default:
		select {
		case <-st.ch:
		default:
		}
		st.ch <- b
	}
}

// drop ends a stream from the session's side; its handler sees gone and
// returns, which closes its connection.
func (se *session) drop(st *stream) {
	if _, ok := se.streams[st]; ok {
		delete(se.streams, st)
		close(st.gone)
	}
}

// open adds a stream, with the latest view as its first message. Past
// maxStreams the oldest of the session's streams is dropped.
func (se *session) open() (*stream, bool) {
	st := &stream{ch: make(chan []byte, 1), gone: make(chan struct{})}
	ok := se.do(func() {
		for len(se.streams) >= maxStreams {
			var oldest *stream
			for o := range se.streams {
				if oldest == nil || o.seq < oldest.seq {
					oldest = o
				}
			}
			se.drop(oldest)
		}
		se.opened++
		st.seq = se.opened
		se.streams[st] = struct{}{}
		if se.ready && se.last != nil {
			se.put(st, se.last)
		}
	})
	return st, ok
}

func (se *session) closeStream(st *stream) {
	se.do(func() { delete(se.streams, st) })
}

// act applies the page's actions in order and returns the last refusal.
func (se *session) act(as []panecore.Action) (*panecore.Refusal, bool) {
	var ref *panecore.Refusal
	ok := se.do(func() {
		byUser := false
		for _, a := range as {
			ref = se.core.Do(a)
			// The page reports on its own what a preview put on screen
			// when a prompt arrives: no sign that anyone is there.
			byUser = byUser || a.Kind != panecore.Shown
		}
		if byUser {
			se.active()
		}
	})
	return ref, ok
}

// activityEvery spaces the activity messages of a user who keeps tapping
// (docs/contract.md §4): the terminal pane's pace.
const activityEvery = 5 * time.Second

// active tells the daemon that the user is at this page, so that nothing
// is pushed to their phone meanwhile. A lost message only makes
// notifications more eager.
func (se *session) active() {
	if now := time.Now(); now.Sub(se.lastActivity) >= activityEvery {
		se.lastActivity = now
		_ = se.link.Send(socketproto.Activity{})
	}
}
