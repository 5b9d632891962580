// Package atomicfile replaces a file so that a reader sees the old file or
// the new one, never a mix, and a power cut after the call returns keeps the
// new one: a temporary file in the same directory, fsynced, renamed over the
// file, and the directory fsynced so that the rename itself is durable.
//
// It replaces regular files only: a FIFO, a socket, a directory or a symlink
// at the path is refused and left alone (a caller that means to write
// through a link resolves it first). The daemon's journal and pending file
// and the client's settings files are all written here.
package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// NotRegularError says that something other than a regular file is at Path.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, Kind(e.Mode))
}

// Kind names what a file mode is, for a message: "a directory", "a FIFO"…
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// ErrNotSynced is wrapped by Write when the new file is in place but its
// directory could not be synced (some file systems refuse to sync a
// directory at all): only a power cut could still undo the rename.
var ErrNotSynced = errors.New("written, but the directory could not be synced")

// Write replaces path with data, with permissions perm (whatever the
// umask). A missing file is created; the directory must exist. Anything but
// a regular file at path is a *NotRegularError, and nothing is written.
// With ErrNotSynced the file was replaced.
func Write(path string, data []byte, perm fs.FileMode) error {
	if err := CheckRegular(path); err != nil {
		return err
	}
	tmp, err := WriteTemp(path, bytes.NewReader(data), perm)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("%w: %w", ErrNotSynced, err)
	}
	return nil
}

// CheckRegular is nil when path is a regular file or nothing, and a
// *NotRegularError otherwise; a symlink is not followed.
func CheckRegular(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return nil
}

// TempPattern is how the temporary files beside path are named (for
// os.CreateTemp, and filepath.Glob with "*"): hidden, and named after path,
// so that one left by a crash is recognised.
func TempPattern(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
}

// WriteTemp writes what src reads to a new temporary file beside path (the
// same directory, so that a rename to path is atomic), with permissions
// perm, fsynced and closed, and returns its name. The caller renames it
// into place, or removes it.
func WriteTemp(path string, src io.Reader, perm fs.FileMode) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(TempPattern(path)))
	if err != nil {
		return "", namePath(err, path)
	}
	name := tmp.Name()
	err = tmp.Chmod(perm)
	if err == nil {
		_, err = io.Copy(tmp, src)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", namePath(err, path)
	}
	return name, nil
}

// namePath makes a failure with the temporary file name the file being
// written: the temporary name is new at every try, and the same trouble
// (a read-only file system) must read the same each time it is reported.
func namePath(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	return err
}

// SyncDir makes the renames done in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}
