package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"askuser/socketproto"
	"askuser/socketproto/agenttool"
	"askuser/tests/testdaemon"
)

// clientWait is a safety net for anything the client tests wait on, never a
// measured threshold.
const clientWait = 10 * time.Second

// watcher subscribes as role watch, so a test learns of each new request the
// moment the daemon queues it.
func watcher(t *testing.T, e *Env) *socketproto.Conn {
	t.Helper()
	return testdaemon.Watch(t, e.Socket)
}

// nextAdded waits for the next request_added on a watcher.
func nextAdded(t *testing.T, w *socketproto.Conn) socketproto.Pending {
	t.Helper()
	return testdaemon.RecvType(t, w, "request_added", clientWait).(socketproto.RequestAdded).Request
}

// finish waits for a background client and returns its exit code.
// wantAnswered waits for a text-format ask or wait, and checks that it exited 0
// having printed want.
func wantAnswered(t *testing.T, cmd *exec.Cmd, out, errb *bytes.Buffer, want string) {
	t.Helper()
	if code := finish(t, cmd); code != 0 {
		t.Fatalf("exit %d, want 0; stderr: %s", code, errb)
	}
	if out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
}

func finish(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("client: %v", err)
		}
		return 0
	case <-time.After(3 * clientWait):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("askuser-client %v did not finish", cmd.Args[1:])
		return -1
	}
}

func mustClient(t *testing.T, e *Env, stdin string, args ...string) string {
	t.Helper()
	out, errOut, code := e.Client(stdin, args...)
	if code != 0 {
		t.Fatalf("askuser-client %v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errOut)
	}
	return out
}

func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("output is not the expected JSON (%v):\n%s", err, s)
	}
}

