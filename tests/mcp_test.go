package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"askuser/socketproto"
	"askuser/socketproto/agenttool"
	"askuser/tests/testdaemon"
	"askuser/tests/testdir"
	"askuser/tests/testenv"
)

// End to end: the built `askuser-client mcp`, spawned the way an agent spawns
// it and driven over stdio by the SDK's client; the questions are answered by
// other processes through the socket.

// mcpProcess is one spawned `askuser-client mcp` with its client session.
type mcpProcess struct {
	cs     *mcp.ClientSession
	cmd    *exec.Cmd
	stderr *testdaemon.LogBuffer
}

// mcpSpawn starts `askuser-client mcp args…` in e and connects to it as
// clientName. The session is closed (stdin closed, process awaited) when the
// test ends.
func mcpSpawn(t *testing.T, e *Env, clientName string, args ...string) *mcpProcess {
	t.Helper()
	cmd := exec.Command(testenv.Bin("askuser-client"), append([]string{"mcp"}, args...)...)
	cmd.Env = e.Environ()
	return mcpSpawnCmd(t, cmd, clientName)
}

// mcpSpawnCmd starts cmd (an `askuser-client mcp` with its environment set)
// and connects to it as clientName.
func mcpSpawnCmd(t *testing.T, cmd *exec.Cmd, clientName string) *mcpProcess {
	t.Helper()
	return mcpConnect(t, cmd, clientName, nil, nil)
}

// mcpConnect starts cmd and connects to it as clientName, with the client's
// and the session's options (nil for the SDK's defaults); the process is
// stopped when the test ends.
func mcpConnect(t *testing.T, cmd *exec.Cmd, clientName string, opts *mcp.ClientOptions, session *mcp.ClientSessionOptions) *mcpProcess {
	t.Helper()
	p := &mcpProcess{cmd: cmd, stderr: &testdaemon.LogBuffer{}}
	cmd.Stderr = p.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "1.0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, session)
	if err != nil {
		t.Fatalf("connecting to %q: %v; stderr:\n%s", cmd.Args, err, p.stderr)
	}
	p.cs = cs
	t.Cleanup(func() {
		_ = cs.Close()
		if cmd.ProcessState == nil && cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
	})
	return p
}

// mcpStartPiped starts `askuser-client mcp` in e with the test holding its
// stdin and stdout, for tests that close one of them the way a quitting agent
// does. exited receives the process's end once; a test that takes it puts it
// back for the cleanup, which kills the process and waits for it.
func mcpStartPiped(t *testing.T, e *Env) (*exec.Cmd, io.WriteCloser, io.ReadCloser, *testdaemon.LogBuffer, chan error) {
	t.Helper()
	cmd := exec.Command(testenv.Bin("askuser-client"), "mcp")
	cmd.Env = e.Environ()
	stderr := &testdaemon.LogBuffer{}
	cmd.Stderr = stderr
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
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	return cmd, stdin, stdout, stderr, exited
}

type mcpOutcome struct {
	res *mcp.CallToolResult
	err error
}

func mcpCallInBackground(ctx context.Context, p *mcpProcess, name string, args any) <-chan mcpOutcome {
	ch := make(chan mcpOutcome, 1)
	go func() {
		res, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		ch <- mcpOutcome{res, err}
	}()
	return ch
}

func mcpResultOf(t *testing.T, p *mcpProcess, ch <-chan mcpOutcome) *mcp.CallToolResult {
	t.Helper()
	select {
	case o := <-ch:
		if o.err != nil {
			t.Fatalf("tools/call: %v; server stderr:\n%s", o.err, p.stderr)
		}
		return o.res
	case <-time.After(10 * time.Second):
		t.Fatalf("tools/call did not return within 10s; server stderr:\n%s", p.stderr)
	}
	return nil
}

func mcpFirstText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatalf("empty result: %#v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content[0] is %T", res.Content[0])
	}
	return tc.Text
}

