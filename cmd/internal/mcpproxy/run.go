// Package mcpproxy is `askuser-client mcp-proxy` (docs/contract.md §8):
// it runs an stdio MCP server behind a relay that answers the server's
// elicitations in askuser. It is not built on the MCP SDK: it relays
// lines, so every message it does not answer reaches the other side as it
// was sent. It is the client's own, not an agent's: it serves whichever
// agent starts the server. The command's flags are askuser-client's.
package mcpproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"askuser/cmd/internal/command"
	"askuser/cmd/internal/jsonlines"
	"askuser/socketproto"
)

// How long a server is given to exit once its stdin is closed, and then
// once it is sent SIGTERM, before the next step (MCP's stdio shutdown).
const proxyStopGrace = 2 * time.Second

// Options are what Run needs.
type Options struct {
	Argv           []string // the MCP server's command
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Ask asks the daemon and waits; a cancelled ctx withdraws the
	// question.
	Ask    func(ctx context.Context, req socketproto.AskUserRequest) (socketproto.Response, error)
	Limits socketproto.Limits
	// Agent is who asks, from the environment and flags; its name and id
	// are filled per form.
	Agent socketproto.Agent
	// Autostart: whether the daemon is started when none runs, for the
	// hint an unreachable daemon gets.
	Autostart bool
}

// Run runs the server and relays until the client goes away, the server
// exits, or ctx ends (a signal); then it withdraws what still waits in
// askuser and stops the server. The exit code is 0 when the client ended
// the session, else the server's own; after ctx ended it is the caller's
// to say. An error is a server that did not start.
func Run(ctx context.Context, o Options) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	cmd, serverIn, serverOut, err := startServer(o.Argv, o.Stderr)
	if err != nil {
		return command.ExitFailed, err
	}
	defer serverIn.Close()
	defer serverOut.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	r := &relay{
		toClient:  jsonlines.NewWriter(o.Stdout),
		toServer:  jsonlines.NewWriter(serverIn),
		ask:       o.Ask,
		limits:    o.Limits,
		agent:     o.Agent,
		pid:       strconv.Itoa(os.Getpid()),
		server:    filepath.Base(o.Argv[0]),
		autostart: o.Autostart,
		stderr:    o.Stderr,
	}
	serverDone := make(chan struct{})
	go func() {
		defer close(serverDone)
		if err := r.fromServer(ctx, serverOut); err != nil {
			fmt.Fprintf(o.Stderr, "askuser-client mcp-proxy: reading the server: %v\n", err)
		}
	}()
	// clientEnded closes when the client's input ends, even while a line of
	// it waits for a server that stopped reading; relayDone when nothing
	// more can go to the server.
	clientEnded := make(chan struct{})
	relayDone := make(chan struct{})
	go func() {
		defer close(relayDone)
		_ = r.fromClient(o.Stdin, clientEnded)
	}()

	var serverEnded error
	ended := false
	select {
	case <-clientEnded: // the client went away: stop the server
	case <-relayDone: // the server's stdin is gone
	case <-serverDone: // the server closed its stdout, so it is ending
	case serverEnded = <-exited:
		ended = true
	case <-ctx.Done():
	}
	// Questions still waiting are withdrawn, and the server hears "cancel"
	// for each while it still reads — for a moment: a server that stopped
	// reading must not hold the proxy up.
	_ = serverIn.SetWriteDeadline(time.Now().Add(proxyStopGrace))
	r.withdrawAll()
	serverIn.Close()
	if !ended {
		serverEnded = stopServer(cmd, exited)
	}
	// What the server wrote last still reaches the client, unless a
	// process it left behind holds its stdout open.
	select {
	case <-serverDone:
	case <-time.After(proxyStopGrace):
	}
	return proxyExit(clientEnded, serverEnded), nil
}

// startServer starts the MCP server argv with pipes of our own: in, its
// stdin, so that a write to a server that stopped reading can be given a
// deadline and stopping never waits on it; out, its stdout, rather than
// StdoutPipe's, so that waiting for the server never closes what is still
// being relayed.
func startServer(argv []string, stderr io.Writer) (cmd *exec.Cmd, in, out *os.File, err error) {
	cmd = exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = stderr
	serverStdin, in, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	cmd.Stdin = serverStdin
	out, pw, err := os.Pipe()
	if err != nil {
		serverStdin.Close()
		in.Close()
		return nil, nil, nil, err
	}
	cmd.Stdout = pw
	err = cmd.Start()
	pw.Close()
	serverStdin.Close()
	if err != nil {
		in.Close()
		out.Close()
		return nil, nil, nil, fmt.Errorf("starting the MCP server: %v", err)
	}
	return cmd, in, out, nil
}

// stopServer lets the server exit on the end of its stdin, then sends
// SIGTERM, then SIGKILL, each after proxyStopGrace.
func stopServer(cmd *exec.Cmd, exited <-chan error) error {
	for _, sig := range []os.Signal{nil, syscall.SIGTERM, os.Kill} {
		if sig != nil {
			_ = cmd.Process.Signal(sig)
		}
		select {
		case err := <-exited:
			return err
		case <-time.After(proxyStopGrace):
		}
	}
	return <-exited
}

// proxyExit is the proxy's exit status: 0 when the client ended the
// session, else the server's own.
func proxyExit(clientDone <-chan struct{}, serverEnded error) int {
	select {
	case <-clientDone:
		return command.ExitOK
	default:
	}
	var ee *exec.ExitError
	if errors.As(serverEnded, &ee) {
		if code := ee.ExitCode(); code > 0 {
			return code
		}
		return command.ExitFailed
	}
	return command.ExitOK
}