// clientList is what `askuser-client list --json` prints, decoded.
func clientList(t *testing.T, e *Env) []socketproto.Pending {
	t.Helper()
	var pending []socketproto.Pending
	decodeJSON(t, mustClient(t, e, "", "list", "--json"), &pending)
	return pending
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const twoQuestions = `{
  "tool": "ask_user",
  "metadata": {"source": "client-test"},
  "questions": [
    {"question": "Which database should we use?", "header": "Database",
     "options": [{"label": "PostgreSQL (Recommended)", "description": "Battle-tested"},
                 {"label": "SQLite"}]},
    {"question": "What should we name this service?"}
  ]
}`

// An ask from a file, answered by `askuser-client answer` in another process
// with positional answers (an option's number and free text).
func TestClientAskFromFileAnsweredByCLI(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := watcher(t, e)
	file := writeFile(t, e.Root, "req.json", twoQuestions)
	ask, out, errb := e.StartClient("", "ask", file, "--agent-id", "claude-main")
	p := nextAdded(t, w)
	if p.Agent == nil || p.Agent.ID != "claude-main" || p.Agent.Cwd == "" {
		t.Errorf("agent as queued: %+v", p.Agent)
	}
	if string(p.Metadata) != `{"source":"client-test"}` {
		t.Errorf("metadata as queued: %s", p.Metadata)
	}
	mustClient(t, e, "", "answer", p.RequestID, "1", "order-processor")
	if code := finish(t, ask); code != 0 {
		t.Fatalf("ask exit %d; stderr: %s", code, errb)
	}
	var r map[string]any
	decodeJSON(t, out.String(), &r)
	if _, has := r["type"]; has {
		t.Errorf("json format must not carry \"type\": %s", out)
	}
	by, _ := r["answersByQuestion"].(map[string]any)
	if by["Which database should we use?"] != "PostgreSQL (Recommended)" || by["What should we name this service?"] != "order-processor" {
		t.Errorf("answersByQuestion: %v", by)
	}
	if r["requestId"] != p.RequestID || r["answered"] != true || r["answeredVia"] != "cli" {
		t.Errorf("result: %s", out)
	}
}

// An ask of a bare questions list from stdin, answered with --answers (a
// multi-select answer in the object form: options and typed text).
func TestClientAskFromStdinAnsweredWithJSONList(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := watcher(t, e)
	qs := `[{"question": "Which features?", "multiSelect": true,
	         "options": [{"label": "Authentication"}, {"label": "Caching"}]}]`
	ask, out, errb := e.StartClient(qs, "ask", "-", "--format", "pi")
	p := nextAdded(t, w)
	mustClient(t, e, "", "answer", p.RequestID, "--answers", `[{"selected": ["Authentication"], "custom": "Use Redis too"}]`)
	if code := finish(t, ask); code != 0 {
		t.Fatalf("ask exit %d; stderr: %s", code, errb)
	}
	var r struct {
		Answered bool                 `json:"answered"`
		Answers  []socketproto.Answer `json:"answers"`
	}
	decodeJSON(t, out.String(), &r)
	if !r.Answered || len(r.Answers) != 1 {
		t.Fatalf("pi result: %s", out)
	}
	a := r.Answers[0]
	if !a.Answer.IsList || strings.Join(a.Answer.List, "|") != "Authentication|Use Redis too" ||
		!a.WasCustom || a.Custom != "Use Redis too" {
		t.Errorf("answer: %+v", a)
	}
}

// One question from flags, answered over a raw socket, in every --format.
func TestClientAskFromFlagsEachFormat(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := watcher(t, e)
	cases := []struct {
		format string
		check  func(t *testing.T, out string)
	}{
		{"json", func(t *testing.T, out string) {
			var r socketproto.Response
			decodeJSON(t, out, &r)
			if r.AnswersByQuestion["Which database?"] != "SQLite" || r.AnsweredVia != "pane" {
				t.Errorf("json: %s", out)
			}
		}},
		{"claude", func(t *testing.T, out string) {
			var r map[string]any
			decodeJSON(t, out, &r)
			ans, _ := r["answers"].(map[string]any)
			notes, _ := r["annotations"].(map[string]any)
			if len(r) != 2 || ans["Which database?"] != "SQLite" || notes["Which database?"] == nil {
				t.Errorf("claude: %s", out)
			}
		}},
		{"pi", func(t *testing.T, out string) {
			var r map[string]any
			decodeJSON(t, out, &r)
			if r["answered"] != true || len(r["answers"].([]any)) != 1 {
				t.Errorf("pi: %s", out)
			}
		}},
		{"text", func(t *testing.T, out string) {
			if out != "Which database?: SQLite\n  note: keep it small\n" {
				t.Errorf("text: %q", out)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			ask, out, errb := e.StartClient("", "ask", "--question", "Which database?", "--header", "DB",
				"--option", "PostgreSQL (Recommended)=Battle-tested", "--option", "SQLite", "--format", c.format)
			p := nextAdded(t, w)
			q := p.Questions[0]
			if q.Header != "DB" || len(q.Options) != 2 || q.Options[0].Description != "Battle-tested" {
				t.Errorf("question as queued: %+v", q)
			}
			raw := e.Dial()
			ans := json.RawMessage(`{"selected": ["SQLite"], "notes": "keep it small"}`)
			if err := raw.Send(socketproto.AnswerRequest{RequestID: p.RequestID,
				Answers: []json.RawMessage{ans}, Via: socketproto.ViaPane}); err != nil {
				t.Fatal(err)
			}
			if m := testdaemon.Recv(t, raw, clientWait); m.MessageType() != "ok" {
				t.Fatalf("raw answer got %#v", m)
			}
			if code := finish(t, ask); code != 0 {
				t.Fatalf("exit %d; stderr: %s", code, errb)
			}
			c.check(t, out.String())
		})
	}
}

// The user declines: exit 3 and the cancelled shape.
func TestClientAskCancelled(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := watcher(t, e)
	for _, format := range []string{"json", "claude"} {
		t.Run(format, func(t *testing.T) {
			ask, out, errb := e.StartClient("", "ask", "--question", "Proceed?", "--format", format)
			p := nextAdded(t, w)
			mustClient(t, e, "", "cancel", p.RequestID)
			if code := finish(t, ask); code != 3 {
				t.Fatalf("exit %d, want 3; stderr: %s", code, errb)
			}
			var r map[string]any
			decodeJSON(t, out.String(), &r)
			if r["cancelled"] != true {
				t.Errorf("cancelled shape: %s", out)
			}
			if format == "json" && (r["answered"] != false || r["answeredVia"] != "cli") {
				t.Errorf("json: %s", out)
			}
			// A second cancel finds it resolved.
			if _, errOut, code := e.Client("", "cancel", p.RequestID); code != 1 || errOut == "" {
				t.Errorf("second cancel: exit %d, stderr %q", code, errOut)
			}
		})
	}
}

// Refusals exit 1 naming the field; bad input exits 2 with line and column;
// nothing is queued.
func TestClientAskRefusedAndUsage(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	five := []string{"ask", "--tool", "ask_user_question", "--question", "Pick?", "--header", "H",
		"--option", "a", "--option", "b", "--option", "c", "--option", "d", "--option", "e"}
	cases := []struct {
		name    string
		stdin   string
		args    []string
		env     []string
		code    int
		stderr  string
		errCode socketproto.ErrorCode // the error object on stdout (json format)
	}{
		{"strict five options", "", five, nil, 1, "questions[0].options: need 2 to 4 options, got 5", socketproto.CodeInvalidRequest},
		{"subagent by env", "", []string{"ask", "--question", "Hi?"}, []string{"ASKUSER_SUBAGENT=1"}, 1, socketproto.SubagentMessage, socketproto.CodeSubagentNotAllowed},
		{"subagent by parent", "", []string{"ask", "--question", "Hi?"}, []string{"ASKUSER_PARENT_ID=p1"}, 1, socketproto.SubagentMessage, socketproto.CodeSubagentNotAllowed},
		{"subagent by flag", "", []string{"ask", "--question", "Hi?", "--subagent"}, nil, 1, socketproto.SubagentMessage, socketproto.CodeSubagentNotAllowed},
		{"bad json", "{\"questions\": [\n  {\"question\": \"x\",}\n]}", []string{"ask", "-"}, nil, 2, "stdin: line 2, column 20", ""},
		{"wrong type", `[{"question": "x", "multiSelect": "yes"}]`, []string{"ask", "-"}, nil, 2, "questions[0].multiSelect: must be a boolean", ""},
		{"unknown field", `[{"question": "x", "multiselect": true}]`, []string{"ask", "-"}, nil, 2, `questions[0].multiselect: unknown field; did you mean "multiSelect"?`, ""},
		{"no questions", "", []string{"ask"}, nil, 2, "no questions", ""},
		{"file and flags", "", []string{"ask", "-", "--question", "x"}, nil, 2, "not both", ""},
		{"bad format", "", []string{"ask", "--question", "x", "--format", "yaml"}, nil, 2, "--format", ""},
		{"bad metadata", "", []string{"ask", "--question", "x", "--metadata", "novalue"}, nil, 2, "KEY=VALUE", ""},
		{"missing file", "", []string{"ask", filepath.Join(e.Root, "nope.json")}, nil, 2, "nope.json", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin("askuser-client"), c.args...)
			cmd.Env = e.Environ(c.env...)
			cmd.Stdin = strings.NewReader(c.stdin)
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != c.code || !strings.Contains(errb.String(), c.stderr) {
				t.Fatalf("exit %d, want %d; stderr %q should contain %q", code, c.code, errb.String(), c.stderr)
			}
			if c.errCode != "" {
				var eo socketproto.Error
				decodeJSON(t, out.String(), &eo)
				if eo.Code != c.errCode || eo.Message == "" {
					t.Errorf("error object on stdout: %s", out.String())
				}
			}
		})
	}
	pending := clientList(t, e)
	if len(pending) != 0 {
		t.Errorf("refused requests were queued: %+v", pending)
	}
}

