// Package testenv is the harness the end-to-end packages (tests, tests/web,
// tests/agents) share: the real binaries, built once per package by Main,
// and Env, one isolated user (its own runtime, state and config dirs) that
// runs them; with what several of those packages wait on (a request queued,
// a client finished, the pending file listing a request). It knows askuser
// only from outside, as a user and an agent do.
package testenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
)

// binDir holds askuserd, askuser-client and askuser-mcp, built once for
// the whole run of a package's tests.
var binDir string

// Main is the body of an end-to-end package's TestMain: it builds the
// binaries once, runs the tests, removes the binaries and reports what was
// skipped under pkg, the package's import path.
func Main(m *testing.M, pkg string) int {
	dir, err := os.MkdirTemp("", "askuser-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	binDir = dir
	defer os.RemoveAll(dir)
	if err := testdaemon.Build(dir, true, "askuser/cmd/askuserd", "askuser/cmd/askuser-client", "askuser/cmd/askuser-mcp"); err != nil {
		fmt.Fprintln(os.Stderr, "building binaries:", err)
		return 1
	}
	code := m.Run()
	testdaemon.ReportSkips(pkg)
	return code
}

// Bin is the path of one of the binaries Main built.
func Bin(name string) string { return filepath.Join(binDir, name) }

// BinDir is the directory of the binaries Main built, as a PATH entry.
func BinDir() string { return binDir }

// Env is one isolated user environment: its own runtime, state and config dirs.
type Env struct {
	T         *testing.T
	Root      string
	Runtime   string
	State     string
	Config    string
	Socket    string
	Pending   string
	Daemon    *exec.Cmd // what StartDaemon started; a test that stops it itself sets it to nil
	daemonLog *testdaemon.LogBuffer
	logs      logWatch // what this Env's logs must not hold (logs.go)
}

// New makes the temporary directories; nothing runs yet.
func New(t *testing.T) *Env {
	t.Helper()
	// Unix socket paths are limited to ~108 bytes: keep the root short.
	root, err := os.MkdirTemp("", "au-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	e := &Env{T: t, Root: root,
		Runtime: filepath.Join(root, "run"),
		State:   filepath.Join(root, "state"),
		Config:  filepath.Join(root, "config"),
	}
	for _, d := range []string{e.Runtime, e.State, e.Config} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e.Socket = filepath.Join(e.Runtime, "askuser", "askuserd.sock")
	e.Pending = filepath.Join(e.State, "askuser", "pending-questions.json")
	// Registered between the RemoveAll above and stopStrayDaemon below: it
	// runs once every process of the Env stopped, before the files go.
	t.Cleanup(e.checkLogs)
	// Registered after the RemoveAll above, so it runs first.
	t.Cleanup(e.stopStrayDaemon)
	t.Cleanup(func() {
		if t.Failed() && e.DaemonLog() != "" {
			t.Logf("askuserd's output:\n%s", e.DaemonLog())
		}
	})
	return e
}

// stopStrayDaemon ends a daemon that some client of this Env started in the
// background (autostart) and the test did not stop. No test leaves a daemon
// running on a deleted directory.
func (e *Env) stopStrayDaemon() { _ = testdaemon.StopAutostarted(e.Socket) }

// StopAutostarted stops the daemon a client of this Env started in the
// background; one that does not stop on SIGTERM fails the test.
func (e *Env) StopAutostarted() {
	if err := testdaemon.StopAutostarted(e.Socket); err != nil {
		e.T.Error(err)
	}
}

// WantAutostartedInRoot checks that the daemon a client or pane started in
// the background runs in /, not in the directory of whoever started it
// (which it would keep busy for as long as it runs).
func (e *Env) WantAutostartedInRoot() {
	e.T.Helper()
	pid, err := testdaemon.LockHolder(e.Socket)
	if err != nil || pid == 0 {
		e.T.Fatalf("no daemon holds the lock beside %s (%v)", e.Socket, err)
	}
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	if err != nil {
		return // no /proc here
	}
	if cwd != "/" {
		e.T.Errorf("the autostarted daemon runs in %s, want /", cwd)
	}
}

// Environ is the process environment for binaries in this Env.
func (e *Env) Environ(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "XDG_") || strings.HasPrefix(kv, "ASKUSER_") || strings.HasPrefix(kv, "TMUX") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"XDG_RUNTIME_DIR="+e.Runtime,
		"XDG_STATE_HOME="+e.State,
		"XDG_CONFIG_HOME="+e.Config,
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"),
	)
	return append(env, extra...)
}

