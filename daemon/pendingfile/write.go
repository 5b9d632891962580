package pendingfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"askuser/internal/atomicfile"
)

// writeAtomic replaces path with data (atomicfile.Write: a reader, an
// editor or the watcher, sees either the old file or the new one, never a
// mix), mode 0600. A missing directory is created (0700): a user who deletes
// the file or its directory just gets it back. With errNotSynced the file
// was replaced.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}

// swapIn puts data in place of path atomically and hands back the previous
// file under a temporary name (prev, "" when there was none) instead of
// destroying it: a user's save that landed a moment before the swap is still
// there to be read. The caller removes prev. With errNotSynced the swap did
// happen, and prev is handed back all the same.
//
// written is the new file's identity, taken before the swap: the file at
// path a moment after it may already be a user's save that replaced it.
func swapIn(path string, data []byte) (written fileID, prev string, err error) {
	tmp, err := writeTemp(path, data)
	if err != nil {
		return fileID{}, "", err
	}
	fi, err := os.Lstat(tmp)
	if err != nil {
		os.Remove(tmp)
		return fileID{}, "", err
	}
	written = idOf(fi) // a rename keeps the inode, its size and its time
	had, err := exchange(tmp, path)
	if err != nil {
		os.Remove(tmp)
		return fileID{}, "", err
	}
	if !had {
		tmp = ""
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		// The swap is done whatever the sync says (some file systems refuse
		// to sync a directory at all): the previous file is still handed
		// back, as it may hold a save.
		return written, tmp, fmt.Errorf("%w: %w", errNotSynced, err)
	}
	return written, tmp, nil
}

// errNotSynced is wrapped by swapIn and writeAtomic when the new file is in
// place but its directory could not be synced: only a power cut could still
// undo it.
var errNotSynced = atomicfile.ErrNotSynced

// writeTemp writes data to a new file beside path (same directory, so the
// rename is atomic), mode 0600, fsynced. A missing directory is created
// (0700), as by writeAtomic.
func writeTemp(path string, data []byte) (string, error) {
	return copyTemp(path, bytes.NewReader(data))
}

// copyTemp is writeTemp with what src reads.
func copyTemp(path string, src io.Reader) (string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	// 0600 whatever the umask: answers may be private.
	return atomicfile.WriteTemp(path, src, 0o600)
}

// syncDir makes a rename in dir durable. A variable, so that a test can make
// it fail.
var syncDir = atomicfile.SyncDir
