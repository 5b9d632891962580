package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/socketproto/agenttool"
	"askuser/socketproto/askclient"
	"askuser/tests/testdaemon"
	"askuser/tests/testdaemon/inproc"
	"askuser/tests/testdir"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests drive the MCP server in-process with the SDK's own client over
// in-memory transports, against a real daemon on a real socket.

const testWait = testdaemon.Wait // a safety net, never a measured threshold

// testConfig points the server at sock without autostart (a test never
// starts a stray daemon).
func testConfig(sock string) Config {
	return Config{
		Client: askclient.Options{SocketPath: sock, Autostart: false},
		Limits: socketproto.DefaultLimits(),
	}
}

// newSession connects the SDK's client to a fresh server built from cfg.
func newSession(t *testing.T, cfg Config, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv := New(ctx, cfg)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "Test Client", Version: "1.0"}, opts)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		_ = ss.Wait()
	})
	return cs
}

// callAsync runs a tool call in the background; the result arrives on the channel.
type callResult struct {
	res *mcp.CallToolResult
	err error
}

func callAsync(ctx context.Context, cs *mcp.ClientSession, params *mcp.CallToolParams) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		res, err := cs.CallTool(ctx, params)
		ch <- callResult{res, err}
	}()
	return ch
}

func await(t *testing.T, ch <-chan callResult) *mcp.CallToolResult {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("tools/call: %v", r.err)
		}
		return r.res
	case <-time.After(testWait):
		t.Fatalf("tools/call did not return within %v", testWait)
	}
	return nil
}

func textOf(t *testing.T, res *mcp.CallToolResult, i int) string {
	t.Helper()
	if len(res.Content) <= i {
		t.Fatalf("result has %d content blocks, want more than %d: %#v", len(res.Content), i, res)
	}
	tc, ok := res.Content[i].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content[%d] is %T, want text", i, res.Content[i])
	}
	return tc.Text
}