// WriteConfig writes config.toml for this Env.
func (e *Env) WriteConfig(text string) {
	e.T.Helper()
	dir := filepath.Join(e.Config, "askuser")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		e.T.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(text), 0o600); err != nil {
		e.T.Fatal(err)
	}
}

// StartDaemon runs `askuserd serve` and waits until its socket answers. The
// daemon is stopped (SIGTERM, then SIGKILL) when the test ends.
func (e *Env) StartDaemon(extraArgs ...string) {
	e.T.Helper()
	e.Daemon, e.daemonLog = testdaemon.StartBinary(e.T, Bin("askuserd"), e.Environ(), e.Socket, extraArgs...)
	e.T.Cleanup(e.StopDaemon)
}

// StopDaemon sends SIGTERM and waits for the daemon to exit; anything but
// a clean stop fails the test — except the stop the contract allows on a
// machine so busy that the clean stop took longer than its 2 s (§2: it
// says so and exits 1; every acknowledged change is already written). The
// tests of stopping itself (tests/stop_test.go, tests/fifo_state_test.go)
// hold the clean stop.
func (e *Env) StopDaemon() {
	if e.Daemon == nil || e.Daemon.Process == nil {
		return
	}
	cmd := e.Daemon
	e.Daemon = nil
	if err := testdaemon.StopBinary(cmd); err != nil {
		if strings.Contains(e.DaemonLog(), "not stopped cleanly within") {
			e.T.Logf("%v: the stop past its deadline that §2 allows on a busy machine", err)
			return
		}
		e.T.Errorf("%v; output:\n%s", err, e.daemonLog)
	}
}

// DaemonLog is what the daemon printed so far.
func (e *Env) DaemonLog() string {
	if e.daemonLog == nil {
		return ""
	}
	return e.daemonLog.String()
}

// Dial connects to the daemon.
func (e *Env) Dial() *socketproto.Conn {
	e.T.Helper()
	return testdaemon.Dial(e.T, e.Socket)
}

// Client runs askuser-client with args and stdin; it returns stdout, stderr and
// the exit code.
func (e *Env) Client(stdin string, args ...string) (string, string, int) {
	e.T.Helper()
	cmd := exec.Command(Bin("askuser-client"), args...)
	cmd.Env = e.Environ()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.T.Fatalf("askuser-client %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// StartClient starts askuser-client in the background; the caller waits on it.
// It is killed when the test ends if still running.
func (e *Env) StartClient(stdin string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	e.T.Helper()
	cmd := exec.Command(Bin("askuser-client"), args...)
	cmd.Env = e.Environ()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		e.T.Fatal(err)
	}
	e.T.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, &out, &errb
}

// The race runtime sleeps a second at every exit (GORACE atexit_sleep_ms,
// default 1000) so that late reports can flush; with dozens of short-lived
// client processes per test that second dominates the suite. Race reports are
// still written when found.
func init() {
	if !strings.Contains(os.Getenv("GORACE"), "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	}
}

// KillDaemon ends askuserd with SIGKILL: no shutdown code runs, as in a crash.
func (e *Env) KillDaemon() {
	e.T.Helper()
	cmd := e.Daemon
	if cmd == nil {
		e.T.Fatal("no daemon to kill")
	}
	e.Daemon = nil
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
}

// StateFile is the path of one of askuser's files in the state dir.
func (e *Env) StateFile(name string) string { return filepath.Join(e.State, "askuser", name) }
