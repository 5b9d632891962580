package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// The proxy owns the ids of the requests it answers itself
// (docs/contract.md §8): a response from the client to a request it was never
// sent — here, the server's elicitation, which askuser is asking — is
// dropped and said on stderr; the server hears askuser's answer only. A
// response to a request the client was sent (the form askuser cannot ask,
// handed to a client that elicits) still reaches the server.

// lockedWriter lets the test write whole lines to the proxy's stdin between
// the SDK client's own (each of which is one Write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// proxyWithRawStdin starts `askuser-client mcp-proxy args… -- elicitserver`
// with an SDK client on protocol, and returns a writer on the proxy's stdin
// for lines of the test's own.
func proxyWithRawStdin(t *testing.T, e *Env, opts *mcp.ClientOptions, protocol string, args ...string) (*mcpProcess, *lockedWriter) {
	t.Helper()
	rp := startRawProxy(t, e, opts, protocol, args...)
	return rp.mcpProcess, rp.in
}

// rawProxy is a proxy that the test writes lines to beside the SDK client.
type rawProxy struct {
	*mcpProcess
	in *lockedWriter
	// refusals are the proxy's errors with id null (what it refused of
	// the lines written to it), kept from the SDK client, which takes a
	// response without an id for a broken connection.
	refusals <-chan string
	// serverRead is a file of everything the server read from its stdin.
	serverRead string
}

func startRawProxy(t *testing.T, e *Env, opts *mcp.ClientOptions, protocol string, args ...string) *rawProxy {
	t.Helper()
	argv := append(append([]string{"mcp-proxy"}, args...), "--", testenv.ElicitServer(t))
	cmd := exec.Command(testenv.Bin("askuser-client"), argv...)
	serverRead := filepath.Join(t.TempDir(), "server-stdin")
	cmd.Env = append(e.Environ(), "ELICITSERVER_STDIN_LOG="+serverRead)
	p := &mcpProcess{cmd: cmd, stderr: &testdaemon.LogBuffer{}}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in := &lockedWriter{w: stdin}
	t.Cleanup(func() {
		_ = in.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	refusals := make(chan string, 1024)
	toSDK, sdkReads := io.Pipe()
	go func() {
		defer sdkReads.Close()
		br := bufio.NewReader(stdout)
		for {
			line, err := br.ReadBytes('\n')
			var m map[string]json.RawMessage
			if json.Unmarshal(line, &m) == nil && string(m["id"]) == "null" {
				refusals <- string(line)
			} else if len(line) > 0 {
				if _, werr := sdkReads.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "1.0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: toSDK, Writer: in}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connect: %v; stderr:\n%s", err, p.stderr)
	}
	p.cs = cs
	t.Cleanup(func() { _ = cs.Close() })
	return &rawProxy{mcpProcess: p, in: in, refusals: refusals, serverRead: serverRead}
}

// TestMCPProxyDropsClientAnswersToRequestsItWasNotSent: while askuser asks
// the server's form, the client answers it itself ("decline", to every id
// the server could have given it, numbers and strings); the server receives
// askuser's accept.
func TestMCPProxyDropsClientAnswersToRequestsItWasNotSent(t *testing.T) {
	t.Parallel()
	for _, protocol := range proxyProtocols {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			e := NewEnv(t)
			e.StartDaemon()
			events := testenv.Watch(t, e)
			p, in := proxyWithRawStdin(t, e, nil, protocol)
			ch := mcpCallInBackground(context.Background(), p, "configure", map[string]any{})
			added := testdaemon.RecvType(t, events, "request_added", 10*time.Second).(socketproto.RequestAdded).Request
			var lines strings.Builder
			for id := 0; id <= 20; id++ {
				fmt.Fprintf(&lines, `{"jsonrpc":"2.0","id":%d,"result":{"action":"decline"}}`+"\n", id)
				fmt.Fprintf(&lines, `{"jsonrpc":"2.0","id":"%d","result":{"action":"decline"}}`+"\n", id)
			}
			lines.WriteString(`[{"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}]` + "\n")
			if _, err := in.Write([]byte(lines.String())); err != nil {
				t.Fatal(err)
			}
			// Each line is relayed, or dropped, before the next is read.
			testdaemon.Eventually(t, "stderr to say 43 responses were dropped", func() (bool, string) {
				out := p.stderr.String()
				return strings.Count(out, "dropped") >= 43, out
			})
			if m := testenv.AnswerRaw(t, e, added.RequestID, `"blue"`, `3`, `0.5`, `"Yes"`, `"widget"`, `["a"]`, `""`); m.MessageType() != "ok" {
				t.Fatalf("answer: %#v", m)
			}
			if got := elicitedOf(t, p, ch); got.Action != "accept" || got.Content["color"] != "blue" {
				t.Errorf("the server received %+v; want askuser's accept", got)
			}
			if n := strings.Count(p.stderr.String(), "dropped"); n != 43 {
				t.Errorf("stderr says %d responses were dropped, want 43:\n%s", n, p.stderr)
			}
			if !strings.Contains(p.stderr.String(), `response to id 1, a request it was never sent`) {
				t.Errorf("stderr does not say which id and why:\n%s", p.stderr)
			}
		})
	}
}

// TestMCPProxyRelaysClientAnswersToRequestsItWasSent: a sub-agent's proxy
// does not ask; the form goes to a client that elicits, and its answer
// reaches the server.
func TestMCPProxyRelaysClientAnswersToRequestsItWasSent(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	p, _ := proxyWithRawStdin(t, e, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}, "2025-11-25", "--subagent")
	if got := elicitedOf(t, p, mcpCallInBackground(context.Background(), p, "configure", map[string]any{})); got.Action != "decline" {
		t.Errorf("the server received %+v; want the client's decline", got)
	}
	if strings.Contains(p.stderr.String(), "dropped") {
		t.Errorf("stderr:\n%s", p.stderr)
	}
}
