package pendingfile

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"askuser/internal/statefile"
)

// read looks at the file as it is now and takes in a user's save. An empty
// file or one that does not parse may be half-written: it is believed only
// when it is still the same after settleDelay (settled is true when that
// timer fired).
func (s *Syncer) read(settled bool) {
	if h, fi, ok := sumRegular(s.path); ok && s.knownWithoutReading(h, fi) {
		s.readKnown(h)
		return
	}
	data, fi, err := readRegular(s.path)
	if msg := unusable(s.path, err); msg != "" {
		s.block(msg)
		return
	}
	s.unblock()
	switch {
	case errors.Is(err, errTooLarge):
		s.readTooLarge(fi, settled)
		return
	case err != nil:
		s.onDisk = [32]byte{}
		s.become(s.status.settled())
		if !errors.Is(err, os.ErrNotExist) {
			s.logf("pending file: reading %s: %v", s.path, err)
		}
		return
	}
	h := sha256.Sum256(data)
	if s.id.ours(h) && len(s.unapproved) > 0 && idOf(fi) != s.ourFile {
		// The daemon's text saved again by the user, byte for byte (by
		// rename or in place: the file is not the one the daemon wrote):
		// after a refused Allow, that is the save the refusal asks for
		// (the answer as the draft, "approvesDigest" as written). Any
		// other time it changes nothing, and it is not looked at.
		s.ourFile = idOf(fi)
		if f, perr := Parse(data); perr == nil {
			s.onDisk = h
			s.become(s.status.settled())
			s.takeIn(f, h, data)
			s.wantWrite = true
			return
		}
	}
	if s.id.ours(h) || h == s.lastSeen || s.id.wasTaken(h) {
		s.readKnown(h)
		return
	}
	s.onDisk = h
	f, perr := Parse(data)
	if perr == nil {
		s.become(s.status.settled())
		s.takeIn(f, h, data)
		// A save from a stale buffer lacks requests asked since, and one
		// that changed nothing makes no rewrite of its own: rewrite anyway,
		// so the file lists every pending request again.
		s.wantWrite = true
		return
	}
	if !s.settled(h, fi, settled) {
		return
	}
	s.become(s.status.settled())
	s.lastSeen, s.lastSeenOK = h, false
	if errors.Is(perr, ErrEmpty) {
		return // nothing of the user's to keep; the next rewrite fills it
	}
	s.reject(data, perr)
}

// knownWithoutReading reports whether a file whose bytes hash to h needs
// no reading: the daemon's own text (unless saved again by the user after a
// refused Allow), or a save seen or taken in before.
func (s *Syncer) knownWithoutReading(h [32]byte, fi os.FileInfo) bool {
	if s.id.ours(h) {
		return len(s.unapproved) == 0 || idOf(fi) == s.ourFile
	}
	return h == s.lastSeen || s.id.wasTaken(h)
}

// readKnown is read of a file knownWithoutReading: h is on disk.
func (s *Syncer) readKnown(h [32]byte) {
	s.unblock()
	before := s.onDisk
	s.onDisk = h
	s.become(s.status.settled())
	if s.id.ours(h) {
		// The daemon's text put back over something else (an editor's
		// undo to the buffer it loaded) is a save that parses: a problem
		// with the one before is over. The daemon's own rewrite, already
		// onDisk, is no save and ends nothing: what it said of the save it
		// kept as .rejected still holds.
		if h != before {
			s.fileFine()
		}
		return
	}
	// The same save again (an editor re-saving its buffer over a
	// rewrite, or undoing to it): nothing to take in, but the file
	// must list what is pending again, and if that save parsed, a
	// problem with a later one is over.
	if s.lastSeenOK || s.id.wasTaken(h) {
		s.fileFine()
	}
	s.wantWrite = s.wantWrite || s.lastSeenOK
}

// settled reports whether a file that is empty or does not parse (h) may be
// believed: it has stayed the same for settleDelay and nobody has written
// it for quietPeriod. Until then the file is settling, which holds rewrites
// back, and a timer looks again.
func (s *Syncer) settled(h [32]byte, fi os.FileInfo, timerFired bool) bool {
	if !s.status.settling() || h != s.settleHash {
		// New bytes: their settle time starts now. The same bytes seen
		// again (a chmod, a second event of one save) keep the timer.
		s.become(s.status.settle())
		s.settleHash = h
		s.armSettle(settleDelay)
		return false
	}
	if !timerFired {
		return false
	}
	if quiet := time.Since(fi.ModTime()); quiet < s.quiet {
		s.armSettle(s.quiet - quiet)
		return false
	}
	return true
}

