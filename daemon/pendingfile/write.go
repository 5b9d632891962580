package pendingfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// writeAtomic replaces path with data so that a reader (an editor, the
// watcher) sees either the old file or the new one, never a mix.
func writeAtomic(path string, data []byte) error {
	tmp, err := writeTemp(path, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("%w: %w", errNotSynced, err)
	}
	return nil
}

// swapIn puts data in place of path atomically and hands back the previous
// file under a temporary name (prev, "" when there was none) instead of
// destroying it: a user's save that landed a moment before the swap is still
// there to be read. The caller removes prev. With errNotSynced the swap did
// happen, and prev is handed back all the same.
func swapIn(path string, data []byte) (prev string, err error) {
	tmp, err := writeTemp(path, data)
	if err != nil {
		return "", err
	}
	had, err := exchange(tmp, path)
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	if !had {
		tmp = ""
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		// The swap is done whatever the sync says (some file systems refuse
		// to sync a directory at all): the previous file is still handed
		// back, as it may hold a save.
		return tmp, fmt.Errorf("%w: %w", errNotSynced, err)
	}
	return tmp, nil
}

// errNotSynced is wrapped by swapIn when the new file is in place but its
// directory could not be synced: only a power cut could still undo it.
var errNotSynced = errors.New("written, but the directory could not be synced")

// writeTemp writes data to a new file beside path (same directory, so the
// rename is atomic), mode 0600, fsynced. A missing directory is created
// (0700): a user who deletes the file or its directory just gets it back.
func writeTemp(path string, data []byte) (string, error) {
	return copyTemp(path, bytes.NewReader(data))
}

// copyTemp is writeTemp with what src reads.
func copyTemp(path string, src io.Reader) (string, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	name := tmp.Name()
	fail := func(err error) (string, error) {
		tmp.Close()
		os.Remove(name)
		return "", err
	}
	// CreateTemp already makes it 0600; be explicit, answers may be private.
	if err := tmp.Chmod(0o600); err != nil {
		return fail(err)
	}
	if _, err := io.Copy(tmp, src); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// syncDir makes a rename in dir durable. A variable, so that a test can make
// it fail.
var syncDir = func(dir string) error {
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