var mcpDatabaseQuestion = map[string]any{
	"questions": []any{map[string]any{
		"question":    "Which database should we use?",
		"header":      "Database",
		"multiSelect": false,
		"options": []any{
			map[string]any{"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
			map[string]any{"label": "SQLite", "description": "Lightweight, file-based"},
			map[string]any{"label": "MongoDB", "description": "Document store"},
		},
	}},
}

func TestMCPEndToEndAnsweredFromTheCLI(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	events := testenv.Watch(t, e)
	p := mcpSpawn(t, e, "claude-code")

	tools, err := p.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	askTools := tools.Tools[:0:0]
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if tool.Name == "permission_prompt" { // Claude Code's, not a question tool: no schema of record
			continue
		}
		askTools = append(askTools, tool)
		var want any
		_ = json.Unmarshal(agenttool.Schema(tool.Name), &want)
		if !reflect.DeepEqual(tool.InputSchema, want) {
			t.Errorf("%s: input schema is not agenttool.Schema", tool.Name)
		}
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "ask_user,ask_user_question,permission_prompt" {
		t.Fatalf("tools: %v", names)
	}
	// `askuser-client schema` prints the very schema the server advertises.
	for _, tool := range askTools {
		out, errOut, code := e.Client("", "schema", tool.Name)
		var printed any
		if code != 0 || json.Unmarshal([]byte(out), &printed) != nil {
			t.Fatalf("askuser-client schema %s: exit %d, %s%s", tool.Name, code, out, errOut)
		}
		if !reflect.DeepEqual(printed, tool.InputSchema) {
			t.Errorf("askuser-client schema %s differs from the schema tools/list gives", tool.Name)
		}
	}

	ch := mcpCallInBackground(context.Background(), p, "ask_user_question", mcpDatabaseQuestion)
	added := testdaemon.RecvType(t, events, "request_added", 10*time.Second).(socketproto.RequestAdded).Request
	wantAgent := "claude-code-" + strconv.Itoa(p.cmd.Process.Pid)
	if added.Agent == nil || added.Agent.ID != wantAgent || added.Agent.Name != "claude-code" {
		t.Errorf("agent = %+v, want id %s", added.Agent, wantAgent)
	}
	if out, errOut, code := e.Client("", "answer", added.RequestID, "SQLite"); code != 0 {
		t.Fatalf("askuser-client answer: exit %d\n%s%s", code, out, errOut)
	}
	res := mcpResultOf(t, p, ch)
	if res.IsError {
		t.Fatalf("tool error: %s", mcpFirstText(t, res))
	}
	var shape any
	if err := json.Unmarshal([]byte(mcpFirstText(t, res)), &shape); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"answers": map[string]any{"Which database should we use?": "SQLite"},
		"summary": `Asked "Which database should we use?"; the user chose SQLite.`}
	if !reflect.DeepEqual(shape, want) || !reflect.DeepEqual(res.StructuredContent, want) {
		t.Errorf("result %v / structured %v, want %v", shape, res.StructuredContent, want)
	}
	r := testdaemon.RecvType(t, events, "request_resolved", 10*time.Second).(socketproto.RequestResolved)
	if r.Outcome != socketproto.OutcomeAnswered || r.Via != socketproto.ViaCLI {
		t.Errorf("resolved = %+v", r)
	}
}

