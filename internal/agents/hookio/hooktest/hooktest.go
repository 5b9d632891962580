// Package hooktest runs an agent's hook in-process against a daemon's
// socket, as its hook command would with --socket, for the folders' tests:
// config.toml's defaults, a client that never starts a daemon, and no
// signals.
package hooktest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"askuser/internal/agents/hookio"
	"askuser/internal/config"
	"askuser/socketproto/askclient"
)

// Result is how a hook ended: its exit code and what it printed.
type Result struct {
	Code           int
	Stdout, Stderr string
}

// Run runs hook with input on stdin, reaching the daemon at sock.
func Run(hook func(hookio.Env) int, sock string, input []byte) Result {
	var out, errb bytes.Buffer
	cfg := config.Default()
	env := hookio.Env{
		Stdin:  bytes.NewReader(input),
		Stdout: &out,
		Stderr: &errb,
		Config: func() (config.Config, error) { return cfg, nil },
		Client: func() (*askclient.Client, error) {
			return askclient.New(askclient.Options{SocketPath: sock, MaxMessageBytes: cfg.Limits.MaxMessageBytes}), nil
		},
		Signals: func() (context.Context, func() int, func()) {
			return context.Background(), func() int { panic("hooktest: no signal is sent") }, func() {}
		},
	}
	code := hook(env)
	return Result{code, out.String(), errb.String()}
}

// Start runs hook as Run does, in the background; its result comes on the
// channel.
func Start(hook func(hookio.Env) int, sock string, input []byte) <-chan Result {
	ch := make(chan Result, 1)
	go func() { ch <- Run(hook, sock, input) }()
	return ch
}

// Await is the result of a hook Start ran, which must end within the
// given time and with exit 0, as every hook does unless a signal ends it.
func Await(t testing.TB, ch <-chan Result, within time.Duration) Result {
	t.Helper()
	select {
	case r := <-ch:
		if r.Code != hookio.ExitOK {
			t.Fatalf("the hook exited %d; stderr: %s", r.Code, r.Stderr)
		}
		return r
	case <-time.After(within):
		t.Fatalf("the hook did not end within %v", within)
	}
	return Result{}
}
