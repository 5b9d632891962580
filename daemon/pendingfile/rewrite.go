package pendingfile

import (
	"crypto/sha256"
	"errors"
	"time"
)

// maybeWrite rewrites the file when a change is waiting, unless a save is
// still settling or the last rewrite was too recent.
func (s *Syncer) maybeWrite() {
	if !s.wantWrite || s.status.settling() || s.status.blocked() {
		return
	}
	if wait := time.Until(s.nextWrite); wait > 0 {
		if s.writeTimer == nil {
			s.writeTimer = time.NewTimer(wait)
		}
		s.writeDue.Store(true)
		return
	}
	s.write()
}

func (s *Syncer) write() {
	// From here on a change wakes the loop again: the queue is read below,
	// after this, so a change is either in this rewrite or signalled.
	s.writeDue.Store(false)
	// A save whose events are still on their way would be replaced by the
	// rewrite below: look at the file first and take it in.
	s.read(false)
	if s.status.settling() || s.status.blocked() {
		return // written once the save has settled, or the path is usable
	}
	s.wantWrite = false
	pending, ok := s.q.Snapshot()
	if !ok {
		return // the daemon is stopping; its state dir keeps the requests
	}
	s.dropResolved(pending)
	// The same requests and drafts as the file on disk, in the revision it
	// has: nothing to write.
	texts := s.render.texts(pending)
	if s.render.sum(s.id.rev, texts) == s.onDisk {
		s.id.written = s.onDisk
		return
	}
	rev := s.id.nextRevision()
	out := s.render.build(rev, texts)
	h := sha256.Sum256(out)
	before := s.onDisk
	start := time.Now()
	s.id.writing(rev, h, s.onDisk, pending)
	written, prev, err := swapIn(s.path, out)
	switch {
	case errors.Is(err, errNotSynced):
		// In place: count it as written, or the next read would take the
		// daemon's own text for a user's save.
		if msg := err.Error(); msg != s.lastErr {
			s.lastErr = msg
			s.logf("pending file: %s %v", s.path, err)
		}
	case err != nil:
		if msg := err.Error(); msg != s.lastErr {
			s.lastErr = msg
			s.logf("pending file: writing %s: %v (retrying)", s.path, err)
		}
		s.wantWrite = true
		s.nextWrite = time.Now().Add(retryAfter)
		return
	case s.lastErr != "":
		s.lastErr = ""
		s.logf("pending file: %s written again", s.path)
	}
	var big fileID
	if len(out) > maxFileBytes {
		big = written
	}
	s.id.wrote(h, big)
	// The identity of the file written, not of what is at the path now: a
	// save that replaced it since is the user's, and must not pass for the
	// daemon's own.
	s.ourFile = written
	s.onDisk = h
	s.rewrites.Add(1)
	s.nextWrite = time.Now().Add(min(max(2*time.Since(start), minGap), maxGap))
	if prev != "" {
		s.rescue(prev, before)
	}
	if s.watch != nil && (!s.watch.onTarget() || s.watch.replaced()) {
		s.rewatch()
	}
}
