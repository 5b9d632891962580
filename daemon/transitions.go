package daemon

import (
	"encoding/json"
	"slices"
	"time"

	"askuser/daemon/journal"
	"askuser/daemon/pendingfile"
	"askuser/socketproto"
)

// Every change of a request's life happens in this file: added, status
// changed, draft changed, resolved, a kept result delivered. Each one is
// first written to the journal (record): when that fails, the change does
// not happen and the caller says state_unavailable. Then the change is made
// and told to every follower (followers.go). Whatever the queue sends a
// client leaves only after the step's journal writes (queue.commit), so an
// acknowledgement always follows the record it promises.

// add queues a new request and tells the followers; its waiter (if any) is
// already in r.waiters.
func (s *state) add(r *request) error {
	if err := s.enqueue(r); err != nil {
		return err
	}
	s.tellAdded(r)
	return nil
}

// tellAdded tells the followers that r waits for the user. r's JSON, kept
// from enqueue for the panes' request_added, is let go then: a request may
// wait for hours.
func (s *state) tellAdded(r *request) {
	s.tell(func(f follower) { f.added(r.p) })
	r.encoded = nil
}

// enqueue is add without telling the followers, for a request resolved in
// the same step (answerFromKept): nobody is shown, rung or notified for a
// question that never waits for the user.
func (s *state) enqueue(r *request) error {
	p := r.p // its slices are never changed in place, so the copy stays as it is
	// Encoded once, for the journal and the panes (nil on an error, which
	// the journal then reports).
	encoded, _ := json.Marshal(p)
	if err := s.record(journal.Record{Op: journal.OpAdd, ID: p.RequestID, At: p.CreatedAt, Pending: &p, PendingJSON: encoded, Parked: r.parked, Remember: r.proposal.offered()}); err != nil {
		return err
	}
	r.encoded = encoded
	r.elem = s.order.PushBack(r)
	s.pending[r.p.RequestID] = r
	for _, c := range r.waiters {
		s.watch(c, r)
	}
	s.log.Debug("request added", "requestId", r.p.RequestID, "status", r.p.Status, "questions", len(r.p.Questions))
	return nil
}

// watch records that c waits for r.
func (s *state) watch(c *conn, r *request) {
	c.asking.add(r)
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
	s.startOrphanClock(r, s.opts.Config.Daemon.OrphanGrace.Duration)
}

// startOrphanClock withdraws r after grace unless its agent comes back.
func (s *state) startOrphanClock(r *request, grace time.Duration) {
	r.orphanGen++
	gen, id := r.orphanGen, r.p.RequestID
	r.orphanTimer = time.AfterFunc(grace, func() {
		s.post(func(s *state) { s.orphanExpired(id, gen) })
	})
}

// orphanRetry is how soon a withdrawal the journal could not take is tried again.
const orphanRetry = time.Minute

// orphanExpired withdraws a request whose agent did not come back in time.
func (s *state) orphanExpired(id string, gen uint64) {
	r := s.pending[id]
	if r == nil || r.orphanGen != gen || r.p.Status != socketproto.StatusOrphaned {
		return // answered, waited for, or re-orphaned since
	}
	r.orphanTimer = nil
	if err := s.resolve(r, socketproto.OutcomeWithdrawn, socketproto.ViaAgent, nil, nil); err != nil {
		s.log.Warn("could not withdraw a request whose agent did not come back; trying again", "requestId", id,
			"err", err, "retry", orphanRetry)
		s.startOrphanClock(r, orphanRetry)
		return
	}
	s.log.Info("withdrew a request whose agent did not come back", "requestId", id,
		"grace", s.opts.Config.Daemon.OrphanGrace.Duration.String())
}

// setStatus changes waiting / parked / orphaned. Statuses are not journaled:
// after a restart every request's agent has to come back anyway.
func (s *state) setStatus(r *request, status socketproto.RequestStatus) {
	if r.p.Status == status {
		return
	}
	r.p.Status = status
	r.encoded = nil
	s.tell(func(f follower) { f.updated(r.p) })
}

// setDraft records answers given so far (pending file, pane): one element
// per question, nil where none. It replaces the slice, never edits it, so
// copies of the Pending handed out earlier stay as they were.
func (s *state) setDraft(r *request, draft []json.RawMessage) error {
	d := make([]json.RawMessage, len(r.p.Questions))
	copy(d, draft)
	if err := s.record(journal.Record{Op: journal.OpDraft, ID: r.p.RequestID, At: s.now().UTC(), Draft: d}); err != nil {
		return err
	}
	r.p.Draft = d
	r.encoded = nil
	s.tell(func(f follower) { f.updated(r.p) })
	return nil
}

// changeDraft records draft for r unless it is the draft r has already.
func (s *state) changeDraft(r *request, draft []json.RawMessage) *socketproto.Error {
	if pendingfile.SameDraft(r.p.Draft, draft) {
		return nil
	}
	if err := s.setDraft(r, draft); err != nil {
		return stateUnavailable(r.p.RequestID, err)
	}
	return nil
}