func TestMCPEndToEndDeclinedAndRefused(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	events := testenv.Watch(t, e)
	p := mcpSpawn(t, e, "codex")

	// The user declines with `askuser-client cancel`: a normal result.
	ch := mcpCallInBackground(context.Background(), p, "ask_user", mcpDatabaseQuestion)
	added := testdaemon.RecvType(t, events, "request_added", 10*time.Second).(socketproto.RequestAdded).Request
	if out, errOut, code := e.Client("", "cancel", added.RequestID); code != 0 {
		t.Fatalf("askuser-client cancel: exit %d\n%s%s", code, out, errOut)
	}
	res := mcpResultOf(t, p, ch)
	if res.IsError {
		t.Fatalf("a declined call must not be a tool error: %s", mcpFirstText(t, res))
	}
	var shape map[string]any
	if err := json.Unmarshal([]byte(mcpFirstText(t, res)), &shape); err != nil {
		t.Fatal(err)
	}
	if shape["cancelled"] != true || shape["answered"] != false {
		t.Errorf("shape = %v", shape)
	}
	if len(res.Content) < 2 || res.Content[1].(*mcp.TextContent).Text != socketproto.DeclinedSentence {
		t.Errorf("the declined sentence is missing: %#v", res.Content)
	}
	// Claude Code and Codex show the model the structured content alone.
	if sc, _ := res.StructuredContent.(map[string]any); sc["summary"] != socketproto.DeclinedSentence || sc["cancelled"] != true {
		t.Errorf("the structured result lacks the declined sentence: %v", res.StructuredContent)
	}

	// A strict call with five options is refused as a tool error naming the field.
	bad := map[string]any{"questions": []any{map[string]any{
		"question": "Pick one?", "header": "Pick", "multiSelect": false,
		"options": []any{map[string]any{"label": "a"}, map[string]any{"label": "b"}, map[string]any{"label": "c"},
			map[string]any{"label": "d"}, map[string]any{"label": "e"}},
	}}}
	res = mcpResultOf(t, p, mcpCallInBackground(context.Background(), p, "ask_user_question", bad))
	if !res.IsError || mcpFirstText(t, res) != "questions[0].options: need 2 to 4 options, got 5" {
		t.Errorf("got isError=%v %q", res.IsError, mcpFirstText(t, res))
	}

	// --subagent refuses every call with the exact message.
	sub := mcpSpawn(t, e, "codex", "--subagent")
	res = mcpResultOf(t, sub, mcpCallInBackground(context.Background(), sub, "ask_user", mcpDatabaseQuestion))
	if !res.IsError || mcpFirstText(t, res) != socketproto.SubagentMessage {
		t.Errorf("got isError=%v %q", res.IsError, mcpFirstText(t, res))
	}
}

