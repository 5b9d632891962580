package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"askuser/daemon/config"
	"askuser/daemon/journal"
	"askuser/socketproto"
)

// The state journal (SPEC §10) is not a follower but the gate every change
// passes first (record, in transitions.go): written before the change is
// made, so that an acknowledgement always follows its record. On start the
// journal's state comes back through the same transitions, before the
// socket accepts anyone and before any follower listens: pending requests as
// orphaned (parked ones as parked), results kept until their retention ends.
// Compaction takes its snapshot from the queue.

// journaled is the queue's side of the journal.
type journaled struct {
	// journal is nil while the state is restored from it.
	journal *journal.Journal
	// unavailable: the last write failed; panes have been told.
	unavailable bool
	// byAgent indexes kept answered results that no connection has received
	// yet, by agent id, for "same agent, same questions".
	byAgent map[string][]*result
}

func startJournal(ctx context.Context, d *server) error {
	dir := d.opts.Config.StateDir()
	dc := d.opts.Config.Daemon
	opts := journal.Options{
		Dir:            dir,
		Logf:           func(format string, args ...any) { d.log.Warn(fmt.Sprintf(format, args...)) },
		SyncAlways:     dc.Sync == config.SyncAlways,
		SyncInterval:   dc.SyncInterval.Duration,
		MaxRecordBytes: 4*d.limits.MaxMessageBytes + 64<<10,
		// Called by the journal only from inside the queue goroutine.
		Snapshot: func() []journal.Record { return d.q.st.snapshotRecords() },
	}
	j, st := journal.Open(opts)
	if !d.q.do(func(s *state) {
		s.restore(st)
		s.journal = j
		if err := j.Compact(); err != nil {
			s.journalFailed(err)
		}
	}) {
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

// record writes rec (and its history line) to the journal before a change
// is made. During restore there is no journal: the records are already there.
func (s *state) record(rec journal.Record, history ...journal.HistoryEntry) error {
	if s.journal == nil {
		return nil
	}
	if err := s.journal.Write([]journal.Record{rec}, history...); err != nil {
		s.journalFailed(err)
		return err
	}
	if s.unavailable {
		s.unavailable = false
		s.log.Info("state journal: writing again")
	}
	return nil
}

// journalFailed logs a failed write and tells every pane, once until the
// journal works again.
func (s *state) journalFailed(err error) {
	if s.unavailable {
		return
	}
	s.unavailable = true
	msg := fmt.Sprintf("%v; nothing new is accepted until it can be written", err)
	s.log.Error("state journal: " + msg)
	s.broadcast(socketproto.PendingFileError{Path: s.opts.Config.StateDir(), Error: msg})
}

// stateUnavailable is the error a client gets for a change the journal
// could not take.
func stateUnavailable(id string, err error) *socketproto.Error {
	msg := err.Error()
	if !errors.Is(err, journal.ErrUnavailable) {
		msg = journal.ErrUnavailable.Error() + ": " + msg
	}
	return &socketproto.Error{RequestID: id, Code: socketproto.CodeStateUnavailable,
		Message: msg + "; nothing was accepted"}
}

// restore takes back what the journal kept, through the same transitions as
// everything else; it runs before anyone connects and before any follower
// but the (still empty) subscribers listens.
func (s *state) restore(st journal.State) {
	for _, jr := range st.Pending {
		r := &request{p: jr.Pending, parked: jr.Parked}
		if len(r.p.Draft) != len(r.p.Questions) {
			d := make([]json.RawMessage, len(r.p.Questions))
			copy(d, r.p.Draft)
			r.p.Draft = d
		}
		// Its agent lost the connection with the old daemon: a parked one
		// stays parked; any other has orphan_grace from now to come back
		// with "wait".
		r.p.Status = socketproto.StatusParked
		if !r.parked {
			r.p.Status = socketproto.StatusOrphaned
		}
		if err := s.add(r); err != nil {
			continue // cannot happen: nothing is written during restore
		}
		if !r.parked {
			s.startOrphanClock(r, s.opts.Config.Daemon.OrphanGrace.Duration)
		}
	}
	for _, jres := range st.Results {
		s.retain(&result{id: jres.ID, outcome: jres.Outcome, via: jres.Via, resp: jres.Response,
			expires: jres.Expires, delivered: jres.Delivered, asked: jres.Asked})
	}
	// Expiry assumes oldest first; a changed result_retention may reorder.
	slices.SortStableFunc(s.expiries, func(a, b *result) int { return a.expires.Compare(b.expires) })
	if s.expiryTimer != nil {
		s.expiryTimer.Stop()
		s.expiryTimer = nil
	}
	s.armExpiry()
}

// snapshotRecords is the live state as journal records: what compaction
// writes.
func (s *state) snapshotRecords() []journal.Record {
	now := s.now().UTC()
	recs := make([]journal.Record, 0, len(s.pending)+len(s.results))
	for e := s.order.Front(); e != nil; e = e.Next() {
		r := e.Value.(*request)
		p := r.p
		recs = append(recs, journal.Record{Op: journal.OpAdd, ID: p.RequestID, At: now, Pending: &p, Parked: r.parked})
	}
	for _, res := range s.expiries {
		if s.results[res.id] != res {
			continue
		}
		asked := res.asked
		recs = append(recs, journal.Record{Op: journal.OpResult, ID: res.id, At: now, Pending: &asked,
			Outcome: res.outcome, Via: res.via, Response: res.resp, Expires: res.expires, Delivered: res.delivered})
	}
	return recs
}

// indexKept makes an answered result nobody has received yet findable by
// its agent's id.
func (s *state) indexKept(res *result) {
	a := res.asked.Agent
	if res.outcome != socketproto.OutcomeAnswered || res.resp == nil || res.delivered || a == nil || a.ID == "" {
		return
	}
	if s.byAgent == nil {
		s.byAgent = map[string][]*result{}
	}
	s.byAgent[a.ID] = append(s.byAgent[a.ID], res)
}

// forgetKept drops a result from the index (delivered or expired).
func (s *state) forgetKept(res *result) {
	a := res.asked.Agent
	if a == nil || s.byAgent[a.ID] == nil {
		return
	}
	list := slices.DeleteFunc(s.byAgent[a.ID], func(r *result) bool { return r == res })
	if len(list) == 0 {
		delete(s.byAgent, a.ID)
	} else {
		s.byAgent[a.ID] = list
	}
}

// keptFor finds the undelivered answer to the same questions from the same
// agent (SPEC §10), or nil.
func (s *state) keptFor(req socketproto.Request) *result {
	if req.Agent == nil || req.Agent.ID == "" {
		return nil
	}
	for _, res := range s.byAgent[req.Agent.ID] {
		// Only undelivered results are indexed; one replaced under the same
		// id (an old journal's pending request and result) is not this one.
		if s.results[res.id] == res && reflect.DeepEqual(res.asked.Questions, req.Questions) {
			return res
		}
	}
	return nil
}

// answerFromKept answers a repeated request at once with a kept answer. The
// new request is journaled and resolved with the answers given earlier, so
// "wait" on its id works and history has it; followers hear only that it was
// resolved (enqueue). The kept answer is then delivered, and neither it nor
// the new request's copy of it is handed out again.
func (s *state) answerFromKept(c *conn, r *request, old *result) {
	if err := s.enqueue(r); err != nil {
		s.sendErr(c, r.p.RequestID, stateUnavailable(r.p.RequestID, err))
		return
	}
	s.send(c, socketproto.Queued{RequestID: r.p.RequestID, Position: 0, PendingFile: s.opts.PendingFilePath})
	resp := *old.resp
	resp.RequestID = r.p.RequestID
	if err := s.resolve(r, old.outcome, old.via, &resp, nil); err != nil {
		// It stays pending, as asked; the user answers it again.
		s.tell(func(f follower) { f.added(r.p) })
		return
	}
	// Asked without waiting, its result is kept for "wait" but is no kept
	// answer for a third identical request.
	s.forgetKept(s.results[r.p.RequestID])
	s.markDelivered(old)
	s.log.Debug("answered a repeated request from a kept answer", "requestId", r.p.RequestID, "keptFrom", old.id,
		"agent", r.p.Agent.ID)
}
