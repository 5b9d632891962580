// Package statefile opens askuser's own files — the state dir's, the
// runtime dir's, config.toml, the log — the one way docs/contract.md §10
// allows: regular files only. A path is looked at (lstat) before it is
// opened, so a FIFO, a device or a socket planted there is never opened at
// all; the open itself never blocks on a FIFO that appears meanwhile
// (O_NONBLOCK), never follows a symlink unless asked to, and never takes a
// terminal as the controlling one (O_NOCTTY); and what was opened is
// checked again (fstat). Anything but a regular file is a *NotRegularError
// and is left alone. The daemon, `askuserd web`, the pane and the clients
// all open such files here and nowhere else; it knows nothing of which
// file is which.
package statefile

import (
	"errors"
	"io"
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
// error is a *NotRegularError (with the FileInfo when the open got that
// far). A symlink at path is refused, not followed. The file is in
// blocking mode again when returned.
func Open(path string, flags int, perm os.FileMode) (*os.File, fs.FileInfo, error) {
	return open(path, flags, perm, false)
}

// OpenFollow is Open through symlinks: for a file the user may keep as a
// link (config.toml linked from a dotfiles repository), where what the link
// leads to must be a regular file.
func OpenFollow(path string, flags int, perm os.FileMode) (*os.File, fs.FileInfo, error) {
	return open(path, flags, perm, true)
}

// ReadFile reads the regular file at path whole (Open's rules).
func ReadFile(path string) ([]byte, error) { return readFile(path, false) }

// ReadFileFollow reads the regular file at path whole (OpenFollow's rules).
func ReadFileFollow(path string) ([]byte, error) { return readFile(path, true) }

func readFile(path string, follow bool) ([]byte, error) {
	f, _, err := open(path, unix.O_RDONLY, 0, follow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func open(path string, flags int, perm os.FileMode, follow bool) (*os.File, fs.FileInfo, error) {
	look := os.Lstat
	if follow {
		look = os.Stat
	}
	// Looked at first: a FIFO, a device or a socket is refused without
	// being opened at all (opening a device may do something, a tape
	// rewinds). O_NONBLOCK below covers one put there after this look.
	if fi, err := look(path); err == nil && !fi.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	flags |= unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOCTTY
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(path, flags, uint32(perm.Perm()))
	if !follow && errors.Is(err, unix.ELOOP) {
		return nil, nil, &NotRegularError{Path: path, Mode: fs.ModeSymlink}
	}
	if errors.Is(err, unix.ENXIO) {
		// A Unix socket cannot be opened at all, and a FIFO without a
		// reader cannot be opened for writing without blocking (ENXIO):
		// neither is a regular file, and each must be left alone like any
		// other (docs/contract.md §10), not taken for a missing one.
		mode := fs.ModeSocket
		if fi, lerr := look(path); lerr == nil {
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