func TestMCPEndToEndAgentGoneWithdrawsTheQuestion(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	events := testenv.Watch(t, e)

	t.Run("stdin closed", func(t *testing.T) {
		// The SDK's CommandTransport closes stdin only after the calls in
		// flight return; an agent that quits just closes the pipe, so this
		// test holds the pipe itself.
		cmd, stdin, stdout, stderr, exited := mcpStartPiped(t, e)
		client := mcp.NewClient(&mcp.Implementation{Name: "gemini-cli", Version: "1.0"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
		if err != nil {
			t.Fatalf("connect: %v; stderr:\n%s", err, stderr)
		}
		p := &mcpProcess{cs: cs, cmd: cmd, stderr: stderr}
		ch := mcpCallInBackground(context.Background(), p, "ask_user", mcpDatabaseQuestion)
		added := testdaemon.RecvType(t, events, "request_added", 10*time.Second).(socketproto.RequestAdded).Request
		_ = stdin.Close()
		r := testdaemon.RecvType(t, events, "request_resolved", 10*time.Second).(socketproto.RequestResolved)
		if r.RequestID != added.RequestID || r.Outcome != socketproto.OutcomeWithdrawn {
			t.Errorf("resolved = %+v, want %s withdrawn", r, added.RequestID)
		}
		select {
		case err := <-exited:
			exited <- err // for the cleanup
			if err != nil {
				t.Errorf("askuser-client mcp exited with %v; stderr:\n%s", err, stderr)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("askuser-client mcp did not exit after stdin closed; stderr:\n%s", stderr)
		}
		<-ch
	})

	t.Run("stdout closed", func(t *testing.T) {
		// A client that stops reading first: the server's next write fails.
		// It must withdraw the waiting question, not die of SIGPIPE and
		// leave it orphaned.
		cmd, stdin, stdout, stderr, exited := mcpStartPiped(t, e)
		send := func(line string) {
			t.Helper()
			if _, err := io.WriteString(stdin, line+"\n"); err != nil {
				t.Fatalf("writing to the server: %v; stderr:\n%s", err, stderr)
			}
		}
		send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"quitter","version":"1"}}}`)
		if _, err := bufio.NewReader(stdout).ReadBytes('\n'); err != nil {
			t.Fatalf("no initialize result: %v; stderr:\n%s", err, stderr)
		}
		send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask_user","arguments":{"questions":[{"question":"Still there?"}]}}}`)
		added := testdaemon.RecvType(t, events, "request_added", 10*time.Second).(socketproto.RequestAdded).Request
		_ = stdout.Close()
		// A call refused at once makes the server write.
		send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask_user","arguments":{}}}`)
		// That write can still find a reader: a child process another test
		// forked keeps a copy of the pipe until its exec has closed it,
		// which on Linux ends a moment after the fork returned. Pings make
		// the server write again until the question is withdrawn.
		stopPings := pingEvery(100*time.Millisecond, stdin)
		t.Cleanup(stopPings)
		r := resolvedOrExplain(t, events, exited, stderr)
		stopPings()
		if r.RequestID != added.RequestID || r.Outcome != socketproto.OutcomeWithdrawn {
			t.Errorf("resolved = %+v, want %s withdrawn", r, added.RequestID)
		}
		_ = stdin.Close()
		select {
		case err := <-exited:
			exited <- err // for the cleanup
			if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && st.Signaled() {
				t.Errorf("askuser-client mcp died of %v; stderr:\n%s", st.Signal(), stderr)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("askuser-client mcp did not exit; stderr:\n%s", stderr)
		}
	})

	t.Run("call cancelled by the client", func(t *testing.T) {
		p := mcpSpawn(t, e, "gemini-cli")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ch := mcpCallInBackground(ctx, p, "ask_user", mcpDatabaseQuestion)
		added := testdaemon.RecvType(t, events, "request_added", 10*time.Second).(socketproto.RequestAdded).Request
		mcpAwaitPendingFile(t, e, added.RequestID, true)
		cancel() // the SDK's client sends notifications/cancelled
		r := testdaemon.RecvType(t, events, "request_resolved", 10*time.Second).(socketproto.RequestResolved)
		if r.RequestID != added.RequestID || r.Outcome != socketproto.OutcomeWithdrawn {
			t.Errorf("resolved = %+v, want %s withdrawn", r, added.RequestID)
		}
		<-ch
		mcpAwaitPendingFile(t, e, added.RequestID, false)
		// The server goes on serving the session.
		if err := p.cs.Ping(context.Background(), nil); err != nil {
			t.Errorf("ping after the cancellation: %v; stderr:\n%s", err, p.stderr)
		}
	})

	t.Run("SIGTERM", func(t *testing.T) {
		p := mcpSpawn(t, e, "gemini-cli")
		ch := mcpCallInBackground(context.Background(), p, "ask_user", mcpDatabaseQuestion)
		added := testdaemon.RecvType(t, events, "request_added", 10*time.Second).(socketproto.RequestAdded).Request
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		r := testdaemon.RecvType(t, events, "request_resolved", 10*time.Second).(socketproto.RequestResolved)
		if r.RequestID != added.RequestID || r.Outcome != socketproto.OutcomeWithdrawn {
			t.Errorf("resolved = %+v, want %s withdrawn", r, added.RequestID)
		}
		// The client usually still reads: it is told the question was withdrawn.
		if o := <-ch; o.err == nil && (!o.res.IsError || !strings.Contains(mcpFirstText(t, o.res), "withdrawn")) {
			t.Errorf("the call ended with %#v", o.res)
		}
		_ = p.cs.Close()
		if p.cmd.ProcessState == nil || !p.cmd.ProcessState.Success() {
			t.Errorf("askuser-client mcp exited with %v; stderr:\n%s", p.cmd.ProcessState, p.stderr)
		}
	})
}