// strictArgs is a valid ask_user_question call with one question.
func strictArgs() map[string]any {
	return map[string]any{
		"questions": []any{map[string]any{
			"question":    "Which database should we use?",
			"header":      "Database",
			"multiSelect": false,
			"options": []any{
				map[string]any{"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
				map[string]any{"label": "SQLite", "description": "Lightweight, file-based"},
			},
		}},
		"metadata": map[string]any{"source": "mcp-test"},
	}
}

func TestListsTheToolsWithTheSchemaOfRecord(t *testing.T) {
	cs := newSession(t, testConfig(filepath.Join(testdir.Private(t), "none.sock")), nil)
	init := cs.InitializeResult()
	if init == nil || init.ServerInfo == nil || init.ServerInfo.Name != "askuser" || init.ServerInfo.Version != socketproto.Version {
		t.Fatalf("initialize result: %#v", init)
	}
	if init.Capabilities == nil || init.Capabilities.Tools == nil {
		t.Fatalf("server does not advertise tools: %#v", init.Capabilities)
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.Tool{}
	for _, tool := range list.Tools {
		got[tool.Name] = tool
	}
	if len(got) != 3 || got["ask_user"] == nil || got["ask_user_question"] == nil || got["permission_prompt"] == nil {
		t.Fatalf("tools: %v", sortedKeys(got))
	}
	perm := got["permission_prompt"].InputSchema.(map[string]any)
	if !contains(perm["required"], "tool_name") || !contains(perm["required"], "input") {
		t.Errorf("permission_prompt: required = %v, want tool_name and input", perm["required"])
	}
	delete(got, "permission_prompt")
	for name, tool := range got {
		if tool.Description != agenttool.Description(name) {
			t.Errorf("%s: description differs from agenttool.Description", name)
		}
		var want any
		if err := json.Unmarshal(agenttool.Schema(name), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(tool.InputSchema, want) {
			t.Errorf("%s: input schema differs from agenttool.Schema:\n got %v\nwant %v", name, tool.InputSchema, want)
		}
	}

	// The strict profile's bounds are in the schema a model sees.
	schema := got["ask_user_question"].InputSchema.(map[string]any)
	questions := schemaAt(t, schema, schema, "properties", "questions")
	if questions["minItems"] != 1.0 || questions["maxItems"] != 4.0 {
		t.Errorf("questions: minItems/maxItems = %v/%v, want 1/4", questions["minItems"], questions["maxItems"])
	}
	question := schemaAt(t, schema, questions, "items")
	options := schemaAt(t, schema, question, "properties", "options")
	if options["minItems"] != 2.0 || options["maxItems"] != 4.0 {
		t.Errorf("options: minItems/maxItems = %v/%v, want 2/4", options["minItems"], options["maxItems"])
	}
	header := schemaAt(t, schema, question, "properties", "header")
	if header["maxLength"] != 12.0 {
		t.Errorf("header maxLength = %v, want 12", header["maxLength"])
	}
	for _, f := range []string{"question", "header", "options", "multiSelect"} {
		if !contains(question["required"], f) {
			t.Errorf("strict question: %q not required (required: %v)", f, question["required"])
		}
	}
	if !contains(schema["required"], "questions") {
		t.Errorf("questions not required at the top: %v", schema["required"])
	}
	option := schemaAt(t, schema, options, "items")
	if !contains(option["required"], "label") {
		t.Errorf("option label not required: %v", option["required"])
	}
}

// schemaAt walks keys from node. The schema is written out whole, without
// $refs: root is where one would be resolved.
func schemaAt(t *testing.T, root, node map[string]any, keys ...string) map[string]any {
	t.Helper()
	cur := node
	for _, k := range keys {
		if _, ref := cur["$ref"]; ref {
			t.Fatalf("schema has a $ref at %v; schemaAt does not follow them", cur)
		}
		next, ok := cur[k].(map[string]any)
		if !ok {
			t.Fatalf("schema has no object at %q (in %v)", k, cur)
		}
		cur = next
	}
	return cur
}

func contains(list any, s string) bool {
	l, _ := list.([]any)
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestRefusesBadInputNamingTheField(t *testing.T) {
	// No daemon: the rules are applied before anything is sent.
	cs := newSession(t, testConfig(filepath.Join(testdir.Private(t), "none.sock")), nil)
	five := []any{}
	for i := range 5 {
		five = append(five, map[string]any{"label": "Option " + strconv.Itoa(i+1)})
	}
	with := func(edit func(q map[string]any)) map[string]any {
		args := strictArgs()
		edit(args["questions"].([]any)[0].(map[string]any))
		return args
	}
	cases := []struct {
		name string
		tool string
		args any
		want string
	}{
		{"five options", "ask_user_question", with(func(q map[string]any) { q["options"] = five }),
			"questions[0].options: need 2 to 4 options, got 5"},
		{"no questions", "ask_user_question", map[string]any{}, "questions"},
		{"no arguments", "ask_user", nil, "questions"},
		{"header too long", "ask_user_question", with(func(q map[string]any) { q["header"] = "A header far too long" }),
			"questions[0].header"},
		{"missing multiSelect", "ask_user_question", with(func(q map[string]any) { delete(q, "multiSelect") }),
			"questions[0].multiSelect"},
		{"wrongly typed multiSelect", "ask_user", with(func(q map[string]any) { q["multiSelect"] = "yes" }),
			"questions[0].multiSelect"},
		{"misspelt field", "ask_user_question", with(func(q map[string]any) { q["multiselect"] = true }),
			`questions[0].multiselect: unknown field; did you mean "multiSelect"?`},
		{"unknown top-level field", "ask_user", map[string]any{"questions": []any{map[string]any{"question": "Name?"}}, "timeout": 5},
			"timeout: unknown field"},
		{"duplicate labels", "ask_user", with(func(q map[string]any) {
			q["options"] = []any{map[string]any{"label": "A"}, map[string]any{"label": "A"}}
		}), "questions[0].options[1].label"},
		{"metadata not an object", "ask_user", map[string]any{"questions": []any{map[string]any{"question": "Name?"}}, "metadata": 3},
			"metadata"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil {
				t.Fatalf("a bad call must be a tool error, not a protocol error: %v", err)
			}
			if !res.IsError {
				t.Fatalf("not an error: %s", textOf(t, res, 0))
			}
			if got := textOf(t, res, 0); !strings.HasPrefix(got, c.want) {
				t.Errorf("error %q, want it to start with %q", got, c.want)
			}
		})
	}
}

func TestSubagentIsRefusedWithTheExactMessage(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		flag bool
	}{
		{"flag", nil, true},
		{"ASKUSER_SUBAGENT", map[string]string{"ASKUSER_SUBAGENT": "1"}, false},
		{"ASKUSER_PARENT_ID", map[string]string{"ASKUSER_PARENT_ID": "claude-main"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			cfg := testConfig(filepath.Join(testdir.Private(t), "none.sock"))
			cfg.Subagent = c.flag
			cs := newSession(t, cfg, nil)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_user_question", Arguments: strictArgs()})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || textOf(t, res, 0) != socketproto.SubagentMessage {
				t.Fatalf("got isError=%v %q, want the sub-agent refusal", res.IsError, textOf(t, res, 0))
			}
		})
	}
}

func TestUnreachableDaemonSaysHowToStartIt(t *testing.T) {
	sock := filepath.Join(testdir.Private(t), "none.sock")
	cs := newSession(t, testConfig(sock), nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_user", Arguments: strictArgs()})
	if err != nil {
		t.Fatal(err)
	}
	text := textOf(t, res, 0)
	if !res.IsError || !strings.Contains(text, "run 'askuserd' in a terminal, or 'askuserd serve'") || !strings.Contains(text, sock) {
		t.Fatalf("got isError=%v %q", res.IsError, text)
	}
}

func TestAnsweredCallReturnsTheToolsShape(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	cs := newSession(t, testConfig(sock), nil)

	t.Run("ask_user_question gives the claude shape", func(t *testing.T) {
		ch := callAsync(context.Background(), cs, &mcp.CallToolParams{Name: "ask_user_question", Arguments: strictArgs()})
		added := watch("request_added").(socketproto.RequestAdded)
		p := added.Request
		if p.Tool != "ask_user_question" || p.Agent == nil {
			t.Fatalf("queued request: %#v", p)
		}
		if want := "test-client-" + strconv.Itoa(os.Getpid()); p.Agent.ID != want || p.Agent.Name != "Test Client" {
			t.Errorf("agent = %+v, want id %q and name %q", *p.Agent, want, "Test Client")
		}
		if string(p.Metadata) != `{"source":"mcp-test"}` {
			t.Errorf("metadata = %s", p.Metadata)
		}
		testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI,
			Answers: []json.RawMessage{json.RawMessage(`{"selected":["SQLite"],"notes":"keep it small"}`)}})
		res := await(t, ch)
		if res.IsError {
			t.Fatalf("error: %s", textOf(t, res, 0))
		}
		want := map[string]any{
			"answers":     map[string]any{"Which database should we use?": "SQLite"},
			"annotations": map[string]any{"Which database should we use?": map[string]any{"notes": "keep it small"}},
			"summary":     `Asked "Which database should we use?"; the user chose SQLite. Note: keep it small.`,
		}
		var text any
		if err := json.Unmarshal([]byte(textOf(t, res, 0)), &text); err != nil {
			t.Fatalf("text is not JSON: %v", err)
		}
		if !reflect.DeepEqual(text, want) {
			t.Errorf("text = %v, want %v", text, want)
		}
		if !reflect.DeepEqual(res.StructuredContent, want) {
			t.Errorf("structuredContent = %v, want %v", res.StructuredContent, want)
		}
	})

	t.Run("ask_user gives the pi shape", func(t *testing.T) {
		args := map[string]any{"questions": []any{
			map[string]any{"question": "Which features?", "multiSelect": true, "options": []any{
				map[string]any{"label": "Authentication"}, map[string]any{"label": "REST API"}, map[string]any{"label": "Admin"}}},
			map[string]any{"question": "What should we name this service?"},
		}}
		ch := callAsync(context.Background(), cs, &mcp.CallToolParams{Name: "ask_user", Arguments: args})
		p := watch("request_added").(socketproto.RequestAdded).Request
		testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI,
			Answers: []json.RawMessage{json.RawMessage(`["Authentication","REST API"]`), json.RawMessage(`"order-processor"`)}})
		res := await(t, ch)
		if res.IsError {
			t.Fatalf("error: %s", textOf(t, res, 0))
		}
		var got struct {
			Answered bool                 `json:"answered"`
			Answers  []socketproto.Answer `json:"answers"`
		}
		if err := json.Unmarshal([]byte(textOf(t, res, 0)), &got); err != nil {
			t.Fatal(err)
		}
		if !got.Answered || len(got.Answers) != 2 ||
			!reflect.DeepEqual(got.Answers[0].Answer.List, []string{"Authentication", "REST API"}) ||
			got.Answers[1].Answer.Text != "order-processor" || !got.Answers[1].WasCustom {
			t.Errorf("pi shape: %s", textOf(t, res, 0))
		}
		sc, _ := res.StructuredContent.(map[string]any)
		if sc["answered"] != true || !strings.HasPrefix(fmt.Sprint(sc["summary"]), `Asked "Which features?"; the user chose Authentication and REST API.`) {
			t.Errorf("structuredContent = %v", res.StructuredContent)
		}
	})
}

