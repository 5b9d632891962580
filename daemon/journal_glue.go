package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"askuser/daemon/journal"
	"askuser/socketproto"
)

// The state journal (SPEC §10) follows the queue through records handed over
// at each change in transitions.go: added, draft changed, resolved, and a
// kept result delivered. Handing over never waits for disk (journal.Append
// only adds to a list); the journal's own goroutine writes and fsyncs in
// batches, and appends history.jsonl. On start the journal's state comes
// back before the socket accepts anyone: pending requests as orphaned (parked
// ones as parked), results kept until their retention ends.

// journaled is the queue's side of the journal.
type journaled struct {
	journal *journal.Journal // nil: no journal (the state dir is unusable)
	// byAgent indexes kept answered results that no connection has received
	// yet, by agent id, for "same agent, same questions".
	byAgent map[string][]*result
}

// kept is what a result remembers of its request.
type kept struct {
	questions []socketproto.Question
	agent     *socketproto.Agent
	delivered bool // written to a waiting connection
	// reused: this result is a kept answer handed to a repeated request; it
	// is not handed out a second time.
	reused bool
}

func startJournal(ctx context.Context, d *server) error {
	dir := d.opts.Config.StateDir()
	j, st, err := journal.Open(journal.Options{
		Dir:  dir,
		Logf: func(format string, args ...any) { d.log.Warn(fmt.Sprintf(format, args...)) },
	})
	if err != nil {
		// Still a working daemon, only without memory across restarts.
		d.log.Warn("state journal: cannot use the state dir; pending requests will not survive a restart",
			"dir", dir, "err", err)
		return nil
	}
	if !d.q.do(func(s *state) { s.restore(st); s.journal = j }) {
		j.Close()
		return fmt.Errorf("state journal: the queue stopped before it started")
	}
	if n, m := len(st.Pending), len(st.Results); n+m > 0 {
		d.log.Info("state journal: restored", "pending", n, "results", m)
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		<-ctx.Done()
		<-d.q.done // the queue's last records are in
		j.Close()
	}()
	return nil
}

// restore takes back what the journal kept; it runs before anyone connects.
func (s *state) restore(st journal.State) {
	for _, jr := range st.Pending {
		r := &request{p: jr.Pending, parked: jr.Parked}
		if len(r.p.Draft) != len(r.p.Questions) {
			d := make([]json.RawMessage, len(r.p.Questions))
			copy(d, r.p.Draft)
			r.p.Draft = d
		}
		r.elem = s.order.PushBack(r)
		s.pending[r.p.RequestID] = r
		if r.parked {
			r.p.Status = socketproto.StatusParked
			continue
		}
		// Its agent lost the connection with the old daemon: it has
		// orphan_grace from now to come back with "wait".
		r.p.Status = socketproto.StatusOrphaned
		s.startOrphanClock(r)
	}
	for _, jres := range st.Results {
		res := &result{id: jres.ID, outcome: jres.Outcome, via: jres.Via, resp: jres.Response, expires: jres.Expires,
			kept: kept{questions: jres.Questions, agent: jres.Agent, delivered: jres.Delivered}}
		s.results[res.id] = res
		s.expiries = append(s.expiries, res)
		s.indexKept(res)
	}
	// Expiry assumes oldest first; a changed result_retention may reorder.
	slices.SortStableFunc(s.expiries, func(a, b *result) int { return a.expires.Compare(b.expires) })
	if s.expiryTimer == nil {
		s.armExpiry()
	}
	s.changed()
}

func (s *state) journalAdd(r *request) {
	if s.journal == nil {
		return
	}
	p := r.p // its slices are never changed in place, so the copy stays as it is
	s.journal.Append(journal.Record{Op: journal.OpAdd, ID: p.RequestID, At: p.CreatedAt, Pending: &p, Parked: r.parked})
}

