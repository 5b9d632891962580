package acpproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/socketproto/askclient"
)

// The fake agent: the test binary again, playing the agent's side of a
// transcript (ACPPROXY_FAKE_AGENT names it): it checks that each of the
// editor's lines arrives exactly, writes its own, and exits 7 at the end of
// its input, so the proxy's exit code is seen to be the agent's.
func TestMain(m *testing.M) {
	if path := os.Getenv("ACPPROXY_FAKE_AGENT"); path != "" {
		os.Exit(fakeAgent(path))
	}
	switch os.Getenv("ACPPROXY_FAKE_MODE") {
	case "stubborn": // deaf to the end of its input and to SIGTERM
		signal.Ignore(syscall.SIGTERM)
		fmt.Println(`{"jsonrpc":"2.0","method":"ready"}`)
		for {
			// The stubborn agent's own behaviour: it never ends by itself.
			// (A bare select{} would be a deadlock the runtime ends.)
			time.Sleep(time.Hour)
		}
	case "echo": // says back every line it reads
		in := bufio.NewReader(os.Stdin)
		for {
			line, err := in.ReadBytes('\n')
			if len(line) > 0 {
				if _, werr := os.Stdout.Write(line); werr != nil {
					os.Exit(1)
				}
			}
			if err != nil {
				os.Exit(0)
			}
		}
	case "exit3": // says one line and exits 3
		fmt.Println(`{"jsonrpc":"2.0","method":"bye"}`)
		os.Exit(3)
	}
	os.Exit(m.Run())
}

func fakeAgent(path string) int {
	steps, err := readTranscript(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	in := bufio.NewReader(os.Stdin)
	for i, s := range steps {
		if s.fromEditor {
			got, err := in.ReadBytes('\n')
			if err != nil || !bytes.Equal(got, s.line) {
				fmt.Fprintf(os.Stderr, "fake agent: step %d: got %.200q (%v), want %.200q\n", i, got, err, s.line)
				return 3
			}
			continue
		}
		if _, err := os.Stdout.Write(s.line); err != nil {
			return 4
		}
	}
	if _, err := io.Copy(io.Discard, in); err != nil {
		return 5
	}
	return 7
}

// step is one line of a transcript, newline included.
type step struct {
	fromEditor bool
	line       []byte
}

// readTranscript reads testdata/session.txt's form, and adds a large line
// each way (a tool result of a few hundred kilobytes).
func readTranscript(path string) ([]step, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var steps []step
	for i, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "e ") || l == "e":
			steps = append(steps, step{true, []byte(strings.TrimPrefix(strings.TrimPrefix(l, "e"), " ") + "\n")})
		case strings.HasPrefix(l, "a ") || l == "a":
			steps = append(steps, step{false, []byte(strings.TrimPrefix(strings.TrimPrefix(l, "a"), " ") + "\n")})
		default:
			return nil, fmt.Errorf("%s:%d: a line begins with \"e \" or \"a \"", path, i+1)
		}
	}
	steps = append(steps,
		step{true, []byte(`{"jsonrpc":"2.0","id":15,"method":"_vendor/ext","params":{"big":"` + strings.Repeat("x", 200_000) + "\"}}\n")},
		step{false, []byte(`{"jsonrpc":"2.0","id":15,"result":{"big":"` + strings.Repeat("y", 300_000) + "\"}}\n")})
	return steps, nil
}

// schemaMethods are every method of ACP v1 in @agentclientprotocol/sdk
// 2.4.0 (its AGENT_METHODS, CLIENT_METHODS and PROTOCOL_METHODS), and
// updateKinds every sessionUpdate of its SessionUpdate: the transcript
// holds each.
var (
	schemaMethods = []string{
		"initialize", "authenticate", "session/new", "session/load", "session/set_mode", "session/set_config_option",
		"session/prompt", "session/cancel", "session/list", "session/delete", "session/resume", "session/close", "logout",
		"session/request_permission", "session/update", "fs/write_text_file", "fs/read_text_file", "terminal/create",
		"terminal/output", "terminal/release", "terminal/wait_for_exit", "terminal/kill", "elicitation/create",
		"elicitation/complete", "$/cancel_request",
	}
	updateKinds = []string{
		"user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan",
		"available_commands_update", "current_mode_update", "config_option_update", "session_info_update",
		"usage_update", "notice", "compaction_update", "compaction_summary_chunk",
	}
)

func TestTranscriptHoldsEveryMessageType(t *testing.T) {
	b, err := os.ReadFile("testdata/session.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range schemaMethods {
		if !strings.Contains(string(b), `"method":"`+m+`"`) {
			t.Errorf("testdata/session.txt has no %s", m)
		}
	}
	for _, k := range updateKinds {
		if !strings.Contains(string(b), `"sessionUpdate":"`+k+`"`) {
			t.Errorf("testdata/session.txt has no session/update %s", k)
		}
	}
}