func TestUserCancelIsAResultNotAnError(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	cs := newSession(t, testConfig(sock), nil)
	for _, tool := range []string{"ask_user_question", "ask_user"} {
		t.Run(tool, func(t *testing.T) {
			ch := callAsync(context.Background(), cs, &mcp.CallToolParams{Name: tool, Arguments: strictArgs()})
			p := watch("request_added").(socketproto.RequestAdded).Request
			testdaemon.SendOK(t, sock, socketproto.Cancel{RequestID: p.RequestID, Via: socketproto.ViaCLI})
			res := await(t, ch)
			if res.IsError {
				t.Fatalf("a cancel must not be a tool error: %v", res.Content)
			}
			var shape map[string]any
			if err := json.Unmarshal([]byte(textOf(t, res, 0)), &shape); err != nil {
				t.Fatal(err)
			}
			if shape["cancelled"] != true {
				t.Errorf("shape = %v, want cancelled: true", shape)
			}
			if tool == "ask_user" && shape["answered"] != false {
				t.Errorf("pi shape = %v, want answered: false", shape)
			}
			if got := textOf(t, res, 1); got != "The user declined to answer; proceed without these answers." {
				t.Errorf("second block = %q", got)
			}
			// Claude Code and Codex hand the model the structured content
			// alone: the sentence must be in it.
			if sc, _ := res.StructuredContent.(map[string]any); sc["cancelled"] != true || sc["summary"] != socketproto.DeclinedSentence {
				t.Errorf("structuredContent = %v, want cancelled and the declined sentence as summary", res.StructuredContent)
			}
			if shape["summary"] != socketproto.DeclinedSentence {
				t.Errorf("text = %v, want the declined sentence as summary", shape)
			}
		})
	}
}

