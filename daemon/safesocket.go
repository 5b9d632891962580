package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"askuser/internal/statefile"
	"askuser/socketproto/peertrust"
)

// LockFileName is the lock held beside the socket for the daemon's lifetime.
const LockFileName = "askuserd.lock"

// ErrAlreadyRunning is wrapped by listenSocket when another daemon holds the lock.
var ErrAlreadyRunning = errors.New("another askuserd is running")

// socketLock is a held flock: the one beside the socket, or the state dir's.
// The file holds the owner's pid and socket.
type socketLock struct {
	f *os.File
}

// release unlocks and closes the lock file. The file itself stays: unlinking
// a flock file lets two later daemons each lock a different inode.
func (l *socketLock) release() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Truncate(0)
	_ = unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	_ = l.f.Close()
	l.f = nil
}

// prepareSocketDir makes the socket's directory (0700, parents as needed) and
// refuses one that another user owns or that others may write to: whoever can
// write there can replace the socket and read every answer. One of the
// user's own that others may only read or enter is tightened to 0700, since
// every client refuses a socket directory open to anyone else (docs/contract.md §2).
func prepareSocketDir(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("creating socket directory: %w", err)
		}
		// MkdirAll is subject to the umask; say exactly what we mean.
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("socket directory %s: %w", dir, err)
		}
	}
	if err := checkSocketDir(dir, os.Getuid()); err != nil {
		return err
	}
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&peertrust.GroupOrOthers != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("socket directory %s: %w", dir, err)
		}
	}
	return nil
}

// checkSocketDir refuses a socket directory that is not ours, or that
// others may write to.
func checkSocketDir(dir string, uid int) error {
	if err := peertrust.CheckDir(dir, uid, 0o022); err != nil {
		if peertrust.IsRefusal(err) {
			return err
		}
		return fmt.Errorf("socket directory: %w", err)
	}
	return nil
}

// lockSocket takes the exclusive lock beside socketPath and writes our pid
// and socket in it.
func lockSocket(socketPath string) (*socketLock, error) {
	path := filepath.Join(filepath.Dir(socketPath), LockFileName)
	l, holder, err := takeLock(path, socketPath)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return nil, fmt.Errorf("%w (%s) on %s", ErrAlreadyRunning, holder.describe(), socketPath)
	}
	return l, err
}

// lockHolder is what a lock file says of the daemon holding it.
type lockHolder struct {
	pid    int // 0 when unknown
	socket string
}

func (h lockHolder) describe() string {
	if h.pid == 0 {
		return "pid unknown"
	}
	return "pid " + strconv.Itoa(h.pid)
}

// takeLock takes the exclusive flock on path and writes our pid and socket
// in it. When another process holds it, the error wraps unix.EWOULDBLOCK and
// holder says who. Only a regular file is used: a FIFO planted at path
// neither blocks the open nor is replaced.
func takeLock(path, socketPath string) (*socketLock, lockHolder, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, lockHolder{}, fmt.Errorf("lock file: %w", err)
	}
	f, _, err := statefile.Open(path, unix.O_RDWR|unix.O_CREAT, 0o600)
	if err != nil {
		return nil, lockHolder{}, lockFileError(path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, readHolder(f), fmt.Errorf("%s is locked: %w", path, err)
		}
		return nil, lockHolder{}, fmt.Errorf("locking %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"+socketPath+"\n"), 0)
	}
	return &socketLock{f: f}, lockHolder{}, nil
}

// lockFileError says why the lock file at path could not be opened.
func lockFileError(path string, err error) error {
	var notRegular *statefile.NotRegularError
	if errors.As(err, &notRegular) {
		return fmt.Errorf("lock file %s is %s, not a regular file; remove it", path, statefile.Kind(notRegular.Mode))
	}
	return fmt.Errorf("lock file %s: %w", path, err)
}

// readHolder reads the pid and socket a lock holder wrote.
func readHolder(f *os.File) lockHolder {
	buf := make([]byte, 4096)
	n, _ := f.ReadAt(buf, 0)
	lines := strings.SplitN(string(buf[:n]), "\n", 3)
	var h lockHolder
	if pid, err := strconv.Atoi(strings.TrimSpace(lines[0])); err == nil && pid > 0 {
		h.pid = pid
	}
	if len(lines) > 1 {
		h.socket = strings.TrimSpace(lines[1])
	}
	return h
}

// ReadLock reports the daemon that holds the lock beside socketPath: its pid
// and whether the lock is held at all (a lock file left by a daemon that
// stopped is not held).
func ReadLock(socketPath string) (pid int, held bool, err error) {
	path := filepath.Join(filepath.Dir(socketPath), LockFileName)
	f, _, err := statefile.Open(path, unix.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, lockFileError(path, err)
	}
	defer f.Close()
	fd := int(f.Fd())
	if err := unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB); err == nil {
		_ = unix.Flock(fd, unix.LOCK_UN)
		return 0, false, nil
	}
	return readHolder(f).pid, true, nil
}

// removeStaleSocket removes what a crashed daemon left at path. Called only
// under the lock, so it can never pull the socket from under a live daemon.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("refusing to replace %s: it exists and is not a socket", path)
	}
	return os.Remove(path)
}

// listenSocket does the socket mechanics of docs/contract.md §2 in order: a private
// directory, the lock, the stale socket, listen, chmod 0600. The caller closes
// the listener and then releases the lock.
func listenSocket(socketPath string) (*net.UnixListener, *socketLock, error) {
	if err := prepareSocketDir(filepath.Dir(socketPath)); err != nil {
		return nil, nil, err
	}
	lock, err := lockSocket(socketPath)
	if err != nil {
		return nil, nil, err
	}
	if err := removeStaleSocket(socketPath); err != nil {
		lock.release()
		return nil, nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: socketPath, Net: "unix"})
	if err != nil {
		lock.release()
		return nil, nil, fmt.Errorf("listening on %s: %w", socketPath, err)
	}
	if err := os.Chmod(socketPath, 0o600); err != nil {
		ln.Close()
		lock.release()
		return nil, nil, fmt.Errorf("socket %s: %w", socketPath, err)
	}
	return ln, lock, nil
}
