package daemon

import (
	"context"
	"fmt"
	"log/slog"

	"askuser/daemon/pendingfile"
	"askuser/socketproto"
)

// The pending file (docs/contract.md §5) follows the queue as a follower (anyChange):
// every change marks it dirty, and its own goroutine rewrites it and takes in
// what the user saves. Nothing here makes the queue wait for disk.

func startPendingFile(ctx context.Context, h host) error {
	path := h.opts.PendingFilePath
	sy := pendingfile.New(pendingfile.Options{
		Path:  path,
		Queue: fileQueue{q: h.queue, path: path, log: h.log},
		Report: func(msg string) {
			h.queue.post(func(q extensionAPI) { q.pendingFileError(path, msg) })
		},
		Logf: func(format string, args ...any) { h.log.Info(fmt.Sprintf(format, args...)) },
	})
	if !h.queue.do(func(q extensionAPI) { q.followAfterSends(anyChange(sy.Changed)) }) {
		return fmt.Errorf("pending file: the queue stopped before it started")
	}
	if err := sy.Start(); err != nil {
		// Still written on every change; only saves go unnoticed.
		h.log.Warn("pending file: cannot watch its directory; saves in an editor will not be noticed",
			"path", path, "err", err)
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		<-ctx.Done()
		sy.Close()
	}()
	return nil
}

// fileQueue is the queue as the pending file sees it.
type fileQueue struct {
	q    extensionQueue
	path string
	log  *slog.Logger
}

func (f fileQueue) Snapshot() (pending []socketproto.Pending, ok bool) {
	ok = f.q.do(func(q extensionAPI) { pending = q.pendingList() })
	return pending, ok
}

// Apply merges a save against the pending set and carries out the result
// in the same step of the queue: an answer from a pane that arrives
// meanwhile either comes first (and the file's entry is reported as no longer
// waiting) or after (and gets already_resolved), never both. The save is
// recorded as taken in at the end of that step, after its journal records
// are written and before any later change can be acknowledged: a crash
// before the record takes it in again, which changes nothing (nothing came
// after it); a crash after it never does (docs/contract.md §5: exactly once).
func (f fileQueue) Apply(sv pendingfile.Save) (acts []pendingfile.Action, ok bool) {
	path := f.path
	ok = f.q.do(func(q extensionAPI) {
		// A save that parses ends what was said of the one before; what
		// is wrong in this one is said after it.
		q.pendingFileError(path, "")
		acts = sv.Merge(q.pendingList())
		kept := true // every change was journalled
		for _, a := range acts {
			var e *socketproto.Error
			switch a.Kind {
			// Merged against this very list, an answer or a cancel can be
			// refused only for the state dir's trouble, which its own
			// event (state_dir_error) tells; the request stays pending.
			case pendingfile.Resolve:
				if e = q.answerByID(a.RequestID, a.Answers, socketproto.ViaFile); e != nil {
					f.log.Warn("pending file: an answer was not taken", "requestId", a.RequestID, "err", e.Message)
				}
			case pendingfile.Cancel:
				if e = q.cancelByID(a.RequestID, socketproto.ViaFile); e != nil {
					f.log.Warn("pending file: a cancel was not taken", "requestId", a.RequestID, "err", e.Message)
				}
			case pendingfile.SetDraft:
				if e = q.setDraftByID(a.RequestID, a.Draft); e != nil {
					f.log.Warn("pending file: keeping a draft", "requestId", a.RequestID, "err", e.Message)
				}
			}
			if e != nil && e.Code == socketproto.CodeStateUnavailable {
				kept = false
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