func TestProgressWhileWaiting(t *testing.T) {
	old := progressInterval
	progressInterval = 10 * time.Millisecond
	t.Cleanup(func() { progressInterval = old })

	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	three := make(chan struct{})
	cs := newSession(t, testConfig(sock), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, req.Params)
			if len(got) == 3 {
				close(three)
			}
		},
	})
	snapshot := func() []*mcp.ProgressNotificationParams {
		mu.Lock()
		defer mu.Unlock()
		return append([]*mcp.ProgressNotificationParams(nil), got...)
	}
	params := &mcp.CallToolParams{Name: "ask_user_question", Arguments: strictArgs()}
	params.SetProgressToken("tok-1")
	ch := callAsync(context.Background(), cs, params)
	p := watch("request_added").(socketproto.RequestAdded).Request
	select {
	case <-three:
	case <-time.After(testWait):
		t.Fatal("fewer than 3 progress notifications")
	}
	// The notification that says where the question waits is sent when the
	// daemon's ask_user_queued arrives; with a 10 ms ticker, plain "still
	// waiting" ticks may come before it, so look for it among them all.
	testdaemon.Eventually(t, "a progress notification that says which request waits", func() (bool, string) {
		notes := snapshot()
		for _, n := range notes {
			if strings.Contains(n.Message, p.RequestID) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", notes)
	})
	testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI,
		Answers: []json.RawMessage{json.RawMessage(`1`)}})
	res := await(t, ch)
	if res.IsError {
		t.Fatal(textOf(t, res, 0))
	}
	notes := snapshot()
	for i, n := range notes {
		if n.ProgressToken != "tok-1" {
			t.Errorf("notification %d: token %v", i, n.ProgressToken)
		}
		if i > 0 && n.Progress <= notes[i-1].Progress {
			t.Errorf("progress does not increase: %v then %v", notes[i-1].Progress, n.Progress)
		}
	}

	// Without a token, no notification is sent: while that call waits, a
	// call with a token started after it, on the same session and the same
	// interval, hears its ticker three times; the one without hears none.
	ch = callAsync(context.Background(), cs, &mcp.CallToolParams{Name: "ask_user_question", Arguments: strictArgs()})
	p = watch("request_added").(socketproto.RequestAdded).Request
	params = &mcp.CallToolParams{Name: "ask_user_question", Arguments: strictArgs()}
	params.SetProgressToken("tok-2")
	ch2 := callAsync(context.Background(), cs, params)
	p2 := watch("request_added").(socketproto.RequestAdded).Request
	testdaemon.Eventually(t, `three "still waiting" notifications for the call with token tok-2`, func() (bool, string) {
		ticks := 0
		for _, n := range snapshot()[len(notes):] {
			if n.ProgressToken == "tok-2" && strings.HasPrefix(n.Message, "still waiting") {
				ticks++
			}
		}
		return ticks >= 3, fmt.Sprintf("%d", ticks)
	})
	for i, id := range []string{p.RequestID, p2.RequestID} {
		testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: id, Via: socketproto.ViaCLI,
			Answers: []json.RawMessage{json.RawMessage(fmt.Sprint(i + 1))}})
	}
	await(t, ch)
	await(t, ch2)
	for _, n := range snapshot()[len(notes):] {
		if n.ProgressToken != "tok-2" {
			t.Errorf("a notification for a call without a progress token: %+v", n)
		}
	}
}

