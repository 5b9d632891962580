package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"askuser/cmd/internal/clientflags"
	runner "askuser/cmd/internal/command"
	"askuser/socketproto"
	"askuser/socketproto/agenttext"
	"askuser/socketproto/askclient"
)

// connFlags are the flags every command that talks to the daemon shares
// (shared with askuser-mcp).
type connFlags = clientflags.Conn

// resolved is what a command needs to reach the daemon.
type resolved = clientflags.Resolved

// signalContext is cancelled by SIGINT or SIGTERM; sig reports which.
func signalContext() (ctx context.Context, sig func() os.Signal, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	var got os.Signal
	done := make(chan struct{})
	go func() {
		select {
		case got = <-ch:
			cancel()
		case <-done:
		}
	}()
	return ctx, func() os.Signal { <-ctx.Done(); return got }, func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
}

// signalExit is the conventional status of a command ended by a signal.
func signalExit(s os.Signal) int { return runner.SignalExit(s) }

// failure reports err on stderr and maps it to an exit code, as the runner
// does for an error a command returns.
func failure(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "askuser-client %s: %v\n", cmd, err)
	return exitCode(err)
}

// exitCode is a failure's exit code: unreachable or lost connections are
// 4, everything else (refusals included) 1.
func exitCode(err error) int {
	if errors.Is(err, askclient.ErrUnreachable) || errors.Is(err, askclient.ErrConnectionLost) {
		return exitUnreachable
	}
	return exitFailed
}

// writeJSON prints v indented, as people and jq both read it. Agent text
// in it passes the one sanitiser's JSON form (docs/contract.md §6
// "Untrusted text"): a bidi control is written as its \u escape, the same
// value to jq, visible to a person.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = append(agenttext.EscapeJSON(b), '\n')
	_, err = w.Write(b)
	return err
}

// writeProtoError prints a daemon error as its wire object ("type":"error"
// included, so a script tells it from a result at a glance).
func writeProtoError(w io.Writer, e *socketproto.Error) {
	b, err := socketproto.Encode(e)
	if err != nil {
		return
	}
	var out bytes.Buffer
	if json.Indent(&out, bytes.TrimSpace(b), "", "  ") == nil {
		out.WriteByte('\n')
		_, _ = w.Write(out.Bytes())
	}
}
