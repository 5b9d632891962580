package daemon

import (
	"net"

	"golang.org/x/sys/unix"
)

// awaitHangup returns once the peer has closed its side completely, or the
// connection is closed here. A client that only shut down its writing side
// (`ncat`, `socat`, `nc -N` after their stdin ends) is still reading, so
// end-of-file alone must not orphan its request. The netpoller is
// edge-triggered: this sleeps until the next event on the socket, which is the
// hang-up, and costs nothing meanwhile.
func awaitHangup(c *net.UnixConn) {
	raw, err := c.SyscallConn()
	if err != nil {
		return
	}
	_ = raw.Read(func(fd uintptr) bool {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		if err != nil {
			return true
		}
		return n > 0 && fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0
	})
}

// peerGone reports whether the peer has closed the connection in both
// directions (POLLHUP), rather than only shut down its writing side.
func peerGone(c *net.UnixConn) bool {
	raw, err := c.SyscallConn()
	if err != nil {
		return true
	}
	gone := true
	_ = raw.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(fds, 0); err == nil {
			gone = n > 0 && fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0
		}
	})
	return gone
}
