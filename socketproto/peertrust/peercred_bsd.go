//go:build darwin || freebsd

package peertrust

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// PeerUID reads the connecting process's uid from the kernel
// (LOCAL_PEERCRED), which a client cannot forge, unlike anything it could send.
func PeerUID(c syscall.Conn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *unix.Xucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		cred, serr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if serr != nil {
		return -1, fmt.Errorf("LOCAL_PEERCRED: %w", serr)
	}
	return int(cred.Uid), nil
}
