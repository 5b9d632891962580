package tests

import (
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// End to end: `askuser-client mcp-proxy -- elicitserver`, driven by the
// SDK's client the way an agent drives an MCP server; the server's
// elicitations are answered through the daemon's socket.

// Protocol versions the proxy is tested with: the stateless one, where a
// server elicits by answering a call with input requests (SEP-2322), and
// the last before it, where it sends elicitation/create.
var proxyProtocols = []string{"2026-07-28", "2025-11-25"}

// proxySpawn starts `askuser-client mcp-proxy args… -- elicitserver` in e and
// connects to it as clientName with opts, asking for protocol version.
func proxySpawn(t *testing.T, e *Env, clientName string, opts *mcp.ClientOptions, protocol string, args ...string) *mcpProcess {
	t.Helper()
	argv := append([]string{"mcp-proxy"}, args...)
	cmd := exec.Command(testenv.Bin("askuser-client"), append(argv, "--", testenv.ElicitServer(t))...)
	cmd.Env = e.Environ()
	return mcpConnect(t, cmd, clientName, opts, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
}

// elicited is what the eliciting server received, as its tool reports it.
type elicited struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content"`
	Error   string         `json:"error"`
}

func elicitedOf(t *testing.T, p *mcpProcess, ch <-chan mcpOutcome) elicited {
	t.Helper()
	res := mcpResultOf(t, p, ch)
	var got elicited
	if err := json.Unmarshal([]byte(mcpFirstText(t, res)), &got); err != nil {
		t.Fatalf("the server's result %q: %v", mcpFirstText(t, res), err)
	}
	return got
}

func TestMCPProxyRelaysAndAcceptsEveryFieldKind(t *testing.T) {
	t.Parallel()
	for _, protocol := range proxyProtocols {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			testProxyAccepts(t, protocol)
		})
	}
}

func testProxyAccepts(t *testing.T, protocol string) {
	e := NewEnv(t)
	e.StartDaemon()
	events := testenv.Watch(t, e)
	p := proxySpawn(t, e, "proxy-test", nil, protocol)
	if got := p.cs.InitializeResult().ProtocolVersion; got != protocol {
		t.Fatalf("negotiated protocol %s, want %s", got, protocol)
	}

	// What is not an elicitation passes through: the server's tools, a
	// plain call and its result.
	tools, err := p.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 3 {
		t.Fatalf("tools: %+v", tools.Tools)
	}
	res := mcpResultOf(t, p, mcpCallInBackground(context.Background(), p, "echo", map[string]any{"x": "é\u2028"}))
	if got := mcpFirstText(t, res); got != `{"x":"é\u2028"}` {
		t.Errorf("echo = %q", got)
	}

	ch := mcpCallInBackground(context.Background(), p, "configure", map[string]any{})
	added := testdaemon.RecvType(t, events, "request_added", 10*time.Second).(socketproto.RequestAdded).Request
	if want := "proxy-test-" + strconv.Itoa(p.cmd.Process.Pid); added.Agent == nil || added.Agent.ID != want || added.Agent.Name != "proxy-test" {
		t.Errorf("agent = %+v, want id %s", added.Agent, want)
	}
	if !strings.Contains(string(added.Metadata), "elicitserver") {
		t.Errorf("metadata %s does not name the server", added.Metadata)
	}
	if got, want := testdaemon.InputKinds(added.Questions), "string integer number boolean string array string?"; got != want {
		t.Errorf("question kinds = %s, want %s", got, want)
	}
	if q := added.Questions[0].Question; !strings.HasPrefix(q, "Build settings\n\nColour\nthe build's colour") {
		t.Errorf("first question = %q", q)
	}

	// A field refused by its rule: nothing reaches the server until fixed.
	if m, ok := testenv.AnswerRaw(t, e, added.RequestID, `"blue"`, `9`, `0.5`, `"Yes"`, `"widget"`, `["a","c"]`, `""`).(*socketproto.Error); !ok ||
		m.Code != socketproto.CodeInvalidAnswer || !strings.Contains(m.Message, "9 is more than 5") {
		t.Fatalf("an answer over the maximum: got %#v", m)
	}
	if m := testenv.AnswerRaw(t, e, added.RequestID, `"blue"`, `3`, `0.5`, `"Yes"`, `"widget"`, `["a","c"]`, `""`); m.MessageType() != "ok" {
		t.Fatalf("the fixed answer: got %#v", m)
	}
	got := elicitedOf(t, p, ch)
	want := elicited{Action: "accept", Content: map[string]any{
		"color": "blue", "count": 3.0, "ratio": 0.5, "ok": true, "name": "widget", "tags": []any{"a", "c"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the server received %+v\nwant %+v", got, want)
	}
}

func TestMCPProxyDeclinedCancelledAndURL(t *testing.T) {
	t.Parallel()
	for _, protocol := range proxyProtocols {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			testProxyDeclines(t, protocol)
		})
	}
}

