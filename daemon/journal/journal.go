package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"askuser/internal/atomicfile"
	"askuser/internal/history"
	"askuser/internal/statefile"
)

// StateFile is state.jsonl's name in the state dir; history.jsonl's is history.File.
const StateFile = "state.jsonl"

// Options configure Open.
type Options struct {
	Dir  string               // the state dir; made 0700 if missing
	Logf func(string, ...any) // damage and write errors; default discards
	// HistoryTrouble, if set, is told why history.jsonl cannot take its
	// entries (a FIFO there, a full disk), and "" once it takes them
	// again: the user is told where a pending file's trouble is told.
	HistoryTrouble func(path, msg string)
	Now            func() time.Time // default time.Now
	// SyncAlways makes Commit fsync before it returns; otherwise a
	// background fsync follows each write within SyncInterval.
	SyncAlways   bool
	SyncInterval time.Duration // default 10ms
	// MaxRecordBytes bounds one line read back; a longer one is damage and
	// is skipped without being held in memory (default 16 MiB).
	MaxRecordBytes int
	// CompactBytes: once this much was appended since the last compaction,
	// and more than twice the live state, the journal is rewritten to the
	// live state (default 8 MiB).
	CompactBytes int64
	// Snapshot returns the records that rebuild the live state. It is called
	// only from inside Write, Commit or Compact, so from the goroutine that
	// owns the state it describes.
	Snapshot func() []Record
}

// Journal writes records in the caller's goroutine: Write returns once the
// records are in the file (write(2) returned), so a crash of the process
// after that loses nothing. Only the fsync may run later, in a goroutine of
// the journal's own. Every method but Close belongs to one goroutine, the
// queue's.
type Journal struct {
	opts    Options
	path    string
	history string

	stateLog   // state.jsonl as this journal left it
	historyLog // history.jsonl, and the entries still to append to it
	fsyncs     // the fsyncs after writes (SyncAlways)
	// refused: the journal on disk is of a newer format; nothing is written
	// over it.
	refused error
	closed  bool
}

// stateLog is state.jsonl as the journal writes it.
type stateLog struct {
	// f is state.jsonl while a group of writes is under way; Commit closes
	// it. It stays open between groups while its path still names it
	// (stillAtPath): a file replaced or removed, or a state dir deleted,
	// is let go of at the next write.
	f        *os.File
	opened   fs.FileInfo // f as it was opened: which file it is
	appended int64       // bytes since the last compaction
	liveSize int64       // bytes the last compaction wrote
	// broken: the file may end in a partial record (a failed write that
	// could not be cut back), or is gone; the next write compacts first.
	broken bool
	// size is the size the file had after our last write to it (-1:
	// unknown): a file of another size was changed by someone else, and
	// its end is looked at before appending.
	size int64
	// checked: state.jsonl was found at its path and as we left it in
	// this group of writes; the group's other writes append without
	// looking again (Commit ends the group). Looking before each record
	// took a third of an answer's time in the daemon, and a file changed
	// by someone else within a group is found at the next group's first
	// write all the same.
	checked bool
}

// historyLog is history.jsonl as the journal appends to it.
type historyLog struct {
	// unhistoried holds history entries not appended yet: the group's,
	// appended together (WriteHistory, or at Commit), and those whose
	// append failed, retried once per group; their ids, so that compaction
	// can say so (a crash before the append loses none: replay writes what
	// history lacks).
	unhistoried []history.Entry
	// historyDue: unhistoried has entries not tried in this group yet.
	historyDue bool
	// histFile is history.jsonl kept open for appending, and what it was
	// when opened (historyFile): unlike state.jsonl it is appended to on
	// every answer, and it is checked against its path before each use, so
	// a state dir deleted and written back gets a new one.
	histFile *os.File
	histInfo os.FileInfo
	// histTrouble is what HistoryTrouble was last told ("" for none).
	histTrouble string
	histSize    int64 // as size is for state.jsonl
}

// fsyncs is when the writes reach the disk: at Commit with daemon.sync =
// "always", else by the journal's own goroutine, kicked at Commit.
type fsyncs struct {
	dirty    bool // written since the last fsync
	syncKick chan struct{}
	syncDone chan struct{}
}

// ErrUnavailable wraps every reason the state dir did not take a write.
var ErrUnavailable = errors.New("the state dir cannot take the write")

