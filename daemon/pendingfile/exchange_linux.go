package pendingfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange moves tmp onto path. Where the kernel can, it swaps the two
// (renameat2 RENAME_EXCHANGE), so the file it replaces is not lost but left
// at tmp; had says whether there was one. Without a previous file it moves
// tmp in only if path is still free, and otherwise tries the swap again.
func exchange(tmp, path string) (had bool, err error) {
	for range 3 {
		err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, unix.ENOENT) {
			if unsupported(err) {
				return false, os.Rename(tmp, path)
			}
			return false, &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
		}
		err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_NOREPLACE)
		if err == nil {
			return false, nil
		}
		if unsupported(err) {
			return false, os.Rename(tmp, path)
		}
		if !errors.Is(err, unix.EEXIST) {
			return false, &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
		}
		// A save appeared between the two calls: swap with it instead.
	}
	// A file system without renameat2 flags, or a file that keeps appearing
	// and vanishing: a plain rename, which can lose a save that lands in the
	// same instant.
	return false, os.Rename(tmp, path)
}

// unsupported reports a file system or kernel that cannot do renameat2 flags.
func unsupported(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP)
}