// --no-wait parks the request and says how to answer; wait collects it.
func TestClientNoWaitThenWait(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	out, how, code := e.Client("", "ask", "--no-wait", "--request-id", "park-1",
		"--question", "Which database?", "--option", "PostgreSQL (Recommended)", "--option", "SQLite")
	if code != 0 {
		t.Fatalf("ask --no-wait: exit %d\n%s%s", code, out, how)
	}
	// stdout is the id alone, for id=$(askuser-client ask --no-wait …).
	if out != "park-1\n" {
		t.Errorf("--no-wait stdout = %q, want the id alone", out)
	}
	for _, want := range []string{e.Pending,
		"askuser-client answer park-1 'PostgreSQL (Recommended)'", "askuser-client wait park-1"} {
		if !strings.Contains(how, want) {
			t.Errorf("--no-wait stderr lacks %q:\n%s", want, how)
		}
	}
	pending := clientList(t, e)
	if len(pending) != 1 || pending[0].Status != socketproto.StatusParked {
		t.Fatalf("after --no-wait: %+v", pending)
	}
	// Whether the answer comes before or after wait reaches the daemon, wait
	// gets the result (a resolved request's result is retained).
	waitCmd, wout, werr := e.StartClient("", "wait", "park-1", "--format", "text")
	mustClient(t, e, "", "answer", "park-1", "SQLite")
	wantAnswered(t, waitCmd, wout, werr, "Which database?: SQLite\n")
	// A request file that says "wait": false parks too.
	out, how, _ = e.Client(`{"requestId": "park-2", "wait": false, "questions": [{"question": "From a file?"}]}`, "ask", "-")
	if out != "park-2\n" || !strings.Contains(how, "askuser-client answer park-2 'your answer'") {
		t.Errorf("parked from a file:\nstdout %q\nstderr %s", out, how)
	}
	if _, errOut, code := e.Client("", "wait", "no-such-request"); code != 1 || !strings.Contains(errOut, "no-such-request") {
		t.Errorf("wait for an unknown id: exit %d, stderr %q", code, errOut)
	}
}