func testProxyDeclines(t *testing.T, protocol string) {
	e := NewEnv(t)
	e.StartDaemon()
	events := testenv.Watch(t, e)
	// The client elicits itself: askuser answers all the same.
	clientAsked := make(chan struct{}, 1)
	p := proxySpawn(t, e, "proxy-test", &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			clientAsked <- struct{}{}
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}, protocol)

	t.Run("declined", func(t *testing.T) {
		ch := mcpCallInBackground(context.Background(), p, "configure", map[string]any{})
		added := testdaemon.RecvType(t, events, "request_added", 10*time.Second).(socketproto.RequestAdded).Request
		if _, errOut, code := e.Client("", "cancel", added.RequestID); code != 0 {
			t.Fatalf("askuser-client cancel: %d %s", code, errOut)
		}
		if got := elicitedOf(t, p, ch); got.Action != "decline" || got.Content != nil {
			t.Errorf("the server received %+v, want a decline", got)
		}
	})

	t.Run("url", func(t *testing.T) {
		ch := mcpCallInBackground(context.Background(), p, "signin", map[string]any{})
		added := testdaemon.RecvType(t, events, "request_added", 10*time.Second).(socketproto.RequestAdded).Request
		if q := added.Questions[0]; !strings.Contains(q.Question, "https://example.com/auth?state=xyz") || len(q.Options) != 2 {
			t.Errorf("the URL question: %+v", q)
		}
		if m := testenv.AnswerRaw(t, e, added.RequestID, `1`); m.MessageType() != "ok" {
			t.Fatalf("answer: %#v", m)
		}
		if got := elicitedOf(t, p, ch); got.Action != "accept" {
			t.Errorf("the server received %+v, want accept", got)
		}
	})

	t.Run("cancelled when the client goes away", func(t *testing.T) {
		// The tool call's context ends the call; the SDK's client sends
		// notifications/cancelled to the server, whose Elicit is cancelled
		// in turn: the question is withdrawn.
		ctx, cancel := context.WithCancel(context.Background())
		ch := mcpCallInBackground(ctx, p, "configure", map[string]any{})
		added := testdaemon.RecvType(t, events, "request_added", 10*time.Second).(socketproto.RequestAdded).Request
		cancel()
		<-ch
		r := testdaemon.RecvType(t, events, "request_resolved", 10*time.Second).(socketproto.RequestResolved)
		for r.RequestID != added.RequestID {
			r = testdaemon.RecvType(t, events, "request_resolved", 10*time.Second).(socketproto.RequestResolved)
		}
		if r.Outcome != socketproto.OutcomeWithdrawn {
			t.Errorf("resolved = %+v, want withdrawn", r)
		}
	})
	select {
	case <-clientAsked:
		t.Error("the client's own elicitation handler was asked")
	default:
	}
}

// The client quits (closes the proxy's stdin) while a form waits: the
// question is withdrawn, the server is stopped, the proxy exits 0.
func TestMCPProxyClientGoneWithdrawsAndStopsTheServer(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	events := testenv.Watch(t, e)
	cmd := exec.Command(testenv.Bin("askuser-client"), "mcp-proxy", "--agent-id", "my-agent", "--", testenv.ElicitServer(t))
	cmd.Env = e.Environ()
	stderr := &testdaemon.LogBuffer{}
	cmd.Stderr = stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "quitter", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr:\n%s", err, stderr)
	}
	go func() {
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "configure", Arguments: map[string]any{}})
	}()
	added := testdaemon.RecvType(t, events, "request_added", 10*time.Second).(socketproto.RequestAdded).Request
	if added.Agent == nil || added.Agent.ID != "my-agent" {
		t.Errorf("agent = %+v, want id my-agent", added.Agent)
	}
	_ = stdin.Close()
	r := testdaemon.RecvType(t, events, "request_resolved", 10*time.Second).(socketproto.RequestResolved)
	if r.RequestID != added.RequestID || r.Outcome != socketproto.OutcomeWithdrawn {
		t.Errorf("resolved = %+v, want %s withdrawn", r, added.RequestID)
	}
	_, _ = io.Copy(io.Discard, stdout)
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Errorf("mcp-proxy exited with %v; stderr:\n%s", err, stderr)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("mcp-proxy did not exit after its stdin closed; stderr:\n%s", stderr)
	}
}

// A sub-agent's proxy does not ask: the call fails saying why (before
// 2026-07-28 the server hears the refusal and fails the call; from then on
// the proxy fails the call it would have made again).
func TestMCPProxySubagentRefused(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	for _, protocol := range proxyProtocols {
		p := proxySpawn(t, e, "proxy-test", nil, protocol, "--subagent")
		o := <-mcpCallInBackground(context.Background(), p, "configure", map[string]any{})
		if o.err == nil || !strings.Contains(o.err.Error(), socketproto.SubagentMessage) {
			t.Errorf("%s: the call returned %+v, %v; want the sub-agent refusal", protocol, o.res, o.err)
		}
	}
}
