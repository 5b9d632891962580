package daemon

import (
	"context"
	"encoding/json"

	"askuser/daemon/pendingfile"
	"askuser/socketproto"
)

// Hooks for the parts of the daemon that mirror the queue elsewhere: the
// state journal (journal_glue.go, which also restores the queue at start and
// is handed its records directly by transitions.go) and the pending file
// (pendingfile_glue.go). Such a part is an extension, listed in extensions:
//
//	func startMirror(ctx context.Context, d *server) error {
//		kick := make(chan struct{}, 1)
//		d.q.do(func(s *state) {
//			s.onPendingChanged(func() { // (a) never blocks the queue
//				select { case kick <- struct{}{}: default: }
//			})
//		})
//		d.wg.Add(1)
//		go func() { defer d.wg.Done(); … until ctx.Done() … }()
//		return nil
//	}
//
// Extensions start before the socket accepts anyone; they stop when ctx ends
// and are waited for (d.wg) before Run returns. An error stops the daemon.
//
//   - (a) s.onPendingChanged(f): f runs in the queue goroutine after every
//     change of the pending set, of a status or of a draft. It must not block
//     nor do I/O: signal a goroutine of your own, which coalesces.
//   - (b) d.q.post(f) / d.q.do(f): run f inside the queue goroutine, where it
//     may read and change the state through the functions below, atomically
//     with respect to every client.
//   - (c) inside the queue goroutine: s.pendingList() (oldest first, drafts
//     included, safe to keep), s.lookupPending with s.answerWith,
//     s.cancelByID, s.setDraftByID, s.pendingFileError.
//
// Nothing on the ask/answer path waits for an extension: disk I/O happens in
// the extension's own goroutine.

// extension starts a part of the daemon beside the queue.
type extension func(ctx context.Context, d *server) error

// extensions start in this order. The journal comes first: it restores the
// pending requests, and the pending file's first read takes in answers typed
// while no daemon ran, which must find those requests there.
var extensions = []extension{startJournal, startPendingFile}

// onPendingChanged registers f to run after every change of the pending set.
func (s *state) onPendingChanged(f func()) { s.pendingHooks = append(s.pendingHooks, f) }

// lookupPending returns the pending request id, or the error a client would
// get: not_found or already_resolved.
func (s *state) lookupPending(id string) (*request, *socketproto.Error) { return s.lookup(id) }

// cancelByID declines request id on the user's behalf (the asker gets a
// cancelled result). Errors: not_found, already_resolved.
func (s *state) cancelByID(id, via string) *socketproto.Error {
	r, e := s.lookup(id)
	if e != nil {
		return e
	}
	s.cancelAsUser(r, via)
	return nil
}

// setDraftByID records the answers typed so far for request id: one element
// per question, nil (or JSON null) where none; a shorter list is padded. A
// request_updated event follows when the draft differs from the last one.
func (s *state) setDraftByID(id string, draft []json.RawMessage) *socketproto.Error {
	r, e := s.lookup(id)
	if e != nil {
		return e
	}
	if len(draft) > len(r.p.Questions) {
		return socketproto.Errf(socketproto.CodeInvalidAnswer, "draft",
			"%d answers for %d questions", len(draft), len(r.p.Questions))
	}
	if pendingfile.SameDraft(r.p.Draft, draft) {
		return nil
	}
	s.setDraft(r, draft)
	return nil
}

// pendingFileError tells every subscriber that the pending file at path
// could not be used, e.g. "line 12, column 3: expected ','".
func (s *state) pendingFileError(path, msg string) {
	s.log.Warn("pending file", "path", path, "err", msg)
	s.broadcast(socketproto.PendingFileError{Path: path, Error: msg})
}

// answerWith resolves r as answered.
func (s *state) answerWith(r *request, answers []socketproto.Answer, via string) {
	resp := socketproto.BuildResponse(r.p.RequestID, r.p.Questions, answers, via, s.now().UTC())
	s.resolve(r, socketproto.OutcomeAnswered, via, &resp)
}

// cancelAsUser resolves r as declined by the user.
func (s *state) cancelAsUser(r *request, via string) {
	resp := socketproto.CancelledResponse(r.p.RequestID, s.now().UTC())
	resp.AnsweredVia = via
	s.resolve(r, socketproto.OutcomeCancelled, via, &resp)
}
