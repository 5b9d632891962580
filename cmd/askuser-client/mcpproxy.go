package main

import (
	"askuser/cmd/internal/jsonlines"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	runner "askuser/cmd/internal/command"
	"askuser/socketproto"
	"askuser/socketproto/askclient"
)

// How long a server is given to exit once its stdin is closed, and then
// once it is sent SIGTERM, before the next step (MCP's stdio shutdown).
const proxyStopGrace = 2 * time.Second

// mcpProxyCommand runs an stdio MCP server behind a relay that answers the
// server's elicitations in askuser (docs/contract.md §8). It is not built on the MCP SDK:
// it relays lines, so every message it does not answer reaches the other
// side as it was sent.
var mcpProxyCommand = command{
	name:     "mcp-proxy",
	summary:  "run an stdio MCP server and answer its elicitation forms in askuser",
	synopsis: "mcp-proxy [--agent-id ID] [--subagent] [flags] -- COMMAND [ARG…]",
	daemon:   startDaemon,
	raw:      true, // flags end at "--" or the server's command; its own flags are its own
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		agentID := fs.String("agent-id", "", "the agent id questions are asked under (default: $ASKUSER_AGENT_ID, else the MCP client's name and this process's id)")
		subagent := fs.Bool("subagent", false, "the proxy serves a sub-agent: its elicitations are not asked (also ASKUSER_SUBAGENT=1)")
		// Here an unreachable daemon is the server's error, not an exit code.
		fs.Lookup("no-autostart").Usage = "do not start askuserd when none answers: elicitations then fail with an error saying how to start it"
		flagsUsage := fs.Usage
		fs.Usage = func() {
			flagsUsage()
			fmt.Fprint(fs.Output(), mcpProxyHelp)
		}
		return func(x *invocation) error {
			if err := runner.Parse(fs, x.args, x.stdout, "askuser-client mcp-proxy"); err != nil {
				if errors.Is(err, flag.ErrHelp) {
					return exitStatus(exitOK)
				}
				return exitStatus(exitUsage)
			}
			argv := fs.Args()
			if len(argv) == 0 {
				return usagef("want the MCP server's command: askuser-client mcp-proxy -- COMMAND [ARG…]")
			}
			r, err := x.resolve()
			if err != nil {
				return err
			}
			agent := askclient.AgentFromEnv()
			if *agentID != "" {
				agent.ID = *agentID
			}
			if *subagent {
				agent.Subagent = true
			}
			return runProxy(x, r, agent, argv)
		}
	},
}

const mcpProxyHelp = `
Runs COMMAND, an MCP server on stdio, and relays every message between it and
the MCP client that started this proxy, unchanged, except:
  - the client's initialize request tells the server the client can elicit
    (forms and URLs), so servers that ask their user do;
  - the server's elicitation/create requests are answered here, in askuser:
    each field of the form is a typed question (enums as options, booleans as
    Yes / No, numbers and strings with their rules, defaults pre-filled); the
    answers go back with their JSON types. Declining in askuser declines the
    form; a form withdrawn (the client quits, the proxy is stopped) is
    cancelled. A URL is shown, never opened: you are asked whether you
    finished there;
  - the client's lines reach the server only as JSON-RPC messages it may
    send: a line that is not JSON gets a parse error back, and an answer
    to a request the client was never sent (keys are matched case-exactly)
    is dropped.
Even when the MCP client can elicit itself, forms are answered in askuser; the
client's own form is used only when askuserd cannot be reached or the form
has a field askuser cannot ask.

Wrap a configured server: askuser-client integrate claude|gemini --wrap NAME
`

// runProxy runs the server and relays until the client goes away, the
// server exits, or the proxy is told to stop. The exit status is the
// server's when it ended the session.
func runProxy(x *invocation, res resolved, agent socketproto.Agent, argv []string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	var got os.Signal
	go func() {
		select {
		case got = <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()
	// A client that goes away closes our stdout: a write to it must fail
	// with EPIPE, not kill the proxy before it withdrew its questions and
	// stopped its server.
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)

	cmd, serverIn, serverOut, err := startServer(argv, x.stderr)
	if err != nil {
		return err
	}
	defer serverIn.Close()
	defer serverOut.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	client := askclient.New(res.Client)
	r := &relay{
		toClient: jsonlines.NewWriter(x.stdout),
		toServer: jsonlines.NewWriter(serverIn),
		ask: func(ctx context.Context, req socketproto.AskUserRequest) (socketproto.Response, error) {
			return client.Ask(ctx, req, nil)
		},
		limits:    res.Config.Limits,
		agent:     agent,
		pid:       strconv.Itoa(os.Getpid()),
		server:    filepath.Base(argv[0]),
		autostart: res.Client.Autostart,
		stderr:    x.stderr,
	}
	serverDone := make(chan struct{})
	go func() {
		defer close(serverDone)
		if err := r.fromServer(ctx, serverOut); err != nil {
			fmt.Fprintf(x.stderr, "askuser-client mcp-proxy: reading the server: %v\n", err)
		}
	}()
	// clientEnded closes when the client's input ends, even while a line of
	// it waits for a server that stopped reading; relayDone when nothing
	// more can go to the server.
	clientEnded := make(chan struct{})
	relayDone := make(chan struct{})
	go func() {
		defer close(relayDone)
		_ = r.fromClient(x.stdin, clientEnded)
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
	if ctx.Err() != nil {
		return exitStatus(signalExit(got)) // got is written before ctx is cancelled
	}
	return proxyExit(clientEnded, serverEnded)
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
func proxyExit(clientDone <-chan struct{}, serverEnded error) error {
	select {
	case <-clientDone:
		return nil
	default:
	}
	var ee *exec.ExitError
	if errors.As(serverEnded, &ee) {
		if code := ee.ExitCode(); code > 0 {
			return exitStatus(code)
		}
		return exitStatus(exitFailed)
	}
	return nil
}