// asked is a fake daemon: it keeps each question, acknowledges it, and
// answers none; the cause of each withdrawal is kept too.
type asked struct {
	mu       sync.Mutex
	reqs     []socketproto.AskUserRequest
	causes   []error
	answer   func(socketproto.AskUserRequest) (socketproto.Response, bool)
	position int
}

func (a *asked) ask(ctx context.Context, req socketproto.AskUserRequest, onQueued func(socketproto.Queued)) (socketproto.Response, error) {
	a.mu.Lock()
	a.reqs = append(a.reqs, req)
	answer := a.answer
	a.mu.Unlock()
	onQueued(socketproto.Queued{RequestID: "r", Position: a.position})
	if answer != nil {
		if resp, ok := answer(req); ok {
			return resp, nil
		}
	}
	<-ctx.Done()
	a.mu.Lock()
	a.causes = append(a.causes, context.Cause(ctx))
	a.mu.Unlock()
	return socketproto.Response{}, ctx.Err()
}

// TestTranscript runs a recorded session through the proxy and a fake
// agent: every line reaches the other side byte for byte and in order, the
// malformed ones too; the two permission requests wait in askuser as well
// and are withdrawn when the editor answers them; the proxy exits with the
// agent's code. The elicitation form waits in askuser too, and is withdrawn
// likewise.
func TestTranscript(t *testing.T) {
	const path = "testdata/session.txt"
	steps, err := readTranscript(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("ACPPROXY_FAKE_AGENT", path)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	editorIn, proxyIn := io.Pipe()
	proxyOut, editorOut := io.Pipe()
	var stderr bytes.Buffer
	fake := &asked{position: 1}
	done := make(chan int, 1)
	go func() {
		code, err := Run(context.Background(), RunOptions{
			Argv: []string{exe, "-test.run=^$"}, Stdin: editorIn, Stdout: editorOut, Stderr: &lockedWriter{w: &stderr},
			Ask: fake.ask, Limits: socketproto.DefaultLimits(),
		})
		if err != nil {
			t.Error(err)
		}
		editorOut.Close()
		done <- code
	}()
	out := bufio.NewReader(proxyOut)
	for i, s := range steps {
		if s.fromEditor {
			if _, err := proxyIn.Write(s.line); err != nil {
				t.Fatalf("step %d: writing to the proxy: %v", i, err)
			}
			continue
		}
		got, err := out.ReadBytes('\n')
		if err != nil || !bytes.Equal(got, s.line) {
			t.Fatalf("step %d: the editor got %.300q (%v), want %.300q\nstderr: %s", i, got, err, s.line, stderr.String())
		}
	}
	proxyIn.Close()
	if rest, _ := io.ReadAll(out); len(rest) > 0 {
		t.Errorf("the editor got more than the agent sent: %.300q", rest)
	}
	if code := <-done; code != 7 {
		t.Errorf("exit code %d, want the agent's 7\nstderr: %s", code, stderr.String())
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.reqs) != 3 {
		t.Fatalf("asked %d questions in askuser, want the 2 permission requests and the form", len(fake.reqs))
	}
	if q := fake.reqs[2].Questions; len(q) != 1 || !strings.Contains(q[0].Question, "Which branch?") || q[0].Input == nil {
		t.Errorf("the form was asked as %+v", q)
	}
	if p := fake.reqs[0].Permission; p == nil || p.Agent != "acp" || p.Tool != "execute" || p.Allow != "Allow" {
		t.Errorf("the shell command's prompt is marked %+v, want acp/execute/Allow", p)
	}
	if a := fake.reqs[0].Agent; a == nil || a.Name != "Transcript Agent" || a.Cwd != "/home/u/src/shop" {
		t.Errorf("asked as %+v, want the agent's title and the session's directory", a)
	}
	if fake.reqs[1].Permission != nil {
		t.Errorf("a file edit is marked for rules: %+v", fake.reqs[1].Permission)
	}
	for i, c := range fake.causes {
		var st askclient.Settled
		if !errors.As(c, &st) || !strings.Contains(st.How, "answered in transcript-editor") {
			t.Errorf("withdrawal %d: cause %v, want settled in the editor", i, c)
		}
	}
	if len(fake.causes) != 3 {
		t.Errorf("%d withdrawals, want 3", len(fake.causes))
	} else if st := new(askclient.Settled); !errors.As(fake.causes[2], st) || st.How != "answered in transcript-editor: accept" {
		t.Errorf("the form was withdrawn with %v", fake.causes[2])
	}
}
