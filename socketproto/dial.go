package socketproto

import (
	"errors"
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Stream is what a Conn runs over: a connected Unix socket, with deadlines.
// A client's is an *os.File (dialUnix); the daemon's a net.Conn.
type Stream interface {
	io.ReadWriteCloser
	SetDeadline(t time.Time) error
	SetReadDeadline(t time.Time) error
	SetWriteDeadline(t time.Time) error
}

// dialUnix connects to the Unix socket at path with the system calls
// themselves rather than through package net: a client that imports net (or
// os/user) is linked with cgo wherever a C compiler is at hand, as
// `go install ./cmd/...` builds it, and a dynamically linked askuser-client
// starts markedly slower — and the hooks start it for every prompt. The
// socket is non-blocking, so the returned *os.File is pollable: its reads
// and writes park the goroutine, and its deadlines work.
//
// Errors read as net.Dial's did ("dial unix PATH: connect: no such file or
// directory") and wrap the errno, so errors.Is(err, syscall.ENOENT) holds.
func dialUnix(path string, timeout time.Duration) (*os.File, error) {
	fd, err := socketCloexec()
	if err != nil {
		return nil, &dialError{path, os.NewSyscallError("socket", err)}
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, &dialError{path, os.NewSyscallError("setnonblock", err)}
	}
	if err := connectBy(fd, path, time.Now().Add(timeout)); err != nil {
		unix.Close(fd)
		return nil, &dialError{path, err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// socketCloexec makes a Unix stream socket that no child process inherits.
// Where SOCK_CLOEXEC is not a socket(2) flag (macOS), fork is held off
// between the socket and its close-on-exec flag, as package net does.
func socketCloexec() (int, error) {
	if sockCloexec != 0 {
		return unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|sockCloexec, 0)
	}
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	return fd, err
}

// connectBy connects the non-blocking socket fd to path by deadline. A
// listener whose backlog is full answers EAGAIN (Linux) or EINPROGRESS
// (BSD): the connection is then tried again, or waited for, until the
// deadline.
func connectBy(fd int, path string, deadline time.Time) error {
	sa := &unix.SockaddrUnix{Name: path}
	for {
		err := unix.Connect(fd, sa)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN):
			if time.Now().After(deadline) {
				return os.NewSyscallError("connect", unix.ETIMEDOUT)
			}
			time.Sleep(5 * time.Millisecond)
			continue
		case errors.Is(err, unix.EINPROGRESS):
			return awaitConnect(fd, deadline)
		}
		return os.NewSyscallError("connect", err)
	}
}

// awaitConnect waits until a connect in progress on fd ends, by deadline.
func awaitConnect(fd int, deadline time.Time) error {
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return os.NewSyscallError("connect", unix.ETIMEDOUT)
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		n, err := unix.Poll(fds, int(left/time.Millisecond)+1)
		if errors.Is(err, unix.EINTR) || err == nil && n == 0 {
			continue
		}
		if err != nil {
			return os.NewSyscallError("poll", err)
		}
		soerr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
		if err != nil {
			return os.NewSyscallError("getsockopt", err)
		}
		if soerr != 0 {
			return os.NewSyscallError("connect", syscall.Errno(soerr))
		}
		return nil
	}
}

// dialError is a failed dial, worded as net.Dial words it.
type dialError struct {
	path string
	err  error
}

func (e *dialError) Error() string { return "dial unix " + e.path + ": " + e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }
