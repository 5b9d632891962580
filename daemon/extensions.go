package daemon

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"askuser/internal/config"
	"askuser/socketproto"
)

// Extensions are the parts of the daemon that live beside the queue and
// mirror it or act on it: the notify hook (notify.go) and the pending file
// (pendingfile_glue.go). Each starts after the state journal has restored
// the queue (journal_glue.go, which is no extension but the gate every
// change passes first) and before the socket accepts anyone, and stops when
// ctx ends (waited for through host.wg). Nothing on the ask/answer path
// waits for an extension's I/O, only for the journal's write.
//
// An extension reaches the queue only through extensionAPI, from inside the
// queue goroutine (host.queue.do or post): the compiler, not a comment,
// keeps it from touching the rest of the state.

// extensionAPI is what an extension may do to the queue. Every method runs
// in the queue goroutine and goes through the same transitions
// (transitions.go) as a client's message.
type extensionAPI interface {
	// follow registers a follower (followers.go): from now on it is told of
	// every change.
	follow(f follower)
	// followAfterSends is follow for a follower that wakes a goroutine of
	// its own: it is told once the step's replies and events are written.
	followAfterSends(f follower)
	// pendingList is every pending request, oldest first.
	pendingList() []socketproto.Pending
	// answerByID answers request id on the user's behalf. Errors:
	// not_found, already_resolved, state_unavailable.
	answerByID(id string, answers []socketproto.Answer, via socketproto.Via) *socketproto.Error
	// cancelByID declines request id on the user's behalf (the asker gets a
	// cancelled result). Errors: not_found, already_resolved,
	// state_unavailable.
	cancelByID(id string, via socketproto.Via) *socketproto.Error
	// setDraftByID records the answers given so far for request id: one
	// element per question, nil (or JSON null) where none; a shorter list is
	// padded. A request_updated event follows when the draft changed.
	setDraftByID(id string, draft []json.RawMessage) *socketproto.Error
	// pendingFileError tells every subscriber that the pending file at path
	// could not be used, or what was wrong in a save, e.g. "line 12,
	// column 3: expected ','"; an empty msg that this is over (the file can
	// be used again, a later save was taken in), so that a notice about it
	// goes. Never for the state dir's trouble, which has its own event.
	pendingFileError(path, msg string)
	// onActivity registers f to be told when the user pressed a key or
	// tapped on a surface (the activity message).
	onActivity(f func(time.Time))
	// fileError says (and, with msg "", unsays) that one of the daemon's
	// files at path cannot be used.
	fileError(path, msg string)
	// onNotifySettings registers f to be told the [notify] table when
	// config.toml changes it.
	onNotifySettings(f func(config.Notify))
	// servePush answers push_key, push_subscribe and push_unsubscribe from
	// p; contact is the Web Push contact, without which none subscribes.
	servePush(p pushService, contact func() (string, error))
}

var _ extensionAPI = (*state)(nil)

// host is what an extension is given at start.
type host struct {
	opts  Options
	log   *slog.Logger
	wg    *sync.WaitGroup // every goroutine an extension starts is counted here
	queue extensionQueue
}

// extensionQueue is the queue as an extension sees it: functions of
// extensionAPI, run in the queue goroutine.
type extensionQueue struct{ q *queue }

// do runs f in the queue goroutine and waits for it; false if the queue stopped.
func (e extensionQueue) do(f func(extensionAPI)) bool {
	return e.q.do(func(s *state) { f(s) })
}

// post hands f to the queue goroutine without waiting; false once the queue
// has stopped.
func (e extensionQueue) post(f func(extensionAPI)) bool {
	return e.q.post(func(s *state) { f(s) })
}

// extension starts a part of the daemon beside the queue.
type extension func(ctx context.Context, h host) error

// extensions start in this order, after the journal restored the pending
// requests (so a restart does not ring the notify hook again). The pending
// file's first read takes in answers typed while no daemon ran, which must
// find those requests there.
var extensions = []extension{startNotifier, startPendingFile}

// startExtensions starts every extension; the first error stops the start.
func (d *server) startExtensions(ctx context.Context) error {
	h := host{opts: d.opts, log: d.log, wg: &d.wg, queue: extensionQueue{d.q}}
	for _, ext := range extensions {
		if err := ext(ctx, h); err != nil {
			return err
		}
	}
	return nil
}

func (s *state) answerByID(id string, answers []socketproto.Answer, via socketproto.Via) *socketproto.Error {
	r, e := s.lookup(id)
	if e != nil {
		return e
	}
	if err := s.answerWith(r, answers, via); err != nil {
		return stateUnavailable(id, err)
	}
	return nil
}

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

// fileError is pendingFileError for the daemon's other files (history,
// the push files): remembered until cleared, said to every subscriber, in
// status.
func (s *state) fileError(path, msg string) {
	if msg == "" {
		if _, said := s.otherTrouble[path]; !said {
			return
		}
		delete(s.otherTrouble, path)
		s.log.Info("file: usable again", "path", path)
	} else {
		if s.otherTrouble == nil {
			s.otherTrouble = map[string]string{}
		}
		s.otherTrouble[path] = msg
	}
	s.broadcast(socketproto.FileError{Path: path, Error: msg})
}

// pendingFileError remembers what it said of path until it is cleared, so
// that a subscriber who comes later hears it too (tellTrouble); a cleared
// form is sent only when something was said.
func (s *state) pendingFileError(path, msg string) {
	if msg == "" {
		if _, said := s.fileTrouble[path]; !said {
			return
		}
		delete(s.fileTrouble, path)
		s.log.Info("pending file: usable again", "path", path)
	} else {
		if s.fileTrouble == nil {
			s.fileTrouble = map[string]string{}
		}
		s.fileTrouble[path] = msg
		s.log.Warn("pending file", "path", path, "err", msg)
	}
	s.broadcast(socketproto.PendingFileError{Path: path, Error: msg})
}
