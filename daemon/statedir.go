package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"askuser/internal/dirnotify"
	"askuser/internal/statefile"
)

// The state dir (docs/contract.md §10) is the daemon's, and it may go away or stop
// taking writes while the daemon runs: deleted (rm -rf), made read-only (a
// remount, a chmod), full. This file holds what keeps the daemon on its
// feet then: the state dir's lock, which must not stop a read-only dir from
// being restored, and a watch that writes a deleted dir back at once. The
// journal glue (journal_glue.go) refuses changes while the dir cannot take
// them and recovers when it can.

// StateLockName is the lock in the state dir: one daemon per state dir,
// whatever socket it listens on.
const StateLockName = "state.lock"

// lockStateDir takes the state dir's lock. A second daemon on another
// socket (a shell without XDG_RUNTIME_DIR, an agent that strips the
// environment) would otherwise share the journal and the pending file.
func lockStateDir(dir, socketPath string) (*socketLock, error) {
	l, holder, err := takeLock(filepath.Join(dir, StateLockName), socketPath)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return nil, stateDirInUse(dir, holder)
	}
	return l, err
}

// ErrStateDirInUse is wrapped, beside ErrAlreadyRunning, when the daemon
// holding the state dir listens on another socket. Unlike losing the
// socket's own lock this is no start-up race that the other daemon wins
// for the same clients: nothing will answer on this socket, so a program
// that started this daemon is told it refused (docs/contract.md §2).
var ErrStateDirInUse = errors.New("the state dir is in use by a daemon on another socket")

func stateDirInUse(dir string, holder lockHolder) error {
	return &stateDirInUseError{fmt.Errorf("%w: the state dir %s is in use by askuserd %s on %s; "+
		"use that daemon (ASKUSER_SOCKET=%s), stop it (askuserd stop --socket %s), or give this one its own daemon.state_dir",
		ErrAlreadyRunning, dir, holder.describe(), holder.socket, holder.socket, holder.socket)}
}

// stateDirInUseError reads as the sentence it wraps and is both
// ErrAlreadyRunning and ErrStateDirInUse.
type stateDirInUseError struct{ err error }

func (e *stateDirInUseError) Error() string   { return e.err.Error() }
func (e *stateDirInUseError) Unwrap() []error { return []error{e.err, ErrStateDirInUse} }

// stateDirLock is the state dir's lock as the daemon holds it over time.
//
// A read-only state dir must not stop the daemon (docs/contract.md §10), yet its lock
// file cannot be created or written there. The lock is then taken on the
// existing lock file opened read-only (flock works on any descriptor), which
// still keeps a second daemon out; without a lock file there is nothing to
// lock, and nothing needs it: no write reaches the dir until ensure has
// taken the lock. A lock file deleted with its dir locks nothing either:
// ensure takes it again, on the new file, before the dir is written back.
//
// Touched at start, then only in the queue goroutine, then at shutdown.
type stateDirLock struct {
	dir, socket string
	l           *socketLock // nil while none is held
}

// openStateDirLock takes the lock at start. It fails only when another
// daemon holds it or the lock file is unusable for another reason than a
// dir that cannot be written.
func openStateDirLock(dir, socket string) (*stateDirLock, error) {
	sl := &stateDirLock{dir: dir, socket: socket}
	l, err := lockStateDir(dir, socket)
	if err == nil {
		sl.l = l
		return sl, nil
	}
	if errors.Is(err, ErrAlreadyRunning) || !cannotWrite(err) {
		return nil, err
	}
	path := filepath.Join(dir, StateLockName)
	f, _, oerr := statefile.Open(path, unix.O_RDONLY, 0)
	if errors.Is(oerr, fs.ErrNotExist) {
		return sl, nil
	}
	if oerr != nil {
		return nil, lockFileError(path, oerr)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, stateDirInUse(dir, readHolder(f))
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	sl.l = &socketLock{f: f}
	return sl, nil
}

// cannotWrite: the error says the file system or its permissions refuse a
// write, which a state dir may do for a while.
func cannotWrite(err error) bool {
	return errors.Is(err, unix.EROFS) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) ||
		errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EDQUOT)
}

// intact reports whether the lock held is on the lock file now in the dir.
func (sl *stateDirLock) intact() bool {
	if sl.l == nil || sl.l.f == nil {
		return false
	}
	held, err := sl.l.f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Lstat(filepath.Join(sl.dir, StateLockName))
	return err == nil && os.SameFile(held, now)
}

