package pendingfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"askuser/daemon/internal/statefile"
	"askuser/socketproto"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"
)

// Queue is what the pending file needs from the daemon's queue. Both methods
// run inside the queue (one step each) and return when done; the Syncer
// calls them only from its own goroutine. ok is false once the queue has
// stopped: nothing was read or changed.
type Queue interface {
	// Snapshot returns the pending requests, oldest first, with their drafts.
	Snapshot() (pending []socketproto.Pending, ok bool)
	// Apply merges a saved file into the pending set (see Merge) and carries
	// out the actions in the same step, so that nothing can resolve in
	// between; it returns the actions it carried out.
	Apply(f *File) (acts []Action, ok bool)
}

// Options configure a Syncer.
type Options struct {
	Path  string
	Queue Queue
	// Report receives each problem with a saved file, as the sentence a
	// pending_file_error carries ("line 12, column 3: …"), to show the user
	// and to log; the Syncer does not log it again. After a problem with the
	// file itself (it did not parse, was too large, or was not a regular
	// file), "" says it is over: a save parsed again. It may be nil.
	Report func(msg string)
	// Logf writes a line to the daemon's log. It may be nil.
	Logf func(format string, args ...any)
}

const (
	// settleDelay is how long a file that is empty or does not parse gets to
	// finish being written before it is believed: editors that truncate and
	// then write are caught in between now and then.
	settleDelay = 40 * time.Millisecond
	// minGap and maxGap bound the pause between two rewrites. Under a burst
	// of changes the pause grows with the cost of a write, so 10,000 new
	// requests make a handful of rewrites rather than 10,000, while the file
	// still catches up within 100 ms of the last change.
	minGap = 20 * time.Millisecond
	maxGap = 60 * time.Millisecond
	// maxFileBytes bounds what is read back: 10,000 pending requests make
	// a few MiB; a file far larger is not a pending file someone edited.
	maxFileBytes = 64 << 20
	// retryAfter is how long to wait after a failed rewrite (disk full,
	// directory not writable) before trying again.
	retryAfter = time.Second
	// quietPeriod is how long an empty or broken file must go unmodified
	// before it is believed: a script that truncates the file and writes
	// its answers a little later (slow-script > pending-questions.json) is
	// still writing, and a rewrite meanwhile would swap its file away.
	quietPeriod = time.Second
)

// Syncer keeps the pending file and the queue in step: it rewrites the file
// after the pending set changes and takes in what a user saves. All its work
// happens in one goroutine, so the file is never written while a save is
// being read.
type Syncer struct {
	path   string
	q      Queue
	report func(string)
	logf   func(string, ...any)

	dirty    chan struct{}
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
	rewrites atomic.Int64

	// Owned by the loop goroutine.
	render      renderer
	watch       *dirWatch
	wantWrite   bool
	wantRead    bool
	wantRewatch bool
	lastWritten [32]byte // the bytes of the daemon's own last write
	lastSeen    [32]byte // the last save taken in (applied or rejected)
	lastSeenOK  bool     // whether it parsed (a broken one is not rewritten over)
	onDisk      [32]byte // the file as last read; zero when missing
	settling    bool
	settleHash  [32]byte
	settle      *time.Timer
	nextWrite   time.Time
	writeTimer  *time.Timer
	lastErr     string
	// blocked: something other than a regular file stands at the path (a
	// FIFO, a directory): it is reported and left alone, never rewritten.
	blocked    bool
	blockedMsg string
	// ownBig identifies the daemon's own last write when it was too large
	// to read back.
	ownBig fileID
	quiet  time.Duration // quietPeriod; tests that drive read by hand set 0
	// inherited holds the hashes of the last files the previous daemon
	// wrote, as kept in oursPath: a file found at start that it wrote is its
	// view, perhaps older than the drafts its journal holds, and must not be
	// taken in as the user's save. Forgotten once this daemon has written.
	inherited [][32]byte
	oursPath  string
	// troubled: a problem with the file itself was reported, and no save
	// has parsed since.
	troubled bool
}

// fileID tells files apart without reading them.
type fileID struct {
	ino, size int64
	mtime     time.Time
}

func idOf(fi os.FileInfo) fileID {
	id := fileID{size: fi.Size(), mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.ino = int64(st.Ino)
	}
	return id
}

