// Package termpane drives the terminal pane as a user would, for the
// end-to-end tests: the real askuserd in a tmux window (Tmux), or the
// pane's own views in-process on a simulation screen (Sim), both talking to
// a real daemon.
package termpane

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// Tmux is the real pane (askuserd, no arguments) running in a detached
// tmux session on a private tmux server.
type Tmux struct {
	t      testing.TB
	Env    *testenv.Env
	Socket string // tmux -L
}

var tmuxSeq atomic.Int64

// StartTmuxPane opens the pane in a w×h tmux window, in e's environment.
func StartTmuxPane(t *testing.T, e *testenv.Env, w, h int, args ...string) *Tmux {
	t.Helper()
	return StartTmux(t, e, w, h, strings.Join(append([]string{testenv.Bin("askuserd")}, args...), " "))
}

// StartTmux runs command (a shell command line) in a new detached tmux session.
func StartTmux(t testing.TB, e *testenv.Env, w, h int, command string) *Tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		testdaemon.Missing(t, "tmux", "apt-get install tmux, or run .ci/run", "tmux is not installed: the pane's end-to-end tests drive the real pane in tmux; install it (apt-get install tmux) or run .ci/run")
	}
	p := &Tmux{t: t, Env: e, Socket: fmt.Sprintf("au-%d-%d", os.Getpid(), tmuxSeq.Add(1))}
	// The tmux server is new (a private -L socket), so it and the pane inherit
	// exactly this environment. TMUX_TMPDIR keeps its socket in the Env.
	p.Tmux("-f", "/dev/null", "new-session", "-d", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), command)
	t.Cleanup(func() {
		pane := exec.Command("tmux", "-L", p.Socket, "display-message", "-p", "#{pane_pid}")
		pane.Env = p.Environ()
		out, _ := pane.Output()
		kill := exec.Command("tmux", "-L", p.Socket, "kill-server")
		kill.Env = p.Environ()
		_ = kill.Run()
		if pid, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil {
			endSession(t, pid)
		}
	})
	return p
}

// endSession ends every process of the session sid — a tmux pane's: tmux
// starts each pane as a session of its own — and waits until they are
// gone. A program the pane ran may outlive the tmux server a moment, and
// write its files (an agent its settings and transcript) into the Env's
// directories after they were removed.
func endSession(t testing.TB, sid int) {
	testdaemon.Eventually(t, fmt.Sprintf("the processes of the pane's session %d to exit", sid), func() (bool, string) {
		pids := sessionProcesses(sid)
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		return len(pids) == 0, fmt.Sprint(pids)
	})
}

// sessionProcesses lists the live processes of the session sid, from /proc
// (none where there is no /proc).
func sessionProcesses(sid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var pids []int
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// After the ")" that ends the command name: state, ppid, pgrp, session.
		i := bytes.LastIndexByte(b, ')')
		fields := strings.Fields(string(b[i+1:]))
		if i < 0 || len(fields) < 4 || fields[0] == "Z" || fields[3] != strconv.Itoa(sid) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Environ is the environment of the pane's tmux server and what it runs.
func (p *Tmux) Environ() []string {
	return p.Env.Environ("TMUX_TMPDIR="+p.Env.Root, "TERM=xterm-256color")
}

// Tmux runs a tmux command on the pane's private server and returns its
// output.
func (p *Tmux) Tmux(args ...string) string {
	p.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-L", p.Socket}, args...)...)
	cmd.Env = p.Environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Capture is the pane's screen now.
func (p *Tmux) Capture() string { return p.Tmux("capture-pane", "-p") }

// WaitFor waits until the screen shows every string.
func (p *Tmux) WaitFor(subs ...string) string {
	p.t.Helper()
	return testdaemon.Eventually(p.t, fmt.Sprintf("the pane to show %q", subs), func() (bool, string) {
		screen := p.Capture()
		return testenv.ContainsAll(screen, subs), screen + "\ndaemon log:\n" + p.Env.DaemonLog()
	})
}

// Keys sends tmux key names (Enter, Escape, Down, Tab, C-c …) once the pane
// has settled: keys that answer are ignored for ui.input_guard after the
// question on screen changes, which the hint line shows as "settling…".
func (p *Tmux) Keys(keys ...string) {
	p.t.Helper()
	p.WaitGone("settling…")
	p.RawKeys(keys...)
}

// RawKeys sends keys at once, settling or not.
func (p *Tmux) RawKeys(keys ...string) {
	p.t.Helper()
	p.Tmux(append([]string{"send-keys"}, keys...)...)
}

// TypeText sends literal text once the pane has settled.
func (p *Tmux) TypeText(s string) {
	p.t.Helper()
	p.WaitGone("settling…")
	p.Tmux("send-keys", "-l", s)
}

// Paste hands text to the pane as the terminal's bracketed paste, the way a
// user's paste arrives (tmux paste-buffer -p).
func (p *Tmux) Paste(text string) {
	p.t.Helper()
	p.WaitGone("settling…") // a paste is typing: not taken while settling
	f := filepath.Join(p.Env.Root, "paste.txt")
	if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
		p.t.Fatal(err)
	}
	p.Tmux("load-buffer", f)
	p.Tmux("paste-buffer", "-p", "-d")
}

// WaitGone waits until the screen no longer shows sub.
func (p *Tmux) WaitGone(sub string) {
	p.t.Helper()
	testdaemon.Eventually(p.t, fmt.Sprintf("the pane to stop showing %q", sub), func() (bool, string) {
		screen := p.Capture()
		return !strings.Contains(screen, sub), screen
	})
}

// Pid is the pane process's pid.
func (p *Tmux) Pid() int {
	p.t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(p.Tmux("display-message", "-p", "#{pane_pid}")))
	if err != nil {
		p.t.Fatal(err)
	}
	return n
}