// ensure holds the lock on the lock file as it is now, creating the dir and
// the file when they are gone. Called before the state dir is written after
// trouble; the error (another daemon took the dir meanwhile, the dir still
// cannot be written) means nothing may be written.
func (sl *stateDirLock) ensure() error {
	if sl.intact() {
		return nil
	}
	l, err := lockStateDir(sl.dir, sl.socket)
	if err != nil {
		return err
	}
	sl.l.release()
	sl.l = l
	return nil
}

func (sl *stateDirLock) release() {
	if sl != nil {
		sl.l.release()
	}
}

// stateDirSettle is how long the watch waits after an event before it
// looks: an rm -rf is over by then, and writing back while it runs would
// only make it fail ("Directory not empty").
const stateDirSettle = 100 * time.Millisecond

// stateDirPoll is how often the dir is looked at when it cannot be watched
// (inotify unavailable, or the dir gone and not yet back).
const stateDirPoll = 2 * time.Second

// watchStateDir notices the state dir deleted or renamed away and has the
// queue write it back at once (checkStateDir) rather than at the next
// change: a crash meanwhile would lose every pending request. It watches
// the state dir's parent (dirnotify), not the dir: a watch on the dir would
// wake this goroutine at every rewrite of the pending file, while the parent
// changes only when its entries do. The
// parent also tells of a chmod of the dir, after which a dir that could not
// take writes is tried again. A journal or lock deleted alone, inside a dir
// that stays, is written back at the next change (the journal compacts when
// its file is gone) or at the next look. Where no watch can be set (no
// inotify, the parent gone and not yet back), the dir is looked at every
// stateDirPoll.
func (d *server) watchStateDir(ctx context.Context, dir string) {
	defer d.wg.Done()
	sw := newStateDirWatch(dir, d.log)
	defer sw.close()
	poll := time.NewTicker(stateDirPoll)
	defer poll.Stop()
	for {
		var tick <-chan time.Time
		if !sw.watching {
			tick = poll.C
		}
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-sw.events:
			sw.event(ev, ok)
			continue
		case err, ok := <-sw.errs:
			if !ok {
				sw.errs = nil
				continue
			}
			d.log.Warn("state dir: watching it", "err", err)
			continue
		case <-sw.settle.C:
		case <-tick:
		}
		if !d.q.do(func(s *state) { s.checkStateDir() }) {
			return
		}
		sw.watch()
	}
}

// stateDirWatch is watchStateDir's watch on the state dir's parent.
type stateDirWatch struct {
	dir, parent string
	w           *dirnotify.Watcher // nil when none could be made
	watching    bool               // the parent is watched now
	events      <-chan dirnotify.Event
	errs        <-chan error
	settle      *time.Timer // fires stateDirSettle after the dir changed
}

func newStateDirWatch(dir string, log *slog.Logger) *stateDirWatch {
	sw := &stateDirWatch{dir: dir, parent: filepath.Dir(dir)}
	if w, err := dirnotify.New(); err == nil {
		sw.w, sw.events, sw.errs = w, w.Events, w.Errors
	} else {
		log.Warn("state dir: cannot watch it; a deleted state dir is noticed within "+stateDirPoll.String(), "err", err)
	}
	sw.watch()
	sw.settle = time.NewTimer(time.Hour)
	sw.settle.Stop()
	return sw
}

// watch watches the parent again if the watch went with it.
func (sw *stateDirWatch) watch() {
	if sw.w != nil && !sw.watching {
		sw.watching = sw.w.Add(sw.parent) == nil
	}
}

// event starts the settle timer when the dir, or its parent, went or changed.
func (sw *stateDirWatch) event(ev dirnotify.Event, ok bool) {
	if !ok {
		sw.events = nil
		return
	}
	switch {
	case ev.Name == sw.parent && ev.Has(dirnotify.Remove|dirnotify.Rename):
		sw.watching = false // the watch went with the parent, and the dir with it
		sw.settle.Reset(stateDirSettle)
	case ev.Name == sw.dir && ev.Has(dirnotify.Remove|dirnotify.Rename|dirnotify.Chmod|dirnotify.Create):
		sw.settle.Reset(stateDirSettle)
	}
}

func (sw *stateDirWatch) close() {
	sw.settle.Stop()
	if sw.w != nil {
		sw.w.Close()
	}
}