// New makes a Syncer; Start sets it going.
func New(o Options) *Syncer {
	path := filepath.Clean(o.Path)
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	s := &Syncer{
		path:   path,
		q:      o.Queue,
		report: o.Report,
		logf:   o.Logf,
		quiet:  quietPeriod,
		dirty:  make(chan struct{}, 1),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	s.oursPath = filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".ours")
	if s.report == nil {
		s.report = func(string) {}
	}
	if s.logf == nil {
		s.logf = func(string, ...any) {}
	}
	return s
}

// RejectedPath is where a save that did not parse is kept.
func (s *Syncer) RejectedPath() string { return s.path + ".rejected" }

// Rewrites counts the daemon's writes of the file so far.
func (s *Syncer) Rewrites() int64 { return s.rewrites.Load() }

// Start watches the file's directory and writes the file once. A file left
// from before (answers typed while no daemon ran) is taken in first. Without
// a watch (inotify exhausted) the file is still written; Start says why.
func (s *Syncer) Start() error {
	s.removeLeftovers()
	s.loadOurs()
	var werr error
	if w, err := newDirWatch(filepath.Dir(s.path)); err != nil {
		werr = err
	} else {
		s.watch = w
		if _, err := w.ensure(); err != nil {
			werr = err
		}
	}
	s.wantWrite = true
	go s.loop()
	return werr
}

// loadOurs reads the hashes of the files the previous daemon wrote.
func (s *Syncer) loadOurs() {
	data, _, err := readRegular(s.oursPath)
	if err != nil {
		return
	}
	for _, field := range strings.Fields(string(data)) {
		var h [32]byte
		if b, err := hex.DecodeString(field); err == nil && len(b) == len(h) {
			copy(h[:], b)
			s.inherited = append(s.inherited, h)
		}
	}
}

// noteOurs records, before a rewrite, the hashes of the file on disk (if it
// is the daemon's) and of the one about to replace it: a crash on either
// side of the swap leaves a file the next start knows as the daemon's.
func (s *Syncer) noteOurs(next [32]byte) {
	keep := [][32]byte{next}
	if cur := s.onDisk; cur != ([32]byte{}) && (cur == s.lastWritten || slices.Contains(s.inherited, cur)) {
		keep = append(keep, cur) // still what is on disk until the swap
	}
	var b strings.Builder
	for _, h := range keep {
		b.WriteString(hex.EncodeToString(h[:]))
		b.WriteByte('\n')
	}
	if fi, err := os.Lstat(s.oursPath); err == nil && !fi.Mode().IsRegular() {
		return // not ours to replace; at worst the next start reads a stale file
	}
	// Through a temporary file and a rename: a crash mid-write must leave
	// the old list, not an empty one (the rewrite comes right after an
	// acknowledged draft, exactly when a crash is tested for). Its name is
	// one removeLeftovers cleans up.
	tmp, err := writeTemp(s.path, []byte(b.String()))
	if err != nil {
		return
	}
	if err := os.Rename(tmp, s.oursPath); err != nil {
		os.Remove(tmp)
	}
}

// removeLeftovers deletes the temporary files of rewrites a crash cut short:
// copies of questions and answers that would otherwise pile up.
func (s *Syncer) removeLeftovers() {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(s.path), "."+filepath.Base(s.path)+".tmp-*"))
	for _, m := range matches {
		if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() && os.Remove(m) == nil {
			s.logf("pending file: removed %s, left by an interrupted rewrite", m)
		}
	}
}

// Changed tells the Syncer that the pending set or a draft changed. It never
// blocks and may be called on a nil Syncer: it only marks the file dirty.
func (s *Syncer) Changed() {
	if s == nil {
		return
	}
	select {
	case s.dirty <- struct{}{}:
	default:
	}
}

// Close writes the file a last time if a change is still unwritten (unless
// the Queue has already stopped), then stops.
func (s *Syncer) Close() {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.done
}

func (s *Syncer) loop() {
	defer close(s.done)
	var events <-chan fsnotify.Event
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
		}
	}
}

func timerC(t *time.Timer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C
}

