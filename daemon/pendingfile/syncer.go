package pendingfile

import (
	"encoding/json"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"askuser/socketproto"
)

// Queue is what the pending file needs from the daemon's queue. Both methods
// run inside the queue (one step each) and return when done; the Syncer
// calls them only from its own goroutine. ok is false once the queue has
// stopped: nothing was read or changed.
type Queue interface {
	// Snapshot returns the pending requests, oldest first, with their drafts.
	Snapshot() (pending []socketproto.Pending, ok bool)
	// Apply merges a save into the pending set (Save.Merge)
	// and carries out the actions in the same step, so that nothing can
	// resolve in between; then, still in that step, it calls the save's
	// Taken. It returns the actions it carried out.
	Apply(sv Save) (acts []Action, ok bool)
}

// Save is one save of the file to take in.
type Save struct {
	File *File
	// Base is what the revision the save was edited from held (see
	// MergeFrom); nil when that revision is not known.
	Base map[string][]json.RawMessage
	// Wrote, used when Base is nil, reports whether the daemon has written
	// raw into the file as answer i of request id, in any revision (see
	// MergeWith). It may be nil.
	Wrote func(id string, i int, raw json.RawMessage) bool
	// Taken records that the save was taken in, so that a restart does not
	// take it in again over what was acknowledged since. Apply calls it
	// inside the step that carries the save out, after its changes are
	// journalled and before anything after them can be acknowledged. It
	// may be nil.
	Taken func()
	// Unapproved are the answers earlier saves gave that were refused only
	// for their "approvesDigest" (Action.Unapproved), by request id: an
	// unchanged save of one of them, now with the field, sends it.
	Unapproved map[string][]json.RawMessage
}

// Options configure a Syncer.
type Options struct {
	Path  string
	Queue Queue
	// Report receives each problem with a saved file, as the sentence a
	// pending_file_error carries ("line 12, column 3: …"), to show the user
	// and to log; the Syncer does not log it again. After a problem with the
	// file itself (it did not parse, was too large, was not a regular file,
	// or could not be read), "" says it is over: a save parsed again, or the
	// path is usable again. It may be nil.
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
// being read. Its state is in four parts, each with one job: how the loop is
// woken and stopped, what it knows of the file, what it has left to do, and
// how the file is doing.
type Syncer struct {
	path   string
	q      Queue
	report func(string)
	logf   func(string, ...any)
	// id tells the daemon's own files, and saves already taken in, from
	// a user's save.
	id       *identity
	rewrites atomic.Int64
	quiet    time.Duration // quietPeriod; tests that drive read by hand set 0
	loopSignals

	// Owned by the loop goroutine.
	render renderer
	watch  *dirWatch
	fileKnown
	loopWork
	fileHealth
}

// loopSignals wake the loop (dirty) and stop it (stop, then done).
type loopSignals struct {
	dirty chan struct{}
	// writeDue is set while a rewrite waits for writeTimer (the pause
	// between two rewrites): that rewrite reads the queue as it is by then,
	// so a change meanwhile need not wake the loop. Under a stream of
	// changes the loop then wakes once per rewrite, not once per change,
	// and leaves the CPU to the agents waiting on the daemon.
	writeDue atomic.Bool
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// fileKnown is what the loop knows of the file: what it wrote, what it last
// read and took in, and what is settling.
type fileKnown struct {
	// ourFile is the file as the daemon last wrote it (inode, size, mtime):
	// the same bytes written again by someone else are a save.
	ourFile    fileID
	lastSeen   [32]byte // the last save taken in (applied or rejected)
	lastSeenOK bool     // whether it parsed (a broken one is not rewritten over)
	onDisk     [32]byte // the file as last read; zero when missing
	settleHash [32]byte // what is settling, while status.settling()
	// unapproved: see Save.Unapproved; kept between saves by takeIn.
	unapproved map[string][]json.RawMessage
}

// loopWork is what the loop has left to do, and its timers.
type loopWork struct {
	wantWrite   bool
	wantRead    bool
	wantRewatch bool
	settle      *time.Timer // a save settling: read it when it fires
	nextWrite   time.Time   // the earliest the next rewrite may happen
	writeTimer  *time.Timer
}

// fileHealth is how the file is doing: whether a save is settling, a problem
// with the file was reported, or the path is left alone (blocked, with
// blockedMsg the report that said why), and the problems render found.
type fileHealth struct {
	status     fileStatus
	blockedMsg string
	lastErr    string
	problems   []problem // what render.problems says, with what each is about
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
		loopSignals: loopSignals{
			dirty: make(chan struct{}, 1),
			stop:  make(chan struct{}),
			done:  make(chan struct{}),
		},
	}
	s.id = newIdentity(path)
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
	s.id.load(revisionOnDisk(s.path))
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

// Changed tells the Syncer that the pending set or a draft changed. It never
// blocks and may be called on a nil Syncer: it only marks the file dirty.
func (s *Syncer) Changed() {
	if s == nil || s.writeDue.Load() {
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