// Open replays the journal in opts.Dir and returns what the queue should
// hold again: pending requests and kept results (expired ones dropped). It
// fails only when opts are unusable; a state dir that cannot be read or
// written is logged, and every later Write reports it, so that whatever can
// be read is still restored and nothing is accepted that cannot be kept.
// Call Compact once the queue holds the State.
func Open(opts Options) (*Journal, State) {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.SyncInterval <= 0 {
		opts.SyncInterval = 10 * time.Millisecond
	}
	if opts.MaxRecordBytes <= 0 {
		opts.MaxRecordBytes = 16 << 20
	}
	if opts.CompactBytes <= 0 {
		opts.CompactBytes = 8 << 20
	}
	if opts.Snapshot == nil {
		opts.Snapshot = func() []Record { return nil }
	}
	j := &Journal{
		opts:    opts,
		path:    filepath.Join(opts.Dir, StateFile),
		history: filepath.Join(opts.Dir, history.File),
		stateLog: stateLog{
			broken: true, // compact at the first chance: replay may have skipped damage
			size:   -1,
		},
		historyLog: historyLog{histSize: -1},
		fsyncs:     fsyncs{syncKick: make(chan struct{}, 1), syncDone: make(chan struct{})},
	}
	// A compaction cut short by a crash leaves its temporary file behind
	// (named tmpSuffix by askuserd before atomicfile).
	leftovers, _ := filepath.Glob(atomicfile.TempPattern(j.path))
	for _, tmp := range append(leftovers, j.path+tmpSuffix) {
		removeIfRegular(tmp, opts.Logf)
	}

	m := newModel()
	if newer := replay(j.path, m, opts.MaxRecordBytes, opts.Logf); newer > 0 {
		j.refused = fmt.Errorf("%w: %s is journal format %d, written by a newer askuserd (this one writes format %d); "+
			"run that askuserd, or move the file away to start afresh", ErrUnavailable, j.path, newer, Format)
	}
	all := m.allResolved()
	st := m.state(opts.Now())
	// A torn last line is made whole before anything is appended to it,
	// and before it is read for what it lacks.
	j.repairHistory()
	// Resolutions the history may lack: the daemon died between the two
	// appends, the history append failed, or the file was cut or removed.
	j.appendHistory(missingHistory(j.history, m.mark, m.resolved, all, opts.Logf))
	j.historyDue = len(j.unhistoried) > 0 // what could not be appended: tried again at the first group
	go j.syncLoop()
	return j, st
}

// tmpSuffix named compaction's temporary file before atomicfile chose the
// names; one left by such a crash is still removed.
const tmpSuffix = ".tmp"

// Write appends records to state.jsonl before it returns. An error (wrapping
// ErrUnavailable) means none of them was kept: the change they describe must
// not happen. history entries are appended to history.jsonl after them, by
// WriteHistory or at Commit; a failure there is logged and retried, never
// lost.
func (j *Journal) Write(recs []Record, entries ...history.Entry) error {
	var buf bytes.Buffer
	for _, r := range recs {
		if err := writeRecord(&buf, r); err != nil {
			return fmt.Errorf("%w: cannot encode a %q record for %q: %v", ErrUnavailable, r.Op, r.ID, err)
		}
	}
	if err := j.writeState(buf.Bytes()); err != nil {
		return err
	}
	if len(entries) > 0 {
		j.unhistoried = append(j.unhistoried, entries...)
		j.historyDue = true
	}
	return nil
}

// WriteHistory appends the history entries written so far in this group
// (at most one try per group). Commit does it too; the daemon calls it
// before an acknowledgement, so that what is acknowledged is in
// history.jsonl, and lets other messages (an agent's answer) leave first.
func (j *Journal) WriteHistory() {
	if j.historyDue {
		j.historyDue = false
		j.appendHistory(nil)
	}
}

func (j *Journal) writeState(b []byte) error {
	if j.refused != nil {
		return j.refused
	}
	if j.broken {
		if err := j.Compact(); err != nil {
			return err
		}
	}
	if !j.checked || j.f == nil {
		fi, err := j.openState()
		if err != nil {
			return err
		}
		if rewrite, err := j.mustRewrite(fi); err != nil {
			return err
		} else if rewrite {
			return j.writeState(b)
		}
		j.size, j.checked = fi.Size(), true
	}
	was := j.size // the file's size: as found, or as this group left it
	if _, err := j.f.Write(b); err != nil {
		// A partial line would swallow the next record on replay: cut
		// the file back to where it was.
		j.size, j.checked = -1, false
		if terr := j.f.Truncate(was); terr != nil {
			j.broken = true
		}
		return j.unavailable(err)
	}
	j.appended += int64(len(b))
	j.size = was + int64(len(b))
	j.dirty = true
	return nil
}

