package daemon

import (
	"context"
	"fmt"

	"askuser/daemon/pendingfile"
	"askuser/socketproto"
)

// The pending file (SPEC §5) follows the queue as a follower (anyChange):
// every change marks it dirty, and its own goroutine rewrites it and takes in
// what the user saves. Nothing here makes the queue wait for disk.

func startPendingFile(ctx context.Context, d *server) error {
	path := d.opts.PendingFilePath
	sy := pendingfile.New(pendingfile.Options{
		Path:  path,
		Queue: fileQueue{d.q},
		Report: func(msg string) {
			d.q.post(func(s *state) { s.pendingFileError(path, msg) })
		},
		Logf: func(format string, args ...any) { d.log.Info(fmt.Sprintf(format, args...)) },
	})
	if !d.q.do(func(s *state) { s.follow(anyChange(sy.Changed)) }) {
		return fmt.Errorf("pending file: the queue stopped before it started")
	}
	if err := sy.Start(); err != nil {
		// Still written on every change; only saves go unnoticed.
		d.log.Warn("pending file: cannot watch its directory; saves in an editor will not be noticed",
			"path", path, "err", err)
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		<-ctx.Done()
		sy.Close()
	}()
	return nil
}

// fileQueue is the queue as the pending file sees it.
type fileQueue struct{ q *queue }

func (f fileQueue) Snapshot() (pending []socketproto.Pending, ok bool) {
	ok = f.q.do(func(s *state) { pending = s.pendingList() })
	return pending, ok
}

// Apply merges a save against the pending set and carries out the result
// in the same step of the queue: an answer from a pane that arrives
// meanwhile either comes first (and the file's entry is reported as no longer
// waiting) or after (and gets already_resolved), never both. The save is
// recorded as taken in at the end of that step, after its journal records
// are written and before any later change can be acknowledged: a crash
// before the record takes it in again, which changes nothing (nothing came
// after it); a crash after it never does (SPEC §5: exactly once).
func (f fileQueue) Apply(sv pendingfile.Save) (acts []pendingfile.Action, ok bool) {
	ok = f.q.do(func(s *state) {
		acts = pendingfile.MergeFrom(sv.File, sv.Base, s.pendingList())
		kept := true // every change was journalled
		for _, a := range acts {
			switch a.Kind {
			case pendingfile.Resolve:
				if r, e := s.lookup(a.RequestID); e == nil {
					if err := s.answerWith(r, a.Answers, socketproto.ViaFile); err != nil {
						kept = false
						s.pendingFileError(s.opts.PendingFilePath, fmt.Sprintf("the answer to %s was not taken: %v", a.RequestID, err))
					}
				}
			case pendingfile.Cancel:
				if e := s.cancelByID(a.RequestID, socketproto.ViaFile); e != nil && e.Code == socketproto.CodeStateUnavailable {
					kept = false
					s.pendingFileError(s.opts.PendingFilePath, fmt.Sprintf("the cancel of %s was not taken: %s", a.RequestID, e.Message))
				}
			case pendingfile.SetDraft:
				if e := s.setDraftByID(a.RequestID, a.Draft); e != nil {
					kept = kept && e.Code != socketproto.CodeStateUnavailable
					s.log.Warn("pending file: keeping a draft", "requestId", a.RequestID, "err", e.Message)
				}
			}
		}
		// A change the journal refused is not taken in: a restart may try
		// the save again.
		if kept && sv.Taken != nil {
			sv.Taken()
		}
	})
	return acts, ok
}
