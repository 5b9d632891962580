package daemon

import (
	"encoding/json"
	"slices"
	"time"

	"askuser/socketproto"
)

// Every change of a request's life happens in this file: added, status
// changed, draft changed, resolved. Each emits its event and then runs
// changed(), which is where the pending file hooks in; the state journal is
// handed a record at each change (journal_glue.go).

// add queues a new request; its waiter (if any) is already in r.waiters.
func (s *state) add(r *request) {
	r.elem = s.order.PushBack(r)
	s.pending[r.p.RequestID] = r
	for _, c := range r.waiters {
		s.watch(c, r)
	}
	s.broadcast(socketproto.RequestAdded{Request: r.p})
	if s.notify != nil {
		s.notify(r.p)
	}
	s.log.Debug("request added", "requestId", r.p.RequestID, "status", r.p.Status, "questions", len(r.p.Questions))
	s.journalAdd(r)
	s.changed()
}

// watch records that c waits for r.
func (s *state) watch(c *conn, r *request) {
	if c.asking == nil {
		c.asking = map[string]*request{}
	}
	c.asking[r.p.RequestID] = r
}

// addWaiter makes c receive r's response; a parked or orphaned request is
// waiting again.
func (s *state) addWaiter(r *request, c *conn) {
	if !slices.Contains(r.waiters, c) {
		r.waiters = append(r.waiters, c)
		s.watch(c, r)
	}
	if r.p.Status != socketproto.StatusWaiting {
		r.orphanGen++
		if r.orphanTimer != nil {
			r.orphanTimer.Stop()
			r.orphanTimer = nil
		}
		s.setStatus(r, socketproto.StatusWaiting)
	}
}

// removeWaiter is called when c goes away; the last waiter leaving orphans
// the request, or parks it again if it was asked parked.
func (s *state) removeWaiter(r *request, c *conn) {
	r.waiters = slices.DeleteFunc(r.waiters, func(w *conn) bool { return w == c })
	if len(r.waiters) > 0 || r.p.Status != socketproto.StatusWaiting {
		return
	}
	if _, still := s.pending[r.p.RequestID]; !still {
		return
	}
	if r.parked {
		// Its agent chose not to wait; a `wait` given up (Ctrl-C) must not
		// start the orphan clock on it.
		s.setStatus(r, socketproto.StatusParked)
		return
	}
	s.setStatus(r, socketproto.StatusOrphaned)
	s.startOrphanClock(r)
}

// startOrphanClock withdraws r after orphan_grace unless its agent comes back.
func (s *state) startOrphanClock(r *request) {
	r.orphanGen++
	gen, id := r.orphanGen, r.p.RequestID
	grace := s.opts.Config.Daemon.OrphanGrace.Duration
	r.orphanTimer = time.AfterFunc(grace, func() {
		s.post(func(s *state) { s.orphanExpired(id, gen) })
	})
}

// orphanExpired withdraws a request whose agent did not come back in time.
func (s *state) orphanExpired(id string, gen uint64) {
	r := s.pending[id]
	if r == nil || r.orphanGen != gen || r.p.Status != socketproto.StatusOrphaned {
		return // answered, waited for, or re-orphaned since
	}
	r.orphanTimer = nil
	s.log.Info("withdrew a request whose agent did not come back", "requestId", id,
		"grace", s.opts.Config.Daemon.OrphanGrace.Duration.String())
	s.resolve(r, socketproto.OutcomeWithdrawn, socketproto.ViaAgent, nil)
}

func (s *state) setStatus(r *request, status string) {
	if r.p.Status == status {
		return
	}
	r.p.Status = status
	s.broadcast(socketproto.RequestUpdated{Request: r.p})
	s.changed()
}

// setDraft records answers typed so far (from the pending file): one element
// per question, nil where none. It replaces the slice, never edits it, so
// copies of the Pending handed out earlier stay as they were.
func (s *state) setDraft(r *request, draft []json.RawMessage) {
	d := make([]json.RawMessage, len(r.p.Questions))
	copy(d, draft)
	r.p.Draft = d
	s.journalDraft(r)
	s.broadcast(socketproto.RequestUpdated{Request: r.p})
	s.changed()
}

// resolve ends a request exactly once: outcome answered or cancelled delivers
// resp to every waiter and keeps it for "wait"; withdrawn (resp nil) tells
// other waiters it is gone.
func (s *state) resolve(r *request, outcome, via string, resp *socketproto.Response) {
	id := r.p.RequestID
	delete(s.pending, id)
	s.order.Remove(r.elem)
	r.orphanGen++
	if r.orphanTimer != nil {
		r.orphanTimer.Stop()
		r.orphanTimer = nil
	}
	for _, c := range r.waiters {
		delete(c.asking, id)
		if resp != nil {
			s.send(c, *resp)
		}
		s.closeIfDone(c)
	}
	res := &result{id: id, outcome: outcome, via: via, resp: resp,
		kept: kept{questions: r.p.Questions, agent: r.p.Agent, delivered: resp != nil && len(r.waiters) > 0}}
	r.waiters, r.owner = nil, nil
	s.retain(res)
	s.journalResolve(res)
	s.broadcast(socketproto.RequestResolved{RequestID: id, Outcome: outcome, Via: via})
	s.log.Debug("request resolved", "requestId", id, "outcome", outcome, "via", via)
	s.changed()
}

// changed runs after every change of the pending set or of a request in it:
// it announces idle ↔ waiting_for_user and pokes the hooks.
func (s *state) changed() {
	if cur := s.currentState(); cur != s.lastState {
		s.lastState = cur
		s.broadcast(socketproto.StateEvent{State: cur, Pending: s.pendingList()})
	}
	for _, h := range s.pendingHooks {
		h()
	}
}

// retain keeps a result for result_retention. Results expire in the order
// they were made, so one timer on the oldest is enough, and none runs when
// nothing is kept.
func (s *state) retain(res *result) {
	res.expires = s.now().Add(s.opts.Config.Daemon.ResultRetention.Duration)
	s.results[res.id] = res
	s.expiries = append(s.expiries, res)
	s.indexKept(res)
	if s.expiryTimer == nil {
		s.armExpiry()
	}
}

func (s *state) armExpiry() {
	if len(s.expiries) == 0 {
		s.expiryTimer = nil
		return
	}
	wait := time.Until(s.expiries[0].expires)
	s.expiryTimer = time.AfterFunc(max(wait, 0), func() {
		s.post(func(s *state) { s.expireResults() })
	})
}

func (s *state) expireResults() {
	now := s.now()
	n := 0
	for n < len(s.expiries) && !s.expiries[n].expires.After(now) {
		res := s.expiries[n]
		if s.results[res.id] == res {
			delete(s.results, res.id)
			s.forgetKept(res)
		}
		n++
	}
	s.expiries = slices.Delete(s.expiries, 0, n)
	s.armExpiry()
}