// event sorts one fsnotify event. Only events on the file's own name count:
// an editor's temporary or backup file ends in a rename onto that name,
// which is a Create for it.
func (s *Syncer) event(ev fsnotify.Event) {
	switch {
	case ev.Name == s.path:
		s.wantRead = true
	case ev.Name == s.watch.watched && ev.Has(fsnotify.Remove|fsnotify.Rename):
		s.watch.lost()
		s.wantRewatch = true
	case !s.watch.onTarget() && ev.Has(fsnotify.Create):
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

// read looks at the file as it is now and takes in a user's save. An empty
// file or one that does not parse may be half-written: it is believed only
// when it is still the same after settleDelay (settled is true when that
// timer fired).
func (s *Syncer) read(settled bool) {
	data, fi, err := readRegular(s.path)
	var notRegular *statefile.NotRegularError
	if errors.As(err, &notRegular) {
		s.block("the pending file " + notRegular.Error())
		return
	}
	s.unblock()
	switch {
	case errors.Is(err, errTooLarge):
		s.readTooLarge(fi, settled)
		return
	case err != nil:
		s.onDisk = [32]byte{}
		s.settling = false
		if !errors.Is(err, os.ErrNotExist) {
			s.logf("pending file: reading %s: %v", s.path, err)
		}
		return
	}
	h := sha256.Sum256(data)
	s.onDisk = h
	if h == s.lastWritten || slices.Contains(s.inherited, h) {
		s.settling = false
		return
	}
	if h == s.lastSeen {
		s.settling = false
		// The same save again (an editor re-saving its buffer over a
		// rewrite): nothing to take in, but the file must list what is
		// pending again.
		s.wantWrite = s.wantWrite || s.lastSeenOK
		return
	}
	f, perr := Parse(data)
	if perr == nil {
		s.settling = false
		s.lastSeen, s.lastSeenOK = h, true
		s.fileFine()
		s.apply(f)
		// A save from a stale buffer lacks requests asked since, and one
		// that changed nothing makes no rewrite of its own: rewrite anyway,
		// so the file lists every pending request again.
		s.wantWrite = true
		return
	}
	if !s.settled(h, fi, settled) {
		return
	}
	s.settling = false
	s.lastSeen, s.lastSeenOK = h, false
	if errors.Is(perr, ErrEmpty) {
		return // nothing of the user's to keep; the next rewrite fills it
	}
	s.reject(data, perr)
}

// settled reports whether a file that is empty or does not parse (h) may be
// believed: it has stayed the same for settleDelay and nobody has written
// it for quietPeriod. Until then the file is settling, which holds rewrites
// back, and a timer looks again.
func (s *Syncer) settled(h [32]byte, fi os.FileInfo, timerFired bool) bool {
	if !s.settling || h != s.settleHash {
		// New bytes: their settle time starts now. The same bytes seen
		// again (a chmod, a second event of one save) keep the timer.
		s.settling = true
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
	if id == s.ownBig {
		s.settling = false
		return
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%d/%d/%d", id.ino, id.size, id.mtime.UnixNano()))
	s.onDisk = h
	if h == s.lastSeen {
		s.settling = false
		return
	}
	if !s.settled(h, fi, settled) {
		return
	}
	s.settling = false
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

// block notes that the path holds something that is not a regular file,
// which is reported once and left alone.
func (s *Syncer) block(msg string) {
	s.settling = false
	s.blocked = true
	if msg != s.blockedMsg {
		s.blockedMsg = msg
		s.fileProblem(msg + "; it is left alone and questions are not written there until it is removed")
	}
}

func (s *Syncer) unblock() {
	if s.blocked {
		s.blocked, s.blockedMsg = false, ""
		s.logf("pending file: %s is usable again", s.path)
		s.wantWrite = true
		s.fileFine()
	}
}

// fileProblem reports a problem with the file itself.
func (s *Syncer) fileProblem(msg string) {
	s.troubled = true
	s.report(msg)
}

// fileFine says a reported problem with the file is over.
func (s *Syncer) fileFine() {
	if s.troubled {
		s.troubled = false
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

func (s *Syncer) apply(f *File) {
	acts, _ := s.q.Apply(f)
	reported := 0
	for _, a := range acts {
		switch a.Kind {
		case Resolve:
			s.logf("pending file: request %s answered", a.RequestID)
		case Cancel:
			s.logf("pending file: request %s cancelled by the user", a.RequestID)
		case Report:
			reported++
			if reported <= maxReports {
				s.report(a.Error)
			} else {
				s.logf("pending file: %s", a.Error)
			}
		}
	}
	if more := reported - maxReports; more > 0 {
		s.report(fmt.Sprintf("%d more problems in this save were ignored; the daemon log lists each", more))
	}
}

// maybeWrite rewrites the file when a change is waiting, unless a save is
// still settling or the last rewrite was too recent.
func (s *Syncer) maybeWrite() {
	if !s.wantWrite || s.settling || s.blocked {
		return
	}
	if wait := time.Until(s.nextWrite); wait > 0 {
		if s.writeTimer == nil {
			s.writeTimer = time.NewTimer(wait)
		}
		return
	}
	s.write()
}

func (s *Syncer) write() {
	// A save whose events are still on their way would be replaced by the
	// rewrite below: look at the file first and take it in.
	s.read(false)
	if s.settling || s.blocked {
		return // written once the save has settled, or the path is usable
	}
	s.wantWrite = false
	pending, ok := s.q.Snapshot()
	if !ok {
		return // the daemon is stopping; its state dir keeps the requests
	}
	out := s.render.render(pending)
	h := sha256.Sum256(out)
	if h == s.onDisk {
		s.lastWritten = h
		return
	}
	before := s.onDisk
	start := time.Now()
	s.noteOurs(h)
	prev, err := swapIn(s.path, out)
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
	s.lastWritten, s.onDisk = h, h
	s.inherited = nil
	s.ownBig = fileID{}
	if len(out) > maxFileBytes {
		if fi, err := os.Lstat(s.path); err == nil {
			s.ownBig = idOf(fi)
		}
	}
	s.rewrites.Add(1)
	s.nextWrite = time.Now().Add(min(max(2*time.Since(start), minGap), maxGap))
	if prev != "" {
		s.rescue(prev, before)
	}
	if s.watch != nil && (!s.watch.onTarget() || s.watch.replaced()) {
		s.rewatch()
	}
}

// rescue looks at the file the rewrite swapped out. It is normally what the
// read just before saw (seen is its hash); anything else is a save that
// landed between that read and the swap. One that parses is taken in like
// any other. One that is empty or broken may still be being written by a
// program that holds it open: it is swapped back into place, so that what
// it writes lands in the file, and settles like any other save.
func (s *Syncer) rescue(prev string, seen [32]byte) {
	data, _, err := readRegular(prev)
	var notRegular *statefile.NotRegularError
	switch {
	case errors.As(err, &notRegular):
		// Not a save: something planted at the path in that instant. It is
		// put back and left alone (the next read reports it); the daemon's
		// file, swapped back to prev, goes.
		if _, xerr := exchange(prev, s.path); xerr != nil {
			s.logf("pending file: %s landed at %s during a rewrite and could not be put back: %v", statefile.Kind(notRegular.Mode), s.path, xerr)
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
	if h == seen || h == s.lastSeen || h == s.lastWritten {
		os.Remove(prev)
		return
	}
	f, perr := Parse(data)
	if perr == nil {
		os.Remove(prev)
		s.lastSeen, s.lastSeenOK = h, true
		s.fileFine()
		s.logf("pending file: a save landed during a rewrite; taking it in")
		s.apply(f)
		s.wantWrite = true
		return
	}
	if _, err := exchange(prev, s.path); err != nil {
		s.logf("pending file: a save landed during a rewrite and could not be put back (%v); keeping it as %s", err, s.RejectedPath())
		_ = os.Rename(prev, s.RejectedPath())
		return
	}
	os.Remove(prev) // now the daemon's own text
	s.lastWritten, s.onDisk = [32]byte{}, h
	s.settling, s.settleHash = true, h
	s.armSettle(settleDelay)
	s.wantWrite = true
	s.logf("pending file: a save was under way during a rewrite; put it back and waiting for it to finish")
}

// errTooLarge: the file is larger than maxFileBytes.
var errTooLarge = errors.New("larger than the pending file can be")

// openRegular opens path for reading if it is a regular file, without ever
// blocking on a FIFO or following a symlink (statefile.Open).
func openRegular(path string) (*os.File, os.FileInfo, error) {
	return statefile.Open(path, unix.O_RDONLY, 0)
}

// readRegular reads the pending file if it is a regular file of at most
// maxFileBytes (openRegular); a larger file is not read (errTooLarge, with
// its FileInfo).
func readRegular(path string) ([]byte, os.FileInfo, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		return nil, fi, err
	}
	defer f.Close()
	if fi.Size() > maxFileBytes {
		return nil, fi, errTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fi, err
	}
	if len(data) > maxFileBytes {
		return nil, fi, errTooLarge
	}
	return data, fi, nil
}

// copyAside copies a file too large to read into memory to kept, through a
// temporary file (copyTemp) renamed into place.
func copyAside(path, kept string) error {
	in, _, err := openRegular(path)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := copyTemp(kept, in)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, kept); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