// answerWith resolves r as answered.
func (s *state) answerWith(r *request, answers []socketproto.Answer, via socketproto.Via) error {
	answers, ruleID := s.rememberChoice(r, answers, via)
	resp := socketproto.BuildResponse(r.p.RequestID, r.p.Questions, answers, via, s.now().UTC())
	resp.RuleID = ruleID
	return s.resolve(r, socketproto.OutcomeAnswered, via, &resp, nil)
}

// cancelAsUser resolves r as declined by the user.
func (s *state) cancelAsUser(r *request, via socketproto.Via) error {
	resp := socketproto.CancelledResponse(r.p.RequestID, s.now().UTC())
	resp.AnsweredVia = via
	return s.resolve(r, socketproto.OutcomeCancelled, via, &resp, nil)
}

// withdraw resolves r as withdrawn by its agent (by, the connection that
// withdrew it); settled, when not empty, is how the user settled it in the
// agent's own prompt, kept in the result and its history line.
func (s *state) withdraw(r *request, settled string, by *conn) error {
	return s.resolveAs(r, socketproto.OutcomeWithdrawn, socketproto.ViaAgent, nil, by, settled)
}

// resolve ends a request exactly once: outcome answered or cancelled delivers
// resp to every waiter and keeps it for "wait"; withdrawn (resp nil) tells
// every waiter but by, the connection that withdrew it, that it is gone. Its
// history line is written with it.
func (s *state) resolve(r *request, outcome socketproto.Outcome, via socketproto.Via, resp *socketproto.Response, by *conn) error {
	return s.resolveAs(r, outcome, via, resp, by, "")
}

func (s *state) resolveAs(r *request, outcome socketproto.Outcome, via socketproto.Via, resp *socketproto.Response, by *conn, settled string) error {
	id := r.p.RequestID
	asked := r.p
	asked.Draft = nil
	res := &result{id: id, outcome: outcome, via: via, resp: resp, asked: asked, settled: settled,
		delivered: resp != nil && len(r.waiters) > 0,
		expires:   s.now().Add(s.opts.Config.Daemon.ResultRetention.Duration)}
	// The response is encoded once, for the journal and for the agents.
	var respJSON, respLine []byte
	if resp != nil {
		respJSON, respLine = s.encodeResponse(resp)
	}
	rec := journal.Record{Op: journal.OpResolve, ID: id, At: s.now().UTC(),
		Outcome: outcome, Via: via, Response: resp, ResponseJSON: respJSON, Expires: res.expires, Delivered: res.delivered, Settled: settled}
	if err := s.record(rec, journal.HistoryOf(&asked, rec)); err != nil {
		return err
	}
	delete(s.pending, id)
	s.order.Remove(r.elem)
	r.orphanGen++
	if r.orphanTimer != nil {
		r.orphanTimer.Stop()
		r.orphanTimer = nil
	}
	for _, c := range r.waiters {
		c.asking.remove(id)
		switch {
		case respLine != nil:
			s.sendLine(c, respLine)
		case resp != nil:
			s.send(c, *resp)
		case c != by:
			s.sendErr(c, id, socketproto.Errf(socketproto.CodeNotFound, "requestId", "request %q was withdrawn by its agent", id))
		}
		s.closeIfDone(c)
	}
	r.waiters, r.owner = nil, nil
	s.retain(res)
	s.log.Debug("request resolved", "requestId", id, "outcome", outcome, "via", via)
	s.tell(func(f follower) {
		f.resolved(socketproto.RequestResolved{RequestID: id, Outcome: outcome, Via: via, Settled: settled})
	})
	return nil
}

// encodeResponse is resp's JSON and its line for the agent; both nil (and
// the error logged) if it cannot be encoded, when the journal and send say
// so in their turn.
func (s *state) encodeResponse(resp *socketproto.Response) (body, line []byte) {
	body, err := json.Marshal(resp)
	if err == nil {
		line, err = socketproto.Frame(resp.MessageType(), body)
	}
	if err != nil {
		s.log.Error("encoding a response", "requestId", resp.RequestID, "err", err)
		return nil, nil
	}
	return body, line
}

// markDelivered notes that a kept result reached a waiting connection, so
// that it is not handed to a repeated request as well.
func (s *state) markDelivered(res *result) {
	if res.delivered {
		return
	}
	if err := s.record(journal.Record{Op: journal.OpDelivered, ID: res.id, At: s.now().UTC()}); err != nil {
		// Worst case after a restart: the same agent asking the same
		// questions gets this answer once more instead of a new question.
		s.log.Warn("could not journal that a result was delivered", "requestId", res.id, "err", err)
	}
	res.delivered = true
	s.forgetKept(res)
}

// retain keeps a result until res.expires. Results expire in the order they
// were made, so one timer on the oldest is enough, and none runs when
// nothing is kept.
func (s *state) retain(res *result) {
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
	wait := s.expiries[0].expires.Sub(s.now())
	s.expiryTimer = time.AfterFunc(max(wait, 0), func() {
		s.post(func(s *state) { s.expireResults() })
	})
}

// expireResults forgets results past their retention. Nothing is journaled:
// replay and compaction drop expired results by their own expiry time.
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
