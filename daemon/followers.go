package daemon

import (
	"askuser/socketproto"
)

// follower mirrors the queue somewhere else: the subscribers (panes and
// watchers), the pending file, the notify hook. It is the one seam through
// which the queue's changes leave it. Its methods run in the queue
// goroutine, in the order the changes happened, after the journal has them;
// they must not block nor do I/O: a follower that writes files signals a
// goroutine of its own, which coalesces.
type follower interface {
	added(p socketproto.Pending)
	// updated: a status or a draft changed.
	updated(p socketproto.Pending)
	resolved(e socketproto.RequestResolved)
}

// follow registers f; from now on it is told of every change.
func (s *state) follow(f follower) { s.followers = append(s.followers, f) }

// tell hands one change to every follower.
func (s *state) tell(change func(follower)) {
	s.replies = cachedReplies{} // what they said is out of date
	for _, f := range s.followers {
		change(f)
	}
}

// subscribers is the follower that sends events to panes and watchers, and
// announces idle ↔ waiting_for_user.
type subscribers struct{ s *state }

func (f subscribers) added(p socketproto.Pending) {
	if r := f.s.pending[p.RequestID]; r != nil && r.encoded != nil {
		// p is r.p: the JSON the journal wrote is this event's request.
		f.s.broadcastLine(socketproto.EncodeRequestAdded(r.encoded))
	} else {
		f.s.broadcast(socketproto.RequestAdded{Request: p})
	}
	f.stateChanged()
}

func (f subscribers) updated(p socketproto.Pending) {
	f.s.broadcast(socketproto.RequestUpdated{Request: p})
}

func (f subscribers) resolved(e socketproto.RequestResolved) {
	f.s.broadcast(e)
	f.stateChanged()
}

func (f subscribers) stateChanged() {
	s := f.s
	if cur := s.currentState(); cur != s.lastState {
		s.lastState = cur
		s.broadcast(socketproto.StateEvent{State: cur, Pending: s.pendingList()})
	}
}

// followAfterSends registers f to be told of each change only once the
// step's replies and events are written: f wakes a goroutine of its own
// (the pending file's, the notifier's), which would otherwise compete with
// those writes for the CPU while an agent waits for them.
func (s *state) followAfterSends(f follower) { s.follow(afterSends{s, f}) }

type afterSends struct {
	s *state
	f follower
}

func (a afterSends) added(p socketproto.Pending) {
	a.s.held = append(a.s.held, func() { a.f.added(p) })
}

func (a afterSends) updated(p socketproto.Pending) {
	a.s.held = append(a.s.held, func() { a.f.updated(p) })
}

func (a afterSends) resolved(e socketproto.RequestResolved) {
	a.s.held = append(a.s.held, func() { a.f.resolved(e) })
}

// anyChange is a follower that only needs to know that something changed.
type anyChange func()

func (f anyChange) added(socketproto.Pending)            { f() }
func (f anyChange) updated(socketproto.Pending)          { f() }
func (f anyChange) resolved(socketproto.RequestResolved) { f() }

// cachedReplies are the encoded list and snapshot replies, the two that
// carry the whole pending set, kept until the next change: a thousand
// clients that ask for the list of a big queue get one shared encoding, not
// a thousand (docs/contract.md §4: memory bounded whatever clients do).
type cachedReplies struct {
	list, snapshot []byte
}

// sendList sends c the pending list.
func (s *state) sendList(c *conn) {
	if s.replies.list == nil {
		s.replies.list = s.encode(socketproto.List{Pending: s.pendingList()})
	}
	s.sendCached(c, s.replies.list)
}

// sendSnapshot sends c, a new subscriber, the state and the pending list.
func (s *state) sendSnapshot(c *conn) {
	if s.replies.snapshot == nil {
		s.replies.snapshot = s.encode(socketproto.Snapshot{State: s.currentState(), Pending: s.pendingList()})
	}
	s.sendCached(c, s.replies.snapshot)
}

func (s *state) sendCached(c *conn, line []byte) {
	if line != nil {
		s.sendLine(c, line)
	}
}
