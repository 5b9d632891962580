package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// File names in the state dir.
const (
	StateFile   = "state.jsonl"
	HistoryFile = "history.jsonl"
)

// Options configure Open.
type Options struct {
	Dir  string               // the state dir; made 0700 if missing
	Logf func(string, ...any) // damage and write errors; default discards
	Now  func() time.Time     // default time.Now
	// CompactBytes: once this much was appended since the last compaction,
	// the journal is rewritten to the live state (default 8 MiB).
	CompactBytes int64
}

// Journal appends records from any goroutine without making it wait: Append
// only adds to an in-memory list; the journal's own goroutine writes what
// has gathered in one write and one fsync (group commit).
type Journal struct {
	opts    Options
	path    string
	history string

	mu     sync.Mutex
	buf    []item
	closed bool
	kick   chan struct{} // capacity 1: "there is something in buf"
	done   chan struct{} // closed when the goroutine has returned

	// Below: the journal goroutine's own (and Open's, before it starts).
	// No file stays open between batches: an open file pins its directory,
	// and a user who deletes the state dir must see it go (the pending
	// file's watcher learns of it only when the directory is really gone).
	m        *model
	appended int64 // bytes since the last compaction
	liveSize int64 // bytes the last compaction wrote
	failing  bool  // a write failed; compact at the next batch
}

type item struct {
	rec   Record
	flush chan struct{} // set for Flush markers only
}

// Open replays the journal in opts.Dir, compacts it to the live state and
// starts the goroutine that appends. The State is what the queue should hold
// again: pending requests and kept results (expired ones already dropped).
func Open(opts Options) (*Journal, State, error) {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.CompactBytes <= 0 {
		opts.CompactBytes = 8 << 20
	}
	j := &Journal{
		opts:    opts,
		path:    filepath.Join(opts.Dir, StateFile),
		history: filepath.Join(opts.Dir, HistoryFile),
		kick:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		m:       newModel(),
	}
	if err := replay(j.path, j.m, opts.Logf); err != nil {
		return nil, State{}, err
	}
	if err := j.compact(); err != nil {
		return nil, State{}, err
	}
	st := j.m.state(opts.Now())
	go j.run()
	return j, st, nil
}

// Append hands records to the journal. It never waits for disk; after Close
// it drops them.
func (j *Journal) Append(recs ...Record) {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return
	}
	for _, r := range recs {
		j.buf = append(j.buf, item{rec: r})
	}
	j.mu.Unlock()
	j.signal()
}

// Flush waits until every record appended before it is written and synced.
func (j *Journal) Flush() {
	ch := make(chan struct{})
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return
	}
	j.buf = append(j.buf, item{flush: ch})
	j.mu.Unlock()
	j.signal()
	select {
	case <-ch:
	case <-j.done:
	}
}

// Close writes what is left and stops the goroutine; no file stays open.
func (j *Journal) Close() {
	j.mu.Lock()
	already := j.closed
	j.closed = true
	j.mu.Unlock()
	if !already {
		j.signal()
	}
	<-j.done
}

func (j *Journal) signal() {
	select {
	case j.kick <- struct{}{}:
	default:
	}
}

func (j *Journal) run() {
	defer close(j.done)
	for range j.kick {
		j.mu.Lock()
		batch, closed := j.buf, j.closed
		j.buf = nil
		j.mu.Unlock()
		j.write(batch)
		if closed {
			return
		}
	}
}

// write appends one batch to both files with one fsync each, then compacts
// when the journal has grown well past the live state.
func (j *Journal) write(batch []item) {
	var state, hist bytes.Buffer
	var flushes []chan struct{}
	for _, it := range batch {
		if it.flush != nil {
			flushes = append(flushes, it.flush)
			continue
		}
		h, ok := j.m.apply(it.rec)
		if !ok {
			continue // e.g. "delivered" for a result the journal never saw
		}
		line, err := json.Marshal(it.rec)
		if err != nil {
			j.opts.Logf("state journal: cannot encode a %q record for %q: %v", it.rec.Op, it.rec.ID, err)
			continue
		}
		state.Write(line)
		state.WriteByte('\n')
		if h != nil {
			if line, err := json.Marshal(h); err == nil {
				hist.Write(line)
				hist.WriteByte('\n')
			}
		}
	}
	if state.Len() > 0 && !j.failing {
		err := appendSync(j.path, state.Bytes(), false)
		if errors.Is(err, os.ErrNotExist) {
			// The journal (or the whole state dir) was deleted under us:
			// the records before this batch are gone with it, so write
			// the whole live state, this batch included.
			j.failing = true
		} else if err != nil {
			j.opts.Logf("state journal %s: %v; rewriting it whole next", j.path, err)
			j.failing = true
		}
		j.appended += int64(state.Len())
	}
	if hist.Len() > 0 {
		if err := appendSync(j.history, hist.Bytes(), true); err != nil {
			j.opts.Logf("history %s: %v", j.history, err)
		}
	}
	if j.failing || (j.appended > j.opts.CompactBytes && j.appended > 2*j.liveSize) {
		if err := j.compact(); err != nil {
			j.opts.Logf("state journal %s: compaction failed: %v", j.path, err)
			j.failing = true
		} else {
			j.failing = false
		}
	}
	for _, ch := range flushes {
		close(ch)
	}
}

// appendSync appends b to the file at path and syncs it; create makes the
// file (and the state dir) when missing.
func appendSync(path string, b []byte, create bool) error {
	flag := os.O_WRONLY | os.O_APPEND
	if create {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		flag |= os.O_CREATE
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// compact writes the live state to a temporary file, syncs it, renames it
// over the journal: a crash at any point leaves either the old journal or
// the new one, whole.
func (j *Journal) compact() error {
	if err := os.MkdirAll(j.opts.Dir, 0o700); err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	var buf bytes.Buffer
	for _, r := range j.m.snapshot(j.opts.Now()) {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	tmp := j.path + ".tmp"
	os.Remove(tmp) // left by a crash mid-compaction
	if err := appendSync(tmp, buf.Bytes(), true); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, j.path); err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(j.opts.Dir); err == nil {
		_ = d.Sync() // the rename itself survives a power cut
		d.Close()
	}
	j.appended, j.liveSize = 0, int64(buf.Len())
	return nil
}
