package acpproxy

import (
	"askuser/cmd/internal/jsonlines"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"askuser/socketproto"
)

// Stopping the agent: the end of its stdin, then SIGTERM, then SIGKILL to
// its process group (the adapters start the real agent as their child), so
// that the proxy ends within 2 s of its editor's end of input.
const (
	stdinGrace = 1000 * time.Millisecond
	termGrace  = 700 * time.Millisecond
	// drainGrace bounds the wait for the agent's last lines once it exited:
	// a process it left behind may hold its stdout open.
	drainGrace = 200 * time.Millisecond
)

// RunOptions are what Run needs.
type RunOptions struct {
	Argv           []string // the agent's command
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Ask            AskFunc
	Limits         socketproto.Limits
	Agent          socketproto.Agent
}

// Run starts the agent and relays until the editor's input ends, the agent
// ends, or ctx is cancelled (a signal); then it withdraws what still waits
// in askuser and stops the agent. The exit code is the agent's (128+N for
// a signal N), 0 when the proxy stopped it because the editor went away.
func Run(ctx context.Context, o RunOptions) (int, error) {
	// The agent's stderr is copied by a goroutine of os/exec unless it is a
	// file, and the relay writes there too.
	o.Stderr = &lockedWriter{w: o.Stderr}
	cmd := exec.Command(o.Argv[0], o.Argv[1:]...)
	cmd.Stderr = o.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	agentStdin, toAgent, err := os.Pipe()
	if err != nil {
		return 1, err
	}
	defer toAgent.Close()
	fromAgent, agentStdout, err := os.Pipe()
	if err != nil {
		agentStdin.Close()
		return 1, err
	}
	defer fromAgent.Close()
	cmd.Stdin, cmd.Stdout = agentStdin, agentStdout
	err = cmd.Start()
	agentStdin.Close()
	agentStdout.Close()
	if err != nil {
		return 1, fmt.Errorf("starting the agent: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	r := New(Options{ToAgent: toAgent, ToEditor: o.Stdout, Ask: o.Ask, Limits: o.Limits, Agent: o.Agent,
		Fallback: baseName(o.Argv[0]), Stderr: o.Stderr})
	agentDone := make(chan struct{})
	go func() {
		defer close(agentDone)
		if err := jsonlines.Read(fromAgent, func(line []byte) bool { r.FromAgent(line); return true }); err != nil {
			fmt.Fprintf(o.Stderr, "askuser-client acp-proxy: reading the agent: %v\n", err)
		}
	}()
	editorDone := make(chan struct{})
	go func() {
		defer close(editorDone)
		_ = jsonlines.Read(o.Stdin, r.FromEditor)
	}()

	var agentErr error
	ended, stoppedByUs := false, false
	select {
	case agentErr = <-exited:
		ended = true
	case <-editorDone:
		stoppedByUs = true
	case <-ctx.Done():
	}
	// A write to an agent that stopped reading must not hold the stop up.
	_ = toAgent.SetWriteDeadline(time.Now().Add(stdinGrace))
	r.Stop()
	toAgent.Close()
	if !ended {
		var sig os.Signal
		if ctx.Err() != nil {
			sig = syscall.SIGTERM
		}
		agentErr = stop(cmd, exited, sig)
	}
	// The rest of the agent's process group, if any, goes with it.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-agentDone:
	case <-time.After(drainGrace):
	}
	return exitCode(agentErr, stoppedByUs), nil
}

// stop ends the agent: first (sig nil) by the end of its stdin, then SIGTERM,
// then SIGKILL, to its process group.
func stop(cmd *exec.Cmd, exited <-chan error, first os.Signal) error {
	steps := []struct {
		sig   syscall.Signal
		grace time.Duration
	}{{0, stdinGrace}, {syscall.SIGTERM, termGrace}, {syscall.SIGKILL, 0}}
	if first != nil {
		steps = steps[1:]
	}
	for _, s := range steps {
		if s.sig != 0 {
			_ = syscall.Kill(-cmd.Process.Pid, s.sig)
		}
		if s.grace == 0 {
			break
		}
		select {
		case err := <-exited:
			return err
		case <-time.After(s.grace):
		}
	}
	return <-exited
}

// exitCode is the agent's exit status as the proxy's.
func exitCode(err error, stoppedByUs bool) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 1
	}
	if code := ee.ExitCode(); code >= 0 {
		return code
	}
	if stoppedByUs {
		return 0
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return 1
}

// lockedWriter lets the agent's stderr and the proxy's own words share a
// writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
