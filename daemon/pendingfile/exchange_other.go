//go:build !linux

package pendingfile

import "os"

// exchange moves tmp onto path with a plain rename: only Linux can swap two
// files atomically, so elsewhere a save landing in the same instant as a
// rewrite can be lost.
func exchange(tmp, path string) (had bool, err error) {
	return false, os.Rename(tmp, path)
}
