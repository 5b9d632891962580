package daemon

import (
	"context"
	"encoding/json"

	"askuser/daemon/pendingfile"
	"askuser/socketproto"
)

// Extensions are the parts of the daemon that live beside the queue: the
// state journal (journal_glue.go), which restores the queue at start and is
// then written before every change; the notify hook (notify.go); the pending
// file (pendingfile_glue.go). Each starts before the socket accepts anyone
// and stops when ctx ends (waited for through d.wg). An extension that
// mirrors the queue registers a follower (followers.go) from inside the
// queue goroutine:
//
//	d.q.do(func(s *state) { s.follow(anyChange(kick)) })
//
// and may act on the queue with d.q.do(f), where f runs in the queue
// goroutine and may use s.pendingList, s.lookup, s.answerWith,
// s.cancelByID, s.setDraftByID and s.pendingFileError. Nothing on the
// ask/answer path waits for an extension's I/O, only for the journal's write.

// extension starts a part of the daemon beside the queue.
type extension func(ctx context.Context, d *server) error

// extensions start in this order. The journal comes first: it restores the
// pending requests before anyone follows (a restart does not ring the notify
// hook again), and the pending file's first read takes in answers typed
// while no daemon ran, which must find those requests there.
var extensions = []extension{startJournal, startNotifier, startPendingFile}

// cancelByID declines request id on the user's behalf (the asker gets a
// cancelled result). Errors: not_found, already_resolved, state_unavailable.
func (s *state) cancelByID(id string, via socketproto.Via) *socketproto.Error {
	r, e := s.lookup(id)
	if e != nil {
		return e
	}
	if err := s.cancelAsUser(r, via); err != nil {
		return stateUnavailable(id, err)
	}
	return nil
}

// setDraftByID records the answers given so far for request id: one element
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
	return s.changeDraft(r, draft)
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

// pendingFileError tells every subscriber that the pending file at path
// could not be used, e.g. "line 12, column 3: expected ','"; an empty msg
// that it can be again, so that a notice about it goes.
func (s *state) pendingFileError(path, msg string) {
	if msg == "" {
		s.log.Info("pending file: usable again", "path", path)
	} else {
		s.log.Warn("pending file", "path", path, "err", msg)
	}
	s.broadcast(socketproto.PendingFileError{Path: path, Error: msg})
}

// answerWith resolves r as answered.
func (s *state) answerWith(r *request, answers []socketproto.Answer, via socketproto.Via) error {
	resp := socketproto.BuildResponse(r.p.RequestID, r.p.Questions, answers, via, s.now().UTC())
	return s.resolve(r, socketproto.OutcomeAnswered, via, &resp, nil)
}

// cancelAsUser resolves r as declined by the user.
func (s *state) cancelAsUser(r *request, via socketproto.Via) error {
	resp := socketproto.CancelledResponse(r.p.RequestID, s.now().UTC())
	resp.AnsweredVia = via
	return s.resolve(r, socketproto.OutcomeCancelled, via, &resp, nil)
}