// openState opens state.jsonl for appending, unless the file open is still
// the one at its path, and says what the open file is now.
func (j *Journal) openState() (fs.FileInfo, error) {
	if j.f != nil {
		if held, ok := j.stillAtPath(); ok {
			return held, nil
		}
		j.closeFile()
	}
	f, err := openRegular(j.path, unix.O_RDWR|unix.O_APPEND, false)
	if errors.Is(err, fs.ErrNotExist) {
		// Deleted under us (or the whole state dir): the records
		// before this one went with it; write the whole live state.
		if err := j.Compact(); err != nil {
			return nil, err
		}
		f, err = openRegular(j.path, unix.O_RDWR|unix.O_APPEND, false)
	}
	if err != nil {
		return nil, j.unavailable(err)
	}
	j.f = f
	fi, err := f.Stat()
	if err != nil {
		return nil, j.unavailable(err)
	}
	j.opened = fi
	return fi, nil
}

// mustRewrite reports whether the open journal, as fi found it, can no
// longer take a record appended to it. If so it is closed and marked broken,
// so that the next write rewrites it from the live state.
func (j *Journal) mustRewrite(fi fs.FileInfo) (bool, error) {
	if fi.Size() != j.size {
		// Not as we left it. A last line without its newline (a write cut
		// short that could not be cut back, a fragment put there by
		// anything else) would swallow this record: rewrite the journal
		// instead.
		if whole, err := endsWhole(j.f); err != nil || !whole {
			j.closeFile()
			if err != nil {
				return false, j.unavailable(err)
			}
			j.opts.Logf("state journal %s: its last line is cut short; rewriting it from the live state", j.path)
			j.broken = true
			return true, nil
		}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink == 0 {
		// Unlinked while we held it: the records would go nowhere.
		j.closeFile()
		j.broken = true
		return true, nil
	}
	return false, nil
}

func (j *Journal) unavailable(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%w: %s: %v", ErrUnavailable, pe.Path, pe.Err)
	}
	return fmt.Errorf("%w: %s: %v", ErrUnavailable, j.path, err)
}

// appendHistory appends entries (after any that failed before) to
// history.jsonl. It never fails: what cannot be written now is tried again at
// the next write, and compaction marks it so that a restart writes it.
func (j *Journal) appendHistory(entries []history.Entry) {
	j.unhistoried = append(j.unhistoried, entries...)
	if len(j.unhistoried) == 0 {
		return
	}
	f, fi, err := j.historyFile()
	if err == nil {
		if err = j.appendHistoryTo(f, fi); err != nil {
			j.dropHistoryFile()
		}
	}
	if err != nil {
		j.opts.Logf("history %s: %v; %d entries kept to write later", j.history, err, len(j.unhistoried))
		j.historyTrouble(fmt.Sprintf("%v; %d entries kept to write when it takes them", err, len(j.unhistoried)))
		return
	}
	j.unhistoried = nil
	j.dirty = true
	j.historyTrouble("")
}

// historyTrouble tells Options.HistoryTrouble what changed: a new trouble,
// or that there is none any more.
func (j *Journal) historyTrouble(msg string) {
	if j.opts.HistoryTrouble == nil || msg == j.histTrouble {
		return
	}
	j.histTrouble = msg
	j.opts.HistoryTrouble(j.history, msg)
}

// historyFile is history.jsonl opened for appending. It stays open between
// appends — opening it the careful way (statefile.Open) cost a fifth of an
// answer's trip through the daemon — for as long as the path still names
// the same file: one removed, replaced or written back with the state dir is
// opened afresh, so an entry never goes into a file no one can read.
func (j *Journal) historyFile() (*os.File, os.FileInfo, error) {
	if j.histFile != nil {
		if fi, err := os.Lstat(j.history); err == nil && os.SameFile(fi, j.histInfo) {
			return j.histFile, fi, nil // the same file: its size too
		}
		j.dropHistoryFile()
	}
	f, err := openRegular(j.history, unix.O_RDWR|unix.O_APPEND|unix.O_CREAT, true)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	j.histFile, j.histInfo = f, fi
	return f, fi, nil
}

