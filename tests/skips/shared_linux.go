package skips

import (
	"os"

	"golang.org/x/sys/unix"
)

// sharedStderr is the go command's (pid's) standard error itself, its open
// file shared with go through pidfd_getfd(2), offset and all: what is
// written here comes before go's next line, in a file too. nil when the
// kernel or its policy does not allow it.
func sharedStderr(pid int) *os.File {
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(pidfd)
	fd, err := unix.PidfdGetfd(pidfd, 2, 0)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), "go's stderr")
}
