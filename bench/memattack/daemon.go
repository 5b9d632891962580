package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"askuser/bench/internal/proc"
)

// daemon is askuserd serve on a temporary XDG tree, run through prlimit
// (which execs it, so the pid is the daemon's), with its peak RSS sampled
// while it lives: once it is gone, /proc no longer has it.
type daemon struct {
	cmd     *exec.Cmd
	sock    string
	pid     int
	asLimit int // bytes of address space; 0 for none
	log     *logTail
	peakKB  atomic.Int64 // VmHWM: the most resident memory
	peakVM  atomic.Int64 // VmPeak: the most address space, which prlimit --as bounds

	exited  chan struct{} // closed when the process has ended
	waitErr error         // how it ended; set before exited is closed
	quit    chan struct{} // stops the sampler
	sampled sync.WaitGroup
}

// startDaemon starts askuserd and waits until it answers. When it dies
// before that, it returns the dead daemon with the error, so that the death
// can be reported like any other.
func startDaemon(prlimit string, asLimit int, bin, root string, env []string, showLog bool) (*daemon, error) {
	for _, dir := range []string{"run", "state", "config"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o700); err != nil {
			return nil, err
		}
	}
	args := []string{bin, "serve", "--log-level", "warn"}
	if asLimit > 0 {
		args = append([]string{prlimit, fmt.Sprintf("--as=%d", asLimit), "--"}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.SysProcAttr = proc.DiesWithUs()
	cmd.Env = append(os.Environ(),
		"XDG_RUNTIME_DIR="+filepath.Join(root, "run"),
		"XDG_STATE_HOME="+filepath.Join(root, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(root, "config"),
		"ASKUSER_SOCKET=")
	cmd.Env = append(cmd.Env, env...)
	d := &daemon{cmd: cmd, asLimit: asLimit, sock: filepath.Join(root, "run", "askuser", "askuserd.sock"),
		log: &logTail{echo: showLog}, exited: make(chan struct{}), quit: make(chan struct{})}
	cmd.Stderr = d.log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	d.pid = cmd.Process.Pid
	go func() { d.waitErr = cmd.Wait(); close(d.exited) }()
	d.sampled.Add(1)
	go d.sample(d.quit)
	if err := d.waitReady(); err != nil {
		d.stop()
		return d, err
	}
	return d, nil
}

// waitReady waits for the socket, then checks that the process answering
// is askuserd itself and carries the limit.
func (d *daemon) waitReady() error {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if nc, err := net.Dial("unix", d.sock); err == nil {
			nc.Close()
			break
		}
		if !d.alive() || time.Now().After(deadline) {
			return fmt.Errorf("askuserd did not answer on %s (%s)", d.sock, d.exitText())
		}
	}
	comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", d.pid))
	limits, _ := os.ReadFile(fmt.Sprintf("/proc/%d/limits", d.pid))
	if strings.TrimSpace(string(comm)) != "askuserd" {
		return fmt.Errorf("pid %d is %q, not askuserd: prlimit did not exec it", d.pid, comm)
	}
	for _, l := range strings.Split(string(limits), "\n") {
		if d.asLimit > 0 && strings.HasPrefix(l, "Max address space") && !strings.Contains(l, fmt.Sprint(d.asLimit)) {
			return fmt.Errorf("askuserd runs without its address-space limit: %s", l)
		}
	}
	return nil
}

// sample keeps the last VmHWM seen: the peak as long as the process lives,
// and the peak until shortly before it died otherwise.
func (d *daemon) sample(quit <-chan struct{}) {
	defer d.sampled.Done()
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		d.sampleNow()
		select {
		case <-t.C:
		case <-quit:
			return
		case <-d.exited:
			return
		}
	}
}

func (d *daemon) sampleNow() {
	raise(&d.peakKB, d.pid, "VmHWM")
	raise(&d.peakVM, d.pid, "VmPeak")
}

// raise stores the field's value in v if it is higher. Between a kill and
// its reaping /proc may show a zeroed status, hence never lower.
func raise(v *atomic.Int64, pid int, field string) {
	kb, err := proc.StatusKB(pid, field)
	if err != nil {
		return
	}
	for old := v.Load(); int64(kb) > old && !v.CompareAndSwap(old, int64(kb)); old = v.Load() {
	}
}

func (d *daemon) alive() bool {
	select {
	case <-d.exited:
		return false
	default:
		return true
	}
}

// exitText says how the process ended, as exec reports it.
func (d *daemon) exitText() string {
	if d.alive() {
		return "still running"
	}
	if d.waitErr == nil {
		return "exit status 0"
	}
	return d.waitErr.Error()
}

func (d *daemon) stop() {
	if d.quit == nil {
		return // stopped already
	}
	close(d.quit)
	d.quit = nil
	d.sampled.Wait()
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(10 * time.Second):
		_ = d.cmd.Process.Kill()
		<-d.exited
	}
}

// logTail takes the daemon's stderr and keeps its first line, its last
// few, and what a Go crash says about why and where (the first lines of a
// crash and the running goroutine's top frames), so that a death can be
// shown without the whole goroutine dump or every warning.
type logTail struct {
	echo bool

	mu      sync.Mutex
	partial []byte
	n       int
	first   string
	tail    []string
	crash   []string
	frames  int // lines of the running goroutine's stack still to keep
}

// crashPrefixes begin the lines in which the Go runtime says why it died.
var crashPrefixes = []string{"fatal error:", "panic:", "runtime:", "runtime/cgo:", "SIG"}

const crashLines = 30

const tailLines = 8

func (l *logTail) Write(p []byte) (int, error) {
	if l.echo {
		_, _ = os.Stderr.Write(p)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.add(string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	return len(p), nil
}

func (l *logTail) add(s string) {
	if l.n == 0 {
		l.first = s
	}
	l.n++
	l.tail = append(l.tail, s)
	if len(l.tail) > tailLines {
		l.tail = l.tail[1:]
	}
	if s == "" {
		l.frames = 0 // a blank line ends a goroutine's stack
	}
	keep := l.frames > 0
	if keep {
		l.frames--
	}
	for _, p := range crashPrefixes {
		if strings.HasPrefix(s, p) && !strings.HasPrefix(s, "runtime: g ") {
			keep = true
		}
	}
	if strings.HasPrefix(s, "goroutine ") && strings.Contains(s, "[running]") && l.frames == 0 {
		keep, l.frames = true, 12
	}
	if keep && len(l.crash) < crashLines {
		l.crash = append(l.crash, s)
	}
}

func (l *logTail) summary() (int, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n, l.first
}

// last is what a crash said, if the log has one, or else the last lines,
// an unfinished one included.
func (l *logTail) last() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.crash) > 0 {
		return append([]string(nil), l.crash...)
	}
	out := append([]string(nil), l.tail...)
	if len(l.partial) > 0 {
		out = append(out, string(l.partial))
	}
	return out
}

var _ io.Writer = (*logTail)(nil)

// printLog shows how much the daemon logged and its first line, and with
// tail its last lines too (where a crash says why).
func (d *daemon) printLog(tail bool) {
	if n, first := d.log.summary(); n > 0 {
		fmt.Printf("  daemon log: %d lines, the first: %s\n", n, first)
	}
	if tail {
		for _, l := range d.log.last() {
			fmt.Println("  daemon log tail:", l)
		}
	}
}