func TestMCPEndToEndDaemonMissing(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)

	// --no-autostart: a tool error saying how to start the daemon.
	p := mcpSpawn(t, e, "cursor", "--no-autostart")
	res := mcpResultOf(t, p, mcpCallInBackground(context.Background(), p, "ask_user", mcpDatabaseQuestion))
	if text := mcpFirstText(t, res); !res.IsError || !strings.Contains(text, "run 'askuserd' in a terminal, or 'askuserd serve'") {
		t.Fatalf("got isError=%v %q", res.IsError, text)
	}

	// Autostart tried and failed (no askuserd beside the client or on PATH):
	// the error says why and how to start it.
	lone := copyPrograms(t, "askuser-client", "askuser-mcp")
	cmd := exec.Command(filepath.Join(lone, "askuser-client"), "mcp")
	cmd.Env = e.Environ("PATH=" + t.TempDir())
	p = mcpSpawnCmd(t, cmd, "cursor")
	res = mcpResultOf(t, p, mcpCallInBackground(context.Background(), p, "ask_user", mcpDatabaseQuestion))
	if text := mcpFirstText(t, res); !res.IsError || !strings.Contains(text, "starting it failed") ||
		!strings.Contains(text, "run 'askuserd' in a terminal, or 'askuserd serve'") {
		t.Fatalf("got isError=%v %q", res.IsError, text)
	}

	// Default: the first call starts the daemon (askuserd beside the client)
	// and waits on it.
	p = mcpSpawn(t, e, "cursor")
	ch := mcpCallInBackground(context.Background(), p, "ask_user", mcpDatabaseQuestion)
	t.Cleanup(func() { e.StopAutostarted() })
	var id string
	testdaemon.Eventually(t, "the request on an autostarted daemon", func() (bool, string) {
		c, err := socketproto.Dial(e.Socket, 0)
		if err != nil {
			return false, err.Error() + "\nserver stderr:\n" + p.stderr.String()
		}
		defer c.Close()
		_ = c.Send(socketproto.ListRequest{})
		m := testdaemon.Recv(t, c, testdaemon.Wait)
		if l, ok := m.(socketproto.List); ok && len(l.Pending) == 1 {
			id = l.Pending[0].RequestID
			return true, ""
		}
		return false, fmt.Sprintf("%+v", m)
	})
	if out, errOut, code := e.Client("", "answer", id, "2"); code != 0 {
		t.Fatalf("askuser-client answer: exit %d\n%s%s", code, out, errOut)
	}
	res = mcpResultOf(t, p, ch)
	var shape struct {
		Answered bool                 `json:"answered"`
		Answers  []socketproto.Answer `json:"answers"`
	}
	if err := json.Unmarshal([]byte(mcpFirstText(t, res)), &shape); err != nil || !shape.Answered || shape.Answers[0].Answer.Text != "SQLite" {
		t.Errorf("result %s (%v)", mcpFirstText(t, res), err)
	}
}

// mcpAwaitPendingFile waits until the pending file holds the request (or,
// with held false, no longer holds it): the daemon rewrites the file after
// it sends the event.
func mcpAwaitPendingFile(t *testing.T, e *Env, id string, held bool) {
	t.Helper()
	what := "the pending file to hold " + id
	if !held {
		what = "the pending file to no longer hold " + id
	}
	testdaemon.Eventually(t, what, func() (bool, string) {
		b, err := os.ReadFile(e.Pending)
		if err != nil {
			return false, err.Error()
		}
		return strings.Contains(string(b), id) == held, string(b)
	})
}

// copyPrograms puts the named programs of the build, and no others, into a
// new directory, and returns it.
func copyPrograms(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range names {
		testdir.CopyExecutable(t, testenv.Bin(name), filepath.Join(dir, name))
	}
	return dir
}