// dropHistoryFile closes the kept history.jsonl, if any.
func (j *Journal) dropHistoryFile() {
	if j.histFile != nil {
		j.histFile.Close()
		j.histFile, j.histInfo = nil, nil
	}
}

// appendHistoryTo appends j.unhistoried to f, after making its end whole.
// A write that fails is cut back; one that cannot be is made whole by the
// next append.
func (j *Journal) appendHistoryTo(f *os.File, fi os.FileInfo) error {
	if fi.Size() != j.histSize {
		note, completed, err := repairTail(f, wholeHistoryEntry)
		if err != nil {
			return err
		}
		if note != "" {
			j.opts.Logf("history %s: %s", j.history, note)
		}
		if completed != "" {
			// Our own write that lost only its newline: that entry is there.
			if i := slices.IndexFunc(j.unhistoried, func(h history.Entry) bool { return h.RequestID == completed }); i >= 0 {
				j.unhistoried = slices.Delete(j.unhistoried, i, i+1)
			}
		}
		if fi, err = f.Stat(); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	for _, h := range j.unhistoried {
		line, err := json.Marshal(h)
		if err != nil {
			j.opts.Logf("history: cannot encode the entry for %q: %v", h.RequestID, err)
			continue
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		j.histSize = -1
		_ = f.Truncate(fi.Size())
		return err
	}
	j.histSize = fi.Size() + int64(buf.Len())
	return nil
}

// repairHistory makes history.jsonl end with a whole line (tail.go), so
// that what a start appends to it is readable.
func (j *Journal) repairHistory() {
	// Looked at read-only first: a read-only state dir whose history ends
	// whole is nothing to report.
	if f, err := openRegular(j.history, unix.O_RDONLY, false); err == nil {
		whole, _ := endsWhole(f)
		f.Close()
		if whole {
			return
		}
	}
	f, err := openRegular(j.history, unix.O_RDWR|unix.O_APPEND, false)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err == nil {
		var note string
		if note, _, err = repairTail(f, wholeHistoryEntry); note != "" {
			j.opts.Logf("history %s: %s", j.history, note)
		}
		f.Close()
	}
	if err != nil {
		j.opts.Logf("history %s: cannot make its last line whole: %v; new entries wait until it can be", j.history, err)
	}
}

// SyncsAtCommit reports whether Commit fsyncs (daemon.sync = "always"): then
// nothing the group's changes send may leave before it.
func (j *Journal) SyncsAtCommit() bool { return j.opts.SyncAlways }

// Commit ends a group of writes. With SyncAlways it returns after the fsync
// (an error: the writes are in the file but perhaps not on the disk);
// otherwise the fsync happens within SyncInterval. Then it compacts the
// journal when it has grown well past the live state.
func (j *Journal) Commit() error {
	j.checked = false
	j.WriteHistory()
	// Entries whose append failed are tried again in the next group.
	j.historyDue = len(j.unhistoried) > 0
	var err error
	if j.dirty {
		j.dirty = false
		if j.opts.SyncAlways {
			err = j.syncNow()
		} else {
			select {
			case j.syncKick <- struct{}{}:
			default:
			}
		}
	}
	if j.appended > j.opts.CompactBytes && j.appended > 2*j.liveSize {
		if cerr := j.Compact(); cerr != nil {
			j.opts.Logf("state journal: %v", cerr)
		}
	}
	return err
}

// stillAtPath reports whether the open state.jsonl is still the file its
// path names, and what the open file is: not replaced (a compaction, someone's editor), removed, or
// gone with the state dir. The file stays open between groups of writes —
// opening it the careful way (statefile.Open) for every group cost a good
// part of each ask's and answer's trip through the daemon — and this check
// is what makes that safe: a file the path no longer names is closed, and
// the write goes where the path leads (compacting when it leads nowhere).
func (j *Journal) stillAtPath() (held fs.FileInfo, ok bool) {
	// One lstat: while the path names the open file, what it says of that
	// file (its size) is the open file's own.
	at, err := os.Lstat(j.path)
	return at, err == nil && os.SameFile(at, j.opened)
}

func (j *Journal) closeFile() {
	if j.f != nil {
		j.f.Close()
		j.f, j.opened = nil, nil
	}
}

// syncLoop fsyncs both files within SyncInterval of a write: writes that
// come in meanwhile share the fsync.
func (j *Journal) syncLoop() {
	defer close(j.syncDone)
	for range j.syncKick {
		time.Sleep(j.opts.SyncInterval)
		if err := j.syncNow(); err != nil {
			j.opts.Logf("state journal: %v", err)
		}
	}
}

// syncNow fsyncs state.jsonl and history.jsonl. fsync acts on the file, not
// on the descriptor that wrote, so a fresh open is enough. One caller at a
// time: Commit with SyncAlways, otherwise the background loop, and Close
// once that loop has ended.
func (j *Journal) syncNow() error {
	var first error
	for _, path := range []string{j.path, j.history} {
		f, err := openRegular(path, unix.O_RDONLY, false)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			err = f.Sync()
			f.Close()
		}
		if err != nil && first == nil {
			first = fmt.Errorf("fsync %s: %w", path, err)
		}
	}
	return first
}

// Compact rewrites the journal to the live state (opts.Snapshot) through a
// temporary file, fsynced and renamed over it: a crash at any point leaves
// either the old journal or the new one, whole.
func (j *Journal) Compact() error {
	j.closeFile()
	if j.refused != nil {
		return j.refused
	}
	if err := os.MkdirAll(j.opts.Dir, 0o700); err != nil {
		return j.unavailable(err)
	}
	if err := atomicfile.CheckRegular(j.path); err != nil {
		return j.compactErr(err)
	}
	histSize := int64(0)
	if fi, err := os.Lstat(j.history); err == nil && fi.Mode().IsRegular() {
		histSize = fi.Size()
	}
	unhistoried := map[string]int{}
	for _, h := range j.unhistoried {
		unhistoried[h.RequestID]++
	}
	recs := append([]Record{{Op: OpMark, At: j.opts.Now().UTC(), HistorySize: histSize, Format: Format}}, j.opts.Snapshot()...)
	var buf bytes.Buffer
	for _, r := range recs {
		if r.Op == OpResult && unhistoried[r.ID] > 0 {
			r.NoHistory = true
		}
		if err := writeRecord(&buf, r); err != nil {
			return fmt.Errorf("%w: cannot encode a %q record for %q: %v", ErrUnavailable, r.Op, r.ID, err)
		}
	}
	// Replaced through a temporary file, fsynced and renamed over it; a
	// directory that cannot be synced does not undo the rename.
	err := atomicfile.Write(j.path, buf.Bytes(), 0o600)
	if err != nil && !errors.Is(err, atomicfile.ErrNotSynced) {
		return j.compactErr(err)
	}
	j.appended, j.liveSize, j.broken = 0, int64(buf.Len()), false
	j.size = int64(buf.Len())
	return nil
}

// Missing reports whether state.jsonl is gone (deleted, or its dir with
// it): the live state is then on disk nowhere, and Compact puts it back.
func (j *Journal) Missing() bool {
	_, err := os.Lstat(j.path)
	return errors.Is(err, fs.ErrNotExist)
}

// Close fsyncs what was written and stops the background fsync.
func (j *Journal) Close() {
	if j.closed {
		return
	}
	j.closed = true
	j.closeFile()
	j.appendHistory(nil)
	j.dropHistoryFile()
	close(j.syncKick)
	<-j.syncDone
	if err := j.syncNow(); err != nil {
		j.opts.Logf("state journal: %v", err)
	}
}

// openRegular opens a file in the state dir, refusing anything but a
// regular file (statefile.Open). create makes the file (and its directory)
// when missing.
func openRegular(path string, flags int, create bool) (*os.File, error) {
	if create {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
	}
	f, _, err := statefile.Open(path, flags, 0o600)
	var notRegular *statefile.NotRegularError
	if errors.As(err, &notRegular) {
		return nil, fmt.Errorf("%w; left alone", err)
	}
	return f, err
}

// compactErr is what a failed compaction returns: for something other than
// a regular file at state.jsonl, that it was left alone.
func (j *Journal) compactErr(err error) error {
	var nr *atomicfile.NotRegularError
	if errors.As(err, &nr) {
		return fmt.Errorf("%w: %v; left alone", ErrUnavailable, err)
	}
	return j.unavailable(err)
}

// removeIfRegular removes a leftover temporary file, never anything else.
func removeIfRegular(path string, logf func(string, ...any)) {
	fi, err := os.Lstat(path)
	if err != nil {
		return
	}
	if !fi.Mode().IsRegular() {
		logf("state journal: %s is %s; left alone", path, statefile.Kind(fi.Mode()))
		return
	}
	if err := os.Remove(path); err == nil {
		logf("state journal: removed %s, left by an interrupted compaction", path)
	}
}
