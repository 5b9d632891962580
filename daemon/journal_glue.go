package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"askuser/daemon/journal"
	"askuser/internal/config"
	"askuser/internal/history"
	"askuser/socketproto"
)

// The state journal (docs/contract.md §10) is not a follower but the gate every change
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
	// dirLock is the state dir's lock, taken again before the dir is
	// written after trouble (statedir.go).
	dirLock *stateDirLock
	// trouble says why the state dir cannot take writes, "" while it can;
	// subscribers have been told (state_dir_error) and are told when it
	// ends. Every change is refused meanwhile.
	trouble string
	// retry tries the state dir again while it is in trouble: nothing else
	// may come to write (a remount read-write sends no event).
	retry *time.Timer
}

// stateRetry is how often a state dir that cannot take writes is tried again.
const stateRetry = 2 * time.Second

func (d *server) startJournal(ctx context.Context) error {
	dir := d.opts.Config.StateDir()
	dc := d.opts.Config.Daemon
	opts := journal.Options{
		Dir:  dir,
		Logf: func(format string, args ...any) { d.log.Warn(fmt.Sprintf(format, args...)) },
		// Told from the queue goroutine or before it serves: posted, so
		// that it is said in order with everything else.
		HistoryTrouble: func(path, msg string) { d.q.post(func(s *state) { s.fileError(path, msg) }) },
		SyncAlways:     dc.Sync == config.SyncAlways,
		SyncInterval:   dc.SyncInterval.Duration,
		MaxRecordBytes: 4*d.limits.MaxMessageBytes + 64<<10,
		// Called by the journal only from inside the queue goroutine.
		Snapshot: func() []journal.Record { return d.q.st.snapshotRecords() },
	}
	j, st := journal.Open(opts)
	if !d.q.do(func(s *state) {
		s.restore(st)
		s.openRules()
		s.journal = j
		s.dirLock = d.stateLock
		// Whatever replay skipped is dropped, and a dir that cannot take
		// writes is known before anyone asks.
		_ = s.recoverStateDir()
	}) {
		j.Close()
		return fmt.Errorf("state journal: the queue stopped before it started")
	}
	if n, m := len(st.Pending), len(st.Results); n+m > 0 {
		d.log.Info("state journal: restored", "pending", n, "results", m)
	}
	d.wg.Add(2)
	go d.watchStateDir(ctx, dir)
	go func() {
		defer d.wg.Done()
		<-ctx.Done()
		<-d.q.done // the queue's last records are in; its goroutine is gone
		if t := d.q.st.retry; t != nil {
			t.Stop()
		}
		j.Close()
	}()
	return nil
}

// record writes rec (and its history line) to the journal before a change
// is made. During restore there is no journal: the records are already there.
// While the state dir is in trouble, each change first tries to end it.
func (s *state) record(rec journal.Record, history ...history.Entry) error {
	if s.journal == nil {
		return nil
	}
	if s.trouble != "" {
		if err := s.recoverStateDir(); err != nil {
			return err
		}
	}
	if err := s.journal.Write([]journal.Record{rec}, history...); err != nil {
		s.stateDirFailed(err)
		return err
	}
	return nil
}

// recoverStateDir writes the whole live state to the state dir: the lock
// first (the dir or its lock may have been deleted, or never been
// writable), then a compacted journal. It ends a trouble, or says why not.
func (s *state) recoverStateDir() error {
	if err := s.dirLock.ensure(); err != nil {
		err = fmt.Errorf("%w: %v", journal.ErrUnavailable, err)
		s.stateDirFailed(err)
		return err
	}
	if err := s.journal.Compact(); err != nil {
		s.stateDirFailed(err)
		return err
	}
	if s.trouble != "" {
		s.trouble = ""
		if s.retry != nil {
			s.retry.Stop()
			s.retry = nil
		}
		dir := s.opts.Config.StateDir()
		s.log.Info("state dir: writing again; changes are accepted", "path", dir)
		s.broadcast(socketproto.StateDirError{Path: dir, Error: ""})
	}
	return nil
}

// checkStateDir is the watch's (statedir.go): the journal or the lock gone
// (the dir deleted) is written back at once, with everything pending; a dir
// in trouble is tried again.
func (s *state) checkStateDir() {
	if s.journal == nil {
		return
	}
	if s.trouble == "" {
		if !s.journal.Missing() && s.dirLock.intact() {
			return
		}
		s.log.Warn("state dir: its journal or lock was deleted; writing them back with everything pending",
			"path", s.opts.Config.StateDir(), "pending", len(s.pending), "results", len(s.results))
	}
	_ = s.recoverStateDir()
}

// stateDirFailed logs why the state dir did not take a write and tells
// every subscriber, once for each new reason; it is tried again every
// stateRetry until it takes one.
func (s *state) stateDirFailed(err error) {
	if s.retry == nil {
		s.retry = time.AfterFunc(stateRetry, func() {
			s.post(func(s *state) {
				s.retry = nil
				if s.trouble != "" {
					_ = s.recoverStateDir()
				}
			})
		})
	}
	msg := strings.TrimPrefix(err.Error(), journal.ErrUnavailable.Error()+": ") +
		"; nothing new is accepted until it can be written"
	if msg == s.trouble {
		return
	}
	s.trouble = msg
	dir := s.opts.Config.StateDir()
	s.log.Error("state dir: it cannot take writes", "path", dir, "err", msg)
	s.broadcast(socketproto.StateDirError{Path: dir, Error: msg})
}

// tellTrouble sends a new subscriber, after its snapshot, the trouble that
// lasts: it missed the event when it began.
func (s *state) tellTrouble(c *conn) {
	if s.trouble != "" {
		s.send(c, socketproto.StateDirError{Path: s.opts.Config.StateDir(), Error: s.trouble})
	}
	for _, path := range slices.Sorted(maps.Keys(s.fileTrouble)) {
		s.send(c, socketproto.PendingFileError{Path: path, Error: s.fileTrouble[path]})
	}
	for _, path := range slices.Sorted(maps.Keys(s.otherTrouble)) {
		s.send(c, socketproto.FileError{Path: path, Error: s.otherTrouble[path]})
	}
	if s.configs.trouble != "" || len(s.configs.restart) > 0 {
		s.send(c, s.configChanged())
	}
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
		r := &request{p: jr.Pending, parked: jr.Parked, proposal: restoredProposal(jr)}
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
			expires: jres.Expires, delivered: jres.Delivered, asked: jres.Asked, settled: jres.Settled})
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
		recs = append(recs, journal.Record{Op: journal.OpAdd, ID: p.RequestID, At: now, Pending: &p, Parked: r.parked, Remember: r.proposal.offered()})
	}
	for _, res := range s.expiries {
		if s.results[res.id] != res {
			continue
		}
		asked := res.asked
		recs = append(recs, journal.Record{Op: journal.OpResult, ID: res.id, At: now, Pending: &asked,
			Outcome: res.outcome, Via: res.via, Response: res.resp, Expires: res.expires, Delivered: res.delivered,
			Settled: res.settled})
	}
	return recs
}
