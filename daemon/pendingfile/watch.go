package pendingfile

import (
	"os"
	"path/filepath"
	"syscall"

	"askuser/internal/dirnotify"
)

// dirWatch watches the directory that holds the pending file, not the file:
// editors that save by rename replace the file's inode, and a watch on the
// old inode would go quiet after the first save. When the directory itself
// is deleted, it watches the nearest existing parent until the directory is
// back (the user recreates it, or the next rewrite does).
type dirWatch struct {
	w       *dirnotify.Watcher
	target  string // the pending file's directory
	watched string // the directory watched now; "" when none
	// watchedID is the watched directory's inode: a directory deleted and
	// made again under the same name is another one, which the watch does
	// not see. The kernel says a directory is gone only once nothing holds
	// it open, and the daemon's state.lock lives there.
	watchedID uint64
}

func newDirWatch(target string) (*dirWatch, error) {
	w, err := dirnotify.New()
	if err != nil {
		return nil, err
	}
	return &dirWatch{w: w, target: filepath.Clean(target)}, nil
}

func (d *dirWatch) close() error { return d.w.Close() }

// onTarget reports whether the file's own directory is being watched.
func (d *dirWatch) onTarget() bool { return d.watched == d.target }

// ensure watches the target directory, or else its nearest existing parent.
// It reports whether the target has just become watched: the file may have
// been written there while nobody watched, so the caller reads it once.
func (d *dirWatch) ensure() (gained bool, err error) {
	for {
		dir := nearestDir(d.target)
		if dir == d.watched {
			return false, nil
		}
		if d.watched != "" {
			_ = d.w.Remove(d.watched) // may already be gone with its directory
			d.watched = ""
		}
		if err := d.w.Add(dir); err != nil {
			if os.IsNotExist(err) {
				continue // removed between the Stat and the Add: look again
			}
			return false, err
		}
		d.watched = dir
		d.watchedID = inodeOf(dir)
		// A deeper directory may have been created before the watch was in
		// place; its Create event went unseen, so look once more.
		if nearestDir(d.target) == dir {
			return dir == d.target, nil
		}
	}
}

// lost is called when the watched directory itself was removed or renamed:
// the kernel dropped the watch with it.
func (d *dirWatch) lost() { d.watched = "" }

// replaced reports whether the watched directory's name now stands for
// another directory than the one watched (deleted and made again); the
// watch is then dropped, for ensure to watch the new one.
func (d *dirWatch) replaced() bool {
	if d.watched == "" || inodeOf(d.watched) == d.watchedID {
		return false
	}
	_ = d.w.Remove(d.watched)
	d.watched = ""
	return true
}

func inodeOf(dir string) uint64 {
	fi, err := os.Stat(dir)
	if err != nil {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// nearestDir is dir if it exists, else its nearest existing ancestor.
func nearestDir(dir string) string {
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}