// With no daemon running, ask starts one (found beside the client).
func TestClientAutostart(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	ask, out, errb := e.StartClient("", "ask", "--question", "Started?", "--request-id", "auto-1", "--format", "text")
	t.Cleanup(func() { e.StopAutostarted() })
	deadline := time.Now().Add(3 * clientWait)
	for {
		_, _, code := e.Client("", "answer", "auto-1", "yes")
		if code == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the autostarted daemon never took the request; ask stderr: %s", errb)
		}
		time.Sleep(20 * time.Millisecond)
	}
	wantAnswered(t, ask, out, errb, "Started?: yes\n")
	e.wantAutostartedInRoot()
	var st socketproto.Status
	decodeJSON(t, mustClient(t, e, "", "status", "--json"), &st)
	if st.Socket != e.Socket {
		t.Errorf("autostarted daemon listens on %q, want %q", st.Socket, e.Socket)
	}
	if _, err := os.Stat(filepath.Join(e.State, "askuser", "askuserd.log")); err != nil {
		t.Errorf("the autostarted daemon's log: %v", err)
	}
}

// --no-autostart with nothing listening: exit 4 and a connectionLost result.
func TestClientNoAutostartUnreachable(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	out, errOut, code := e.Client("", "ask", "--question", "Anyone?", "--no-autostart")
	if code != 4 || !strings.Contains(errOut, "could not be reached") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var r map[string]any
	decodeJSON(t, out, &r)
	if r["connectionLost"] != true || r["answered"] != false {
		t.Errorf("result: %s", out)
	}
	for _, cmd := range [][]string{{"list"}, {"status"}, {"answer", "x", "y"}, {"cancel", "x"}, {"watch"}} {
		if _, _, code := e.Client("", cmd...); code != 4 {
			t.Errorf("%v with no daemon: exit %d, want 4", cmd, code)
		}
	}
	if _, err := os.Stat(e.Socket); err == nil {
		t.Errorf("something started a daemon")
	}
}

// The daemon restarts while ask waits: ask reconnects and resumes with wait;
// the new daemon does not know the request, so ask ends with exit 4 and
// connectionLost.
// The daemon restarts and has forgotten the question (it keeps no state):
// ask reconnects, finds the request gone, and asks it again under the same
// id, so the user still sees it and the answer still reaches the agent.
func TestClientReconnectsAfterDaemonRestart(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := watcher(t, e)
	ask, out, errb := e.StartClient("", "ask", "--question", "Still there?", "--no-autostart",
		"--request-id", "restart-1", "--format", "text")
	nextAdded(t, w)
	w.Close()
	e.StopDaemon()
	e.StartDaemon()
	// The daemon kept the request (docs/contract.md §10); the client's resumed wait
	// makes it waiting again.
	if p := listedAs(t, e, "restart-1", socketproto.StatusWaiting); p.Questions[0].Question != "Still there?" {
		t.Fatalf("after the restart the daemon has %+v", p)
	}
	mustClient(t, e, "", "answer", "restart-1", "yes")
	wantAnswered(t, ask, out, errb, "Still there?: yes\n")
}

// proxy stands between the client and the daemon so that a test can break
// the client's connection while the daemon keeps running. It records what the
// client sent on each connection.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	sent  []*strings.Builder
	wg    sync.WaitGroup
}