// readTooLarge handles a file too large to read: the daemon's own (it
// writes one for hundreds of big requests) is left alone; a user's is kept
// as .rejected, once settled, and reported like a parse error, before the
// rewrite replaces it.
func (s *Syncer) readTooLarge(fi os.FileInfo, settled bool) {
	id := idOf(fi)
	if s.id.oursBig(id) {
		s.become(s.status.settled())
		return
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%d/%d/%d", id.ino, id.size, id.mtime.UnixNano()))
	s.onDisk = h
	if h == s.lastSeen {
		s.become(s.status.settled())
		return
	}
	if !s.settled(h, fi, settled) {
		return
	}
	s.become(s.status.settled())
	s.lastSeen, s.lastSeenOK = h, false
	msg := fmt.Sprintf("the pending file is %d MiB, more than the %d MiB the daemon reads", fi.Size()>>20, maxFileBytes>>20)
	kept := s.RejectedPath()
	if err := copyAside(s.path, kept); err != nil {
		s.logf("pending file: %s; keeping a copy as %s failed: %v", msg, kept, err)
		s.fileProblem(msg)
		return
	}
	s.fileProblem(fmt.Sprintf("%s (your version is kept as %s)", msg, kept))
	s.wantWrite = true
}

// unusable says, as a report, why the file at path is to be left alone, or
// "" when err is no such reason. Something that is not a regular file is
// not the user's save; a file the daemon may not read (saved by another
// user, chmod 000) may be, and can neither be taken in nor rewritten over
// without losing it. A directory the daemon may not search is not among
// them: the rewrite fails on it and is retried until it can.
func unusable(path string, err error) string {
	var notRegular *statefile.NotRegularError
	if errors.As(err, &notRegular) {
		return "the pending file " + notRegular.Error() +
			"; it is left alone and questions are not written there until it is removed"
	}
	if !errors.Is(err, fs.ErrPermission) {
		return ""
	}
	if _, lerr := os.Lstat(path); lerr != nil {
		return ""
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Sprintf("the pending file %s cannot be read: %v; it is left alone and questions are not written there until it can be read or is removed", path, err)
}

// block notes that the path holds something the daemon cannot use
// (unusable), which is reported once and left alone.
func (s *Syncer) block(msg string) {
	s.become(s.status.block())
	if msg != s.blockedMsg {
		s.blockedMsg = msg
		s.report(msg)
	}
}

func (s *Syncer) unblock() {
	if s.status.blocked() {
		s.blockedMsg = ""
		s.logf("pending file: %s is usable again", s.path)
		s.wantWrite = true
		s.become(s.status.unblock())
	}
}

// fileProblem reports a problem with the file itself, to subscribers and
// in the file's own "problems".
func (s *Syncer) fileProblem(msg string) {
	s.become(s.status.problem())
	s.report(msg)
	s.showProblems([]problem{{text: msg, told: true}})
}

// fileFine says a reported problem with the file is over: a save parsed.
func (s *Syncer) fileFine() {
	s.become(s.status.parsed())
}

// become moves the Syncer to status next. Leaving a status that was
// reported for one that is not sends the cleared form of the report
// (docs/contract.md §4: recovery is announced as well as failure), so no transition
// can end a problem without saying so.
func (s *Syncer) become(next fileStatus) {
	was := s.status
	s.status = next
	if was.reported() && !next.reported() {
		s.report("")
	}
}

func (s *Syncer) armSettle(d time.Duration) {
	if s.settle != nil {
		s.settle.Stop()
	}
	s.settle = time.NewTimer(d)
}

// reject keeps a save that does not parse beside the file, before anything
// can overwrite it, and tells the user where the problem is.
func (s *Syncer) reject(data []byte, perr error) {
	kept := s.RejectedPath()
	if err := writeAtomic(kept, data); err != nil && !errors.Is(err, errNotSynced) {
		s.logf("pending file: %s does not parse, and keeping a copy as %s failed: %v", s.path, kept, err)
		s.fileProblem(perr.Error())
		return
	}
	s.logf("pending file: %s does not parse; the user's version is kept as %s", s.path, kept)
	// The next rewrite replaces what the user typed: say where it went.
	s.fileProblem(fmt.Sprintf("%v (your version is kept as %s)", perr, kept))
}

// maxReports is how many problems of one save reach subscribers one by one.
// A stale buffer can hold thousands of requests answered since: a
// pending_file_error for each would swamp every pane's backlog.
const maxReports = 5

// takeIn takes in a save (data, whose hash is h) that parsed: merged
// against the revision it was edited from, and recorded as taken in within
// the same step of the queue. A save with problems is also kept as
// .rejected: an answer to a question whose text was edited, say, is typed
// text the rewrite would otherwise throw away.
func (s *Syncer) takeIn(f *File, h [32]byte, data []byte) {
	s.lastSeen, s.lastSeenOK = h, true
	s.fileFine()
	base := s.id.baseOf(f.Revision)
	if base == nil && f.Revision != 0 {
		s.logf("pending file: a save edited from revision %d, which the daemon no longer knows: merged against the newest state, where only answers the daemon never wrote into the file count as edits", f.Revision)
	}
	acts, _ := s.q.Apply(Save{File: f, Base: base, Wrote: s.id.wroteAnswer, Taken: func() { s.id.take(h) }, Unapproved: s.unapproved})
	s.noteUnapproved(f, acts)
	for _, a := range acts {
		switch a.Kind {
		case Resolve:
			s.logf("pending file: request %s answered", a.RequestID)
		case Cancel:
			s.logf("pending file: request %s cancelled by the user", a.RequestID)
		}
	}
	all := saveProblems(acts)
	var problems []problem
	for i, p := range all {
		if i >= maxReports {
			s.logf("pending file: %s", p.text)
			continue
		}
		s.report(p.text)
		p.told = true
		problems = append(problems, p)
	}
	if more := len(all) - maxReports; more > 0 {
		msg := fmt.Sprintf("%d more problems in this save were ignored; the daemon log lists each", more)
		s.report(msg)
		problems = append(problems, problem{text: msg, about: aboutAll(all[maxReports:]), told: true})
	}
	if len(problems) > 0 {
		kept := s.RejectedPath()
		if err := writeAtomic(kept, data); err != nil && !errors.Is(err, errNotSynced) {
			s.logf("pending file: keeping a save with problems as %s failed: %v", kept, err)
		} else {
			problems = append(problems, problem{text: "your version of the file is kept as " + kept, about: aboutAll(all)})
		}
	}
	s.showProblems(problems)
}

// noteUnapproved keeps, for the next save, the answers this one gave that
// were refused only for their "approvesDigest"; what this save said of a
// request replaces what an earlier one did.
func (s *Syncer) noteUnapproved(f *File, acts []Action) {
	for _, r := range f.Requests {
		delete(s.unapproved, r.RequestID)
	}
	for _, a := range acts {
		if a.Kind == Report && a.Unapproved {
			if s.unapproved == nil {
				s.unapproved = map[string][]json.RawMessage{}
			}
			s.unapproved[a.RequestID] = a.Draft
		}
	}
}

// rescue looks at the file the rewrite swapped out. It is normally what the
// read just before saw (seen is its hash); anything else is a save that
// landed between that read and the swap. One that parses is taken in like
// any other. One that is empty or broken may still be being written by a
// program that holds it open: it is swapped back into place, so that what
// it writes lands in the file, and settles like any other save.
func (s *Syncer) rescue(prev string, seen [32]byte) {
	known := func(h [32]byte) bool { return h == seen || h == s.lastSeen || s.id.ours(h) || s.id.wasTaken(h) }
	// Nearly always the daemon's own previous write: its hash says so.
	if h, _, ok := sumRegular(prev); ok && known(h) {
		os.Remove(prev)
		return
	}
	data, _, err := readRegular(prev)
	switch {
	case unusable(prev, err) != "":
		// Something planted at the path in that instant, or a save the
		// daemon may not read. It is put back and left alone (the next
		// read reports it); the daemon's file, swapped back to prev, goes.
		if _, xerr := exchange(prev, s.path); xerr != nil {
			s.logf("pending file: %s landed at %s during a rewrite and could not be put back: %v", landed(err), s.path, xerr)
			return
		}
		os.Remove(prev)
		return
	case errors.Is(err, errTooLarge):
		msg := fmt.Sprintf("a save of more than %d MiB landed during a rewrite", maxFileBytes>>20)
		if rerr := os.Rename(prev, s.RejectedPath()); rerr != nil {
			os.Remove(prev)
			s.fileProblem(fmt.Sprintf("%s; keeping it as %s failed: %v", msg, s.RejectedPath(), rerr))
			return
		}
		s.fileProblem(fmt.Sprintf("%s (your version is kept as %s)", msg, s.RejectedPath()))
		return
	case err != nil:
		os.Remove(prev)
		return
	}
	h := sha256.Sum256(data)
	if known(h) {
		os.Remove(prev)
		return
	}
	f, perr := Parse(data)
	if perr == nil {
		os.Remove(prev)
		s.logf("pending file: a save landed during a rewrite; taking it in")
		s.takeIn(f, h, data)
		s.wantWrite = true
		return
	}
	if _, err := exchange(prev, s.path); err != nil {
		s.logf("pending file: a save landed during a rewrite and could not be put back (%v); keeping it as %s", err, s.RejectedPath())
		_ = os.Rename(prev, s.RejectedPath())
		return
	}
	os.Remove(prev) // now the daemon's own text
	s.id.written, s.onDisk = [32]byte{}, h
	s.become(s.status.settle())
	s.settleHash = h
	s.armSettle(settleDelay)
	s.wantWrite = true
	s.logf("pending file: a save was under way during a rewrite; put it back and waiting for it to finish")
}

// landed names, for the log, what unusable refused.
func landed(err error) string {
	var notRegular *statefile.NotRegularError
	if errors.As(err, &notRegular) {
		return statefile.Kind(notRegular.Mode)
	}
	return "a file the daemon may not read"
}
