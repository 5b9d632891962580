package pendingfile

import (
	"path/filepath"
	"time"

	"askuser/internal/dirnotify"
)

func (s *Syncer) loop() {
	defer close(s.done)
	var events <-chan dirnotify.Event
	var errs <-chan error
	if s.watch != nil {
		defer s.watch.close()
		events, errs = s.watch.w.Events, s.watch.w.Errors
	}
	for {
		// Work first, then wait: the first pass writes the file at start.
		// A rewrite can ask for a read (its directory, made again, is
		// watched anew, and a save may have landed before the watch): that
		// read happens now, as no event will announce it.
		for {
			if s.wantRewatch {
				s.wantRewatch = false
				s.rewatch()
			}
			if s.wantRead {
				s.wantRead = false
				s.read(false)
			}
			s.maybeWrite()
			if !s.wantRewatch && !s.wantRead {
				break
			}
		}

		select {
		case <-s.stop:
			select {
			case <-s.dirty:
				s.wantWrite = true
			default:
			}
			if s.wantWrite {
				// A save still settling is left alone; the requests are in
				// the daemon's state dir and the next start rewrites the file.
				s.write()
			}
			return
		case <-s.dirty:
			s.wantWrite = true
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			s.event(ev)
			// One save is several events (create, write, chmod…): take them
			// all, then read the file once.
			for more := true; more; {
				select {
				case ev, ok := <-events:
					if !ok {
						events, more = nil, false
					} else {
						s.event(ev)
					}
				default:
					more = false
				}
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			// An overflowed event queue may have hidden a save: look.
			s.logf("pending file: watching %s: %v", filepath.Dir(s.path), err)
			s.wantRead = true
		case <-timerC(s.settle):
			s.settle = nil
			s.read(true)
		case <-timerC(s.writeTimer):
			s.writeTimer = nil
			s.writeDue.Store(false) // the rewrite may still wait (a save settling): be told again
		}
	}
}

func timerC(t *time.Timer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C
}

// event sorts one dirnotify event. Only events on the file's own name count:
// an editor's temporary or backup file ends in a rename onto that name,
// which is a Create for it.
func (s *Syncer) event(ev dirnotify.Event) {
	switch {
	case ev.Name == s.path:
		s.wantRead = true
	case ev.Name == s.watch.watched && ev.Has(dirnotify.Remove|dirnotify.Rename):
		s.watch.lost()
		s.wantRewatch = true
	case !s.watch.onTarget() && ev.Has(dirnotify.Create):
		s.wantRewatch = true
	}
}

func (s *Syncer) rewatch() {
	if s.watch == nil {
		return
	}
	gained, err := s.watch.ensure()
	if err != nil {
		s.logf("pending file: watching %s: %v", s.watch.target, err)
		return
	}
	if gained {
		s.wantRead = true
	}
}