func startProxy(t *testing.T, path, upstream string) *proxy {
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			down, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("unix", upstream)
			if err != nil {
				down.Close()
				continue
			}
			rec := &strings.Builder{}
			p.mu.Lock()
			p.conns = append(p.conns, down, up)
			p.sent = append(p.sent, rec)
			p.mu.Unlock()
			p.wg.Add(2)
			go func() {
				defer p.wg.Done()
				defer up.Close()
				buf := make([]byte, 4096)
				for {
					n, err := down.Read(buf)
					if n > 0 {
						p.mu.Lock()
						rec.Write(buf[:n])
						p.mu.Unlock()
						if _, werr := up.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
			go func() {
				defer p.wg.Done()
				defer down.Close()
				_, _ = io.Copy(down, up)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		p.drop()
		p.wg.Wait()
	})
	return p
}

// drop closes every connection, both sides.
func (p *proxy) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) sentOn(i int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i >= len(p.sent) {
		return ""
	}
	return p.sent[i].String()
}

// The connection drops but the daemon keeps the request (orphaned): ask
// reconnects, resumes with wait, and delivers the answer given afterwards.
func TestClientResumesWithWaitAfterDrop(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := watcher(t, e)
	px := startProxy(t, filepath.Join(e.Root, "px.sock"), e.Socket)
	ask, out, errb := e.StartClient("", "ask", "--socket", filepath.Join(e.Root, "px.sock"),
		"--question", "Survive a drop?", "--request-id", "drop-1", "--no-autostart", "--format", "text")
	nextAdded(t, w)
	px.drop()
	deadline := time.Now().Add(3 * clientWait)
	for !strings.Contains(px.sentOn(1), "\n") {
		if time.Now().After(deadline) {
			t.Fatalf("ask never reconnected; stderr: %s", errb)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := px.sentOn(1); !strings.HasPrefix(got, `{"type":"wait","requestId":"drop-1"}`) {
		t.Fatalf("the resumed connection sent %q", got)
	}
	mustClient(t, e, "", "answer", "drop-1", "yes")
	wantAnswered(t, ask, out, errb, "Survive a drop?: yes\n")
}

// pending shows the file and the questions; pending clear cancels them all,
// but only with --yes when stdin is not a terminal.
func TestClientPendingAndClear(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := watcher(t, e)
	out := mustClient(t, e, "", "pending")
	if !strings.Contains(out, e.Pending) || !strings.Contains(out, "No questions waiting") {
		t.Errorf("empty pending:\n%s", out)
	}
	mustClient(t, e, "", "ask", "--no-wait", "--question", "Parked one?", "--option", "Yes", "--option", "No")
	nextAdded(t, w)
	ask, _, errb := e.StartClient("", "ask", "--question", "Waiting one?", "--format", "claude")
	nextAdded(t, w)
	out = mustClient(t, e, "", "pending")
	for _, want := range []string{"Pending file: " + e.Pending, "2 requests waiting", "Parked one?", "1) Yes", "Waiting one?"} {
		if !strings.Contains(out, want) {
			t.Errorf("pending lacks %q:\n%s", want, out)
		}
	}
	var pj struct {
		PendingFile string                `json:"pendingFile"`
		Pending     []socketproto.Pending `json:"pending"`
	}
	decodeJSON(t, mustClient(t, e, "", "pending", "--json"), &pj)
	if pj.PendingFile != e.Pending || len(pj.Pending) != 2 {
		t.Errorf("pending --json: %+v", pj)
	}
	if _, errOut, code := e.Client("", "pending", "clear"); code != 2 || !strings.Contains(errOut, "--yes") {
		t.Errorf("clear without --yes off a terminal: exit %d, %q", code, errOut)
	}
	out = mustClient(t, e, "", "pending", "clear", "--yes")
	if !strings.Contains(out, "Cancelled 2 requests") {
		t.Errorf("clear: %q", out)
	}
	if code := finish(t, ask); code != 3 {
		t.Errorf("the waiting asker: exit %d, want 3; stderr: %s", code, errb)
	}
	pending := clientList(t, e)
	if len(pending) != 0 {
		t.Errorf("left after clear: %+v", pending)
	}
}

func TestClientListAndStatus(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	var st socketproto.Status
	decodeJSON(t, mustClient(t, e, "", "status", "--json"), &st)
	if st.State != socketproto.StateIdle || st.Pending != 0 || st.Socket != e.Socket || st.PendingFile != e.Pending {
		t.Errorf("idle status: %+v", st)
	}
	mustClient(t, e, "", "ask", "--no-wait", "--request-id", "l-1", "--agent-id", "agent-7",
		"--question", "Listed?", "--metadata", "k=v")
	pending := clientList(t, e)
	var md map[string]string
	if len(pending) == 1 {
		_ = json.Unmarshal(pending[0].Metadata, &md)
	}
	if len(pending) != 1 || pending[0].RequestID != "l-1" || pending[0].Agent == nil || pending[0].Agent.ID != "agent-7" ||
		md["k"] != "v" {
		t.Fatalf("list --json: %+v", pending)
	}
	// The agent fields from the environment reach the daemon.
	cmd := exec.Command(bin("askuser-client"), "ask", "--no-wait", "--request-id", "l-2", "--question", "From env?")
	cmd.Env = e.Environ("ASKUSER_AGENT_ID=env-agent")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ask with ASKUSER_AGENT_ID: %v\n%s", err, out)
	}
	pending = clientList(t, e)
	if len(pending) != 2 || pending[1].Agent == nil || pending[1].Agent.ID != "env-agent" || pending[1].Agent.Subagent {
		t.Fatalf("ASKUSER_AGENT_ID: %+v", pending)
	}
	mustClient(t, e, "", "cancel", "l-2")
	table := mustClient(t, e, "", "list")
	if !strings.Contains(table, "ID") || !strings.Contains(table, "l-1") || !strings.Contains(table, "agent-7") || !strings.Contains(table, "Listed?") {
		t.Errorf("list table:\n%s", table)
	}
	decodeJSON(t, mustClient(t, e, "", "status", "--json"), &st)
	if st.State != socketproto.StateWaiting || st.Pending != 1 {
		t.Errorf("status with one parked: %+v", st)
	}
	human := mustClient(t, e, "", "status")
	if !strings.Contains(human, "state:") || !strings.Contains(human, "waiting_for_user") || !strings.Contains(human, "pending file:") {
		t.Errorf("status:\n%s", human)
	}
}

// watch prints one JSON event per line: the snapshot, request_added, ...,
// request_resolved.
func TestClientWatch(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	cmd := exec.Command(bin("askuser-client"), "watch")
	cmd.Env = e.Environ()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func(typ string) map[string]any {
		t.Helper()
		timeout := time.After(clientWait)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("watch ended before %s", typ)
				}
				if strings.Contains(l, "\u202e") {
					t.Errorf("watch printed a bidi override raw, which the terminal obeys: %q", l)
				}
				var m map[string]any
				decodeJSON(t, l, &m)
				if m["type"] == typ {
					return m
				}
			case <-timeout:
				t.Fatalf("no %s line", typ)
			}
		}
	}
	next("snapshot")
	// Agent text goes through the sanitiser's JSON form: a bidi override
	// is written as its escape, the same text to a JSON reader.
	mustClient(t, e, "", "ask", "--no-wait", "--request-id", "w-1", "--question", "Watched\u202e?")
	added := next("request_added")
	if req, _ := added["request"].(map[string]any); req["requestId"] != "w-1" ||
		req["questions"].([]any)[0].(map[string]any)["question"] != "Watched\u202e?" {
		t.Errorf("request_added: %v", added)
	}
	mustClient(t, e, "", "answer", "w-1", "seen")
	resolved := next("request_resolved")
	if resolved["requestId"] != "w-1" || resolved["outcome"] != "answered" || resolved["via"] != "cli" {
		t.Errorf("request_resolved: %v", resolved)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	for range lines {
	}
	if code := finish(t, cmd); code != 0 {
		t.Errorf("watch after SIGINT: exit %d", code)
	}
}