func (s *state) journalDraft(r *request) {
	if s.journal == nil {
		return
	}
	s.journal.Append(journal.Record{Op: journal.OpDraft, ID: r.p.RequestID, At: s.now().UTC(), Draft: r.p.Draft})
}

func (s *state) journalResolve(res *result) {
	if s.journal == nil {
		return
	}
	s.journal.Append(journal.Record{Op: journal.OpResolve, ID: res.id, At: s.now().UTC(),
		Outcome: res.outcome, Via: res.via, Response: res.resp, Expires: res.expires, Delivered: res.delivered})
}

// markDelivered notes that a kept result reached a waiting connection.
func (s *state) markDelivered(res *result) {
	if res.delivered {
		return
	}
	res.delivered = true
	if s.journal != nil {
		s.journal.Append(journal.Record{Op: journal.OpDelivered, ID: res.id, At: s.now().UTC()})
	}
}

// indexKept makes an answered result nobody has received yet findable by
// its agent's id.
func (s *state) indexKept(res *result) {
	if res.outcome != socketproto.OutcomeAnswered || res.resp == nil || res.delivered || res.reused ||
		res.agent == nil || res.agent.ID == "" {
		return
	}
	if s.byAgent == nil {
		s.byAgent = map[string][]*result{}
	}
	s.byAgent[res.agent.ID] = append(s.byAgent[res.agent.ID], res)
}

// forgetKept drops an expired result from the index.
func (s *state) forgetKept(res *result) {
	if res.agent == nil || s.byAgent[res.agent.ID] == nil {
		return
	}
	list := slices.DeleteFunc(s.byAgent[res.agent.ID], func(r *result) bool { return r == res })
	if len(list) == 0 {
		delete(s.byAgent, res.agent.ID)
	} else {
		s.byAgent[res.agent.ID] = list
	}
}

// keptFor finds the undelivered answer to the same questions from the same
// agent (SPEC §10), or nil.
func (s *state) keptFor(req socketproto.Request) *result {
	if req.Agent == nil || req.Agent.ID == "" {
		return nil
	}
	list := s.byAgent[req.Agent.ID]
	for _, res := range list {
		if !res.delivered && s.results[res.id] == res && reflect.DeepEqual(res.questions, req.Questions) {
			return res
		}
	}
	return nil
}

// answerFromKept answers request id at once with a kept answer: queued, then
// the response under the new id with the answers given earlier. The kept
// answer is then delivered and not handed out again; the new request is
// resolved and kept like any other, so "wait" on its id works too.
func (s *state) answerFromKept(c *conn, id string, m socketproto.AskUserRequest, old *result) {
	s.markDelivered(old)
	s.forgetKept(old)
	resp := *old.resp
	resp.RequestID = id
	s.send(c, socketproto.Queued{RequestID: id, Position: 0, PendingFile: s.opts.PendingFilePath})
	if m.Waits() {
		s.send(c, resp)
	}
	if id == old.id {
		return // the agent asked again under the same id: that request is answered
	}
	res := &result{id: id, outcome: old.outcome, via: old.via, resp: &resp,
		kept: kept{questions: m.Questions, agent: m.Agent, delivered: m.Waits(), reused: true}}
	s.retain(res)
	if s.journal != nil {
		now := s.now().UTC()
		p := socketproto.Pending{Request: m.Request, CreatedAt: now, Status: socketproto.StatusWaiting}
		p.RequestID, p.Tool = id, m.ProfileTool()
		s.journal.Append(journal.Record{Op: journal.OpAdd, ID: id, At: now, Pending: &p, Parked: !m.Waits()},
			journal.Record{Op: journal.OpResolve, ID: id, At: now, Outcome: res.outcome, Via: res.via,
				Response: res.resp, Expires: res.expires, Delivered: res.delivered})
	}
	s.log.Debug("answered a repeated request from a kept answer", "requestId", id, "keptFrom", old.id,
		"agent", m.Agent.ID)
}
