// Package statefile opens the files of the daemon's state and runtime dirs
// the one way docs/contract.md §10 allows: regular files only. The open never blocks on
// a FIFO planted at the path (O_NONBLOCK) and never follows a symlink
// (O_NOFOLLOW); anything but a regular file is refused and left alone.
package statefile

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"

	"askuser/internal/atomicfile"
)

// NotRegularError says that something other than a regular file is at Path;
// it is atomicfile's, so that a refusal reads the same whichever refused.
type NotRegularError = atomicfile.NotRegularError

// Open opens path with flags (unix.O_RDONLY, unix.O_RDWR|unix.O_CREAT, …)
// and perm for a file it creates, if it is a regular file; otherwise the
// error is a *NotRegularError (with the FileInfo when there is one). The
// file is in blocking mode again when returned.
func Open(path string, flags int, perm os.FileMode) (*os.File, fs.FileInfo, error) {
	fd, err := unix.Open(path, flags|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if errors.Is(err, unix.ELOOP) {
		return nil, nil, &NotRegularError{Path: path, Mode: fs.ModeSymlink}
	}
	if errors.Is(err, unix.ENXIO) {
		// A Unix socket cannot be opened at all (ENXIO): it is not a
		// regular file, and must be left alone like any other (docs/contract.md §10),
		// not taken for a missing one. Lstat says what it is.
		mode := fs.ModeSocket
		if fi, lerr := os.Lstat(path); lerr == nil {
			mode = fi.Mode()
		}
		return nil, nil, &NotRegularError{Path: path, Mode: mode}
	}
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	// O_NONBLOCK means nothing to a regular file, but say what we mean.
	_ = unix.SetNonblock(fd, false)
	return f, fi, nil
}

// Kind names what a file mode is, for a message: "a directory", "a FIFO"…
func Kind(m fs.FileMode) string { return atomicfile.Kind(m) }