func TestClientSchema(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	for _, tool := range []string{"", "ask_user", "ask_user_question"} {
		args := []string{"schema"}
		if tool != "" {
			args = append(args, tool)
		}
		out := mustClient(t, e, "", args...)
		var got, want any
		decodeJSON(t, out, &got)
		if err := json.Unmarshal(agenttool.Schema(tool), &want); err != nil {
			t.Fatal(err)
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if string(gb) != string(wb) || !strings.Contains(out, "\n  ") {
			t.Errorf("schema %q: not the tool's schema, pretty-printed", tool)
		}
	}
	if _, _, code := e.Client("", "schema", "nope"); code != 2 {
		t.Errorf("unknown tool: exit %d, want 2", code)
	}
}

// openPTY opens a pseudo-terminal pair: the test writes the user's keys to
// master; the client reads them from slave, which is a terminal. What the
// client writes to the terminal is read and thrown away, so it never blocks.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, s := openPTYPair(t)
	go func() { _, _ = io.Copy(io.Discard, m) }()
	return m, s
}

// openPTYPair opens a pseudo-terminal pair whose output the test reads from
// master itself.
func openPTYPair(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		testdaemon.Missing(t, "/dev/ptmx", "pseudo-terminals: mount devpts", "no pseudo-terminals here ("+err.Error()+"): this test needs /dev/ptmx to give the client a terminal")
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Fatalf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatalf("open slave: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// On a terminal, pending clear asks first: "n" keeps everything, "y" cancels.
func TestClientPendingClearAsksOnATerminal(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	mustClient(t, e, "", "ask", "--no-wait", "--request-id", "tty-1", "--question", "Keep me?")
	for _, c := range []struct {
		key     string
		out     string
		pending int
	}{
		{"n\n", "", 1},
		{"y\n", "Cancelled 1 request.", 0},
	} {
		master, slave := openPTY(t)
		cmd := exec.Command(bin("askuser-client"), "pending", "clear")
		cmd.Env = e.Environ()
		cmd.Stdin = slave
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := master.Write([]byte(c.key)); err != nil {
			t.Fatal(err)
		}
		if code := finish(t, cmd); code != 0 {
			t.Fatalf("answering %q: exit %d; stderr: %s", c.key, code, errb.String())
		}
		if !strings.Contains(errb.String(), "Cancel 1 pending request? [y/N]") || !strings.Contains(out.String(), c.out) {
			t.Errorf("answering %q: stdout %q, stderr %q", c.key, out.String(), errb.String())
		}
		pending := clientList(t, e)
		if len(pending) != c.pending {
			t.Errorf("after %q: %d pending, want %d", c.key, len(pending), c.pending)
		}
	}
}

// The daemon dies while ask waits (SIGKILL: its socket left behind) and
// nobody restarts it: ask starts a new one itself, resumes there on the
// request the journal brought back, and delivers the answer given to the
// new daemon. (A daemon stopped on purpose is waited for instead: stop_test.go.)
func TestClientReconnectAutostartsDaemon(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := watcher(t, e)
	ask, out, errb := e.StartClient("", "ask", "--question", "Who restarts?", "--request-id", "auto-1", "--format", "text")
	nextAdded(t, w)
	w.Close()
	t.Cleanup(func() { e.StopAutostarted() })
	// Runs first: a client left behind by a failure must not start yet
	// another daemon once the autostarted one is stopped.
	t.Cleanup(func() { _ = ask.Process.Kill() })
	crashed := e.daemon
	e.daemon = nil
	_ = crashed.Process.Kill()
	_ = crashed.Wait()
	// The autostarted daemon appears when the client gets to it; poll for
	// the asked-again request (a safety net, not a measurement).
	deadline := time.Now().Add(3 * clientWait)
	for {
		var pending []socketproto.Pending
		if o, _, code := e.Client("", "list", "--json"); code == 0 {
			decodeJSON(t, o, &pending)
		}
		if len(pending) == 1 && pending[0].RequestID == "auto-1" {
			break
		}
		if time.Now().After(deadline) {
			_ = ask.Process.Kill()
			finish(t, ask)
			t.Fatalf("the request never reached a new daemon; stderr: %s", errb)
		}
		time.Sleep(50 * time.Millisecond)
	}
	mustClient(t, e, "", "answer", "auto-1", "me")
	wantAnswered(t, ask, out, errb, "Who restarts?: me\n")
	var st socketproto.Status
	decodeJSON(t, mustClient(t, e, "", "status", "--json"), &st)
	if st.Socket != e.Socket {
		t.Errorf("status of the new daemon: %+v", st)
	}
}

// An interrupted ask withdraws its request before exiting 130.
func TestClientInterruptedAskWithdraws(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := watcher(t, e)
	ask, _, errb := e.StartClient("", "ask", "--question", "Never mind?")
	p := nextAdded(t, w)
	if err := ask.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	r := testdaemon.RecvType(t, w, "request_resolved", clientWait).(socketproto.RequestResolved)
	if r.RequestID != p.RequestID || r.Outcome != socketproto.OutcomeWithdrawn {
		t.Errorf("resolved %+v, want %s withdrawn", r, p.RequestID)
	}
	if code := finish(t, ask); code != 130 {
		t.Errorf("exit %d, want 130; stderr: %s", code, errb)
	}
}

// An interrupted wait leaves the parked request for a later wait.
func TestClientInterruptedWaitKeepsRequest(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	mustClient(t, e, "", "ask", "--no-wait", "--request-id", "keep-1", "--question", "Later?")
	w := watcher(t, e)
	waitCmd, _, errb := e.StartClient("", "wait", "keep-1")
	// Once wait has taken the request over, the watcher sees it change.
	testdaemon.RecvType(t, w, "request_updated", clientWait)
	if err := waitCmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := finish(t, waitCmd); code != 130 {
		t.Errorf("exit %d, want 130; stderr: %s", code, errb)
	}
	// The daemon learns of the closed connection on its own schedule: poll
	// until keep-1 is parked again (a safety net, not a measurement).
	for deadline := time.Now().Add(clientWait); ; time.Sleep(20 * time.Millisecond) {
		pending := clientList(t, e)
		if len(pending) != 1 || pending[0].RequestID != "keep-1" {
			t.Fatalf("after an interrupted wait: %+v", pending)
		}
		if pending[0].Status == socketproto.StatusParked {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after an interrupted wait keep-1 is %s, want parked", pending[0].Status)
		}
	}
	again, out, errb2 := e.StartClient("", "wait", "keep-1", "--format", "text")
	mustClient(t, e, "", "answer", "keep-1", "now")
	if code := finish(t, again); code != 0 || out.String() != "Later?: now\n" {
		t.Errorf("second wait: exit %d, stdout %q, stderr %s", code, out, errb2)
	}
}

// `answer` run by a person (stderr a terminal) says what it sent; run by a
// script (stderr a pipe) it says nothing.
func TestClientAnswerSaysWhatItSentOnATerminal(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	for _, onTerminal := range []bool{true, false} {
		id := fmt.Sprintf("said-%t", onTerminal)
		mustClient(t, e, "", "ask", "--no-wait", "--request-id", id, "--question", "Which database?",
			"--option", "PostgreSQL", "--option", "SQLite")
		cmd := exec.Command(bin("askuser-client"), "answer", id, "--answers", `[{"selected":["SQLite"],"notes":"keep it small"}]`)
		cmd.Env = e.Environ()
		var errb strings.Builder
		var master *os.File
		if onTerminal {
			m, slave := openPTYPair(t)
			master = m
			cmd.Stderr = slave
		} else {
			cmd.Stderr = &errb
		}
		var out strings.Builder
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("answer: %v; stderr %s", err, errb.String())
		}
		if out.Len() != 0 {
			t.Errorf("answer printed %q on stdout, which is for scripts", out.String())
		}
		if !onTerminal {
			if errb.Len() != 0 {
				t.Errorf("answer with stderr a pipe printed %q", errb.String())
			}
			continue
		}
		want := "Sent to said-true:\r\n  “Which database?” → SQLite\r\n    note: keep it small\r\n"
		got := readUntil(master, want)
		if !strings.Contains(got, want) {
			t.Errorf("on a terminal, answer printed %q; want %q", got, want)
		}
		mustClient(t, e, "", "wait", id)
	}
}

// readUntil reads the terminal until what it read contains want; after
// clientWait it gives up with what it has.
func readUntil(master *os.File, want string) string {
	got := make(chan []byte, 1)
	var seen []byte
	go func() {
		buf := make([]byte, 1024)
		var acc []byte
		for !strings.Contains(string(acc), want) {
			n, err := master.Read(buf)
			acc = append(acc, buf[:n]...)
			if err != nil {
				break
			}
		}
		got <- acc
	}()
	select {
	case seen = <-got:
	case <-time.After(clientWait):
		master.Close() // ends the reader
		seen = <-got
	}
	return string(seen)
}
