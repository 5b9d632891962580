package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
}

func (d *server) startJournal(ctx context.Context) error {
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
