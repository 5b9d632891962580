package testdaemon

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Alive is false once pid is gone or a zombie: a process that has exited
// but whose parent (a client that has itself exited, tmux) has not reaped
// it yet has stopped all the same.
func Alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		// No /proc (macOS, the BSDs): a zombie then counts as alive.
		return syscall.Kill(pid, 0) == nil
	}
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z'
	}
	return true
}

// LockHolder is the pid of the daemon holding the lock beside sock, or 0
// when none holds it. The lock is tried, not only read: a lock file left by
// a daemon that is gone names a pid that may belong to someone else now.
func LockHolder(sock string) (int, error) {
	path := filepath.Join(filepath.Dir(sock), "askuserd.lock")
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB) == nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return 0, nil
	}
	first, _ := bufio.NewReader(f).ReadString('\n') // pid, then the socket
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 1 {
		return 0, fmt.Errorf("lock file %s holds %q", path, first)
	}
	return pid, nil
}

// StopAutostarted stops the daemon a client started in the background on
// sock (found through its lock, as no test holds its process): SIGTERM,
// then SIGKILL if it has not stopped within Wait, which is then the error.
// No daemon is no error.
func StopAutostarted(sock string) error {
	pid, err := LockHolder(sock)
	if err != nil || pid == 0 {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return nil // gone meanwhile
	}
	for deadline := time.Now().Add(Wait); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !Alive(pid) {
			return nil
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	return fmt.Errorf("autostarted askuserd (pid %d) did not stop within %v of SIGTERM", pid, Wait)
}

// LogBuffer collects a process's output. os/exec copies the output from its
// own goroutine while a test may read it (a failure message), so every
// access takes the lock.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