func TestCancellationWithdrawsTheRequest(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	cs := newSession(t, testConfig(sock), nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := callAsync(ctx, cs, &mcp.CallToolParams{Name: "ask_user_question", Arguments: strictArgs()})
	p := watch("request_added").(socketproto.RequestAdded).Request
	cancel() // the SDK client sends notifications/cancelled
	r := watch("request_resolved").(socketproto.RequestResolved)
	if r.RequestID != p.RequestID || r.Outcome != socketproto.OutcomeWithdrawn {
		t.Fatalf("resolved = %+v, want %s withdrawn", r, p.RequestID)
	}
	if res := <-ch; res.err == nil {
		t.Errorf("a cancelled call returned a result: %v", res.res)
	}
}

func TestServerStopWithdrawsCallsInFlight(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	// A session whose server context is cancelled the way a signal cancels it.
	base, stop := context.WithCancel(context.Background())
	defer stop()
	srv := New(base, testConfig(sock))
	st, ct := mcp.NewInMemoryTransports()
	runDone := make(chan error, 1)
	go func() { runDone <- srv.Run(base, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stopper", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ch := callAsync(context.Background(), cs, &mcp.CallToolParams{Name: "ask_user", Arguments: strictArgs()})
	p := watch("request_added").(socketproto.RequestAdded).Request
	stop()
	r := watch("request_resolved").(socketproto.RequestResolved)
	if r.RequestID != p.RequestID || r.Outcome != socketproto.OutcomeWithdrawn {
		t.Fatalf("resolved = %+v, want %s withdrawn", r, p.RequestID)
	}
	select {
	case <-runDone:
	case <-time.After(testWait):
		t.Fatal("server did not stop")
	}
	if r := <-ch; r.err == nil && (!r.res.IsError || !strings.Contains(textOf(t, r.res, 0), "withdrawn")) {
		t.Errorf("the call ended with %#v", r.res)
	}
}

func TestConcurrentCallsGetTheirOwnAnswers(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	cs := newSession(t, testConfig(sock), nil)
	question := func(text string) map[string]any {
		return map[string]any{"questions": []any{map[string]any{"question": text}}}
	}
	first := callAsync(context.Background(), cs, &mcp.CallToolParams{Name: "ask_user", Arguments: question("First?")})
	a := watch("request_added").(socketproto.RequestAdded).Request
	// Some clients send nested arguments as JSON text; it is read as what it holds.
	second := callAsync(context.Background(), cs, &mcp.CallToolParams{Name: "ask_user",
		Arguments: map[string]any{"questions": `[{"question": "Second?"}]`}})
	b := watch("request_added").(socketproto.RequestAdded).Request
	for _, p := range []socketproto.Pending{b, a} { // answered in the other order
		testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI,
			Answers: []json.RawMessage{json.RawMessage(strconv.Quote("answer to " + p.Questions[0].Question))}})
	}
	for _, c := range []struct {
		ch   <-chan callResult
		want string
	}{{first, "answer to First?"}, {second, "answer to Second?"}} {
		res := await(t, c.ch)
		if res.IsError || !strings.Contains(textOf(t, res, 0), c.want) {
			t.Errorf("got %q, want it to carry %q", textOf(t, res, 0), c.want)
		}
	}
}

func TestDaemonGoneForGoodIsAToolError(t *testing.T) {
	old := askclient.ReconnectWindow
	askclient.ReconnectWindow = 200 * time.Millisecond
	t.Cleanup(func() { askclient.ReconnectWindow = old })

	d := inproc.Start(t, nil)
	sock, stopDaemon := d.Socket, d.Stop
	watch := testdaemon.WatchNext(t, sock)
	cs := newSession(t, testConfig(sock), nil)
	ch := callAsync(context.Background(), cs, &mcp.CallToolParams{Name: "ask_user", Arguments: strictArgs()})
	watch("request_added")
	stopDaemon()
	// It died rather than stopped: its socket is left behind, refusing
	// connections (a clean stop removes it, and waiting clients then wait
	// for the user to start it again, without a deadline).
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	res := await(t, ch)
	if text := textOf(t, res, 0); !res.IsError || !strings.Contains(text, "the question was lost: connection to askuserd lost") ||
		!strings.Contains(text, "'askuserd serve'") {
		t.Fatalf("got isError=%v %q", res.IsError, text)
	}
}
