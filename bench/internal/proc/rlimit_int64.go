//go:build freebsd

package proc

import "syscall"

func raise(lim *syscall.Rlimit, n int) bool {
	if lim.Cur >= int64(n) {
		return false
	}
	lim.Cur = min(int64(n), lim.Max)
	return true
}