// The MCP server is its own program, askuser-mcp, which `askuser-client mcp`
// runs in its place: it is found beside askuser-client or on PATH, and when
// it is in neither the error says where it looked and how to install it.
func TestMCPServerProgramIsFound(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()

	// On PATH only: askuser-client alone in its directory.
	lone := copyPrograms(t, "askuser-client")
	cmd := exec.Command(filepath.Join(lone, "askuser-client"), "mcp")
	cmd.Env = e.Environ("PATH=" + filepath.Dir(testenv.Bin("askuser-mcp")) + ":/usr/bin:/bin")
	p := mcpSpawnCmd(t, cmd, "cursor")
	if tools, err := p.cs.ListTools(context.Background(), nil); err != nil || len(tools.Tools) != 3 {
		t.Fatalf("tools/list through askuser-mcp on PATH: %v, %+v", err, tools)
	}
	// It is askuser-mcp that runs, under the name the user configured, in
	// askuser-client's process (the MCP client's child, which it signals).
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cmd.Process.Pid))
	if err == nil && !strings.HasPrefix(string(cmdline), "askuser-client mcp\x00") {
		t.Errorf("the server's command line is %q, want it to start with askuser-client mcp", cmdline)
	}

	// Neither beside it nor on PATH.
	out := exec.Command(filepath.Join(lone, "askuser-client"), "mcp")
	out.Env = e.Environ("PATH=" + t.TempDir())
	stdout, err := out.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || len(stdout) != 0 {
		t.Fatalf("askuser-client mcp without askuser-mcp: %v, stdout %q; want exit 1 and nothing on stdout", err, stdout)
	}
	for _, want := range []string{"askuser-mcp is neither in " + lone + " nor on PATH", "go install ./cmd/..."} {
		if !strings.Contains(string(exit.Stderr), want) {
			t.Errorf("stderr %q does not say %q", exit.Stderr, want)
		}
	}

	// askuser-mcp run directly is the same server, with its own name in
	// its messages.
	direct := exec.Command(testenv.Bin("askuser-mcp"), "stray")
	direct.Env = e.Environ()
	msg, err := direct.CombinedOutput()
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(msg), `askuser-mcp: askuser-mcp takes no arguments`) {
		t.Errorf("askuser-mcp stray: %v\n%s", err, msg)
	}
}

// pingEvery writes an MCP ping to w every period until the returned stop is
// called (once or more); it ignores write errors, as a server may be gone.
func pingEvery(period time.Duration, w io.Writer) (stop func()) {
	done := make(chan struct{})
	var pings sync.WaitGroup
	pings.Go(func() {
		tick := time.NewTicker(period)
		defer tick.Stop()
		for id := 1000; ; id++ {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", id)
		}
	})
	return sync.OnceFunc(func() { close(done); pings.Wait() })
}

// resolvedOrExplain waits for the next request_resolved on events; without
// one in 10 s it fails saying what the watcher heard meanwhile, whether the
// MCP server exited, and what it wrote on stderr.
func resolvedOrExplain(t *testing.T, events *socketproto.Conn, exited chan error, stderr *testdaemon.LogBuffer) socketproto.RequestResolved {
	t.Helper()
	var heard []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		_ = events.NetConn().SetReadDeadline(deadline)
		m, err := events.Recv()
		if err != nil {
			_ = events.NetConn().SetReadDeadline(time.Time{})
			server := "still running"
			select {
			case err := <-exited:
				exited <- err // for the cleanup
				server = fmt.Sprintf("exited (%v)", err)
			default:
			}
			t.Fatalf("no request_resolved: %v; the watcher heard %q; the MCP server %s; its stderr:\n%s", err, heard, server, stderr)
		}
		if r, ok := m.(socketproto.RequestResolved); ok {
			_ = events.NetConn().SetReadDeadline(time.Time{})
			return r
		}
		line, _ := json.Marshal(m)
		heard = append(heard, m.MessageType()+" "+string(line))
	}
}
