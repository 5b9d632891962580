package socketproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"askuser/tests/testdir"
)

func TestEncode(t *testing.T) {
	tests := []struct {
		msg  Message
		want string
	}{
		{OK{RequestID: "r1"}, `{"type":"ok","requestId":"r1"}`},
		{OK{}, `{"type":"ok"}`},
		{ListRequest{}, `{"type":"list"}`},
		{Wait{RequestID: "r"}, `{"type":"wait","requestId":"r"}`},
		{DraftRequest{RequestID: "r", Index: 2, Answer: json.RawMessage(`"SQLite"`), Via: ViaPane},
			`{"type":"draft","requestId":"r","index":2,"answer":"SQLite","via":"pane"}`},
		{DraftRequest{RequestID: "r"}, `{"type":"draft","requestId":"r","index":0,"answer":null}`},
		{Errf(CodeInvalidRequest, "questions[1].options", "need 2 to 4 options, got 5"),
			`{"type":"error","code":"invalid_request","message":"questions[1].options: need 2 to 4 options, got 5","field":"questions[1].options"}`},
		{AskUserRequest{Request: Request{RequestID: "a", Questions: []Question{{Question: "Q?", MultiSelect: boolp(true)}}}, Wait: boolp(false)},
			`{"type":"ask_user_request","requestId":"a","questions":[{"question":"Q?","multiSelect":true}],"wait":false}`},
	}
	for _, tc := range tests {
		b, err := Encode(tc.msg)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want+"\n" {
			t.Errorf("\n got: %s\nwant: %s", b, tc.want)
		}
	}
}

// A request already encoded (as the daemon's journal writes it) framed as
// request_added is the event encoded.
func TestEncodeRequestAdded(t *testing.T) {
	p := Pending{Request: Request{RequestID: "r", Agent: &Agent{ID: "a", Name: "claude", Cwd: "/tmp/x <&>"},
		Metadata:  json.RawMessage(`{"note":"\u202e <b>","ticket":42}`),
		Questions: []Question{{Question: "Which <one> & why?", Options: []Option{{Label: "A"}, {Label: "B"}}}}},
		CreatedAt: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC), Status: StatusWaiting}
	request, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Encode(RequestAdded{Request: p})
	if err != nil {
		t.Fatal(err)
	}
	if got := EncodeRequestAdded(request); string(got) != string(want) {
		t.Errorf("\n got: %s\nwant: %s", got, want)
	}
}

// readAll reads lines until an error and reports them as strings, the error last.
func readAll(r io.Reader, max int) (lines []string, err error) {
	lr := NewLineReader(r, max)
	for {
		line, err := lr.ReadLine()
		if err != nil {
			return lines, err
		}
		lines = append(lines, string(line))
	}
}

func TestLineReader(t *testing.T) {
	const max = 16
	atLimit := strings.Repeat("a", max)
	tests := []struct {
		name  string
		in    string
		lines []string
		err   error
	}{
		{name: "one line", in: "{}\n", lines: []string{"{}"}, err: io.EOF},
		{name: "pipelined", in: "{\"a\":1}\n{\"b\":2}\n{}\n", lines: []string{`{"a":1}`, `{"b":2}`, "{}"}, err: io.EOF},
		{name: "CRLF", in: "{}\r\n{\"a\":1}\r\n", lines: []string{"{}", `{"a":1}`}, err: io.EOF},
		{name: "blank lines skipped", in: "\n\n  \n{}\n\r\n\t\n{}\n", lines: []string{"{}", "{}"}, err: io.EOF},
		{name: "exactly at limit", in: atLimit + "\n", lines: []string{atLimit}, err: io.EOF},
		{name: "exactly at limit with CRLF", in: atLimit + "\r\n", lines: []string{atLimit}, err: io.EOF},
		{name: "one over limit", in: atLimit + "b\n", err: ErrTooLarge},
		{name: "one over limit with CRLF", in: atLimit + "b\r\n", err: ErrTooLarge},
		{name: "over limit after good line", in: "{}\n" + strings.Repeat("x", 100) + "\n{}\n", lines: []string{"{}"}, err: ErrTooLarge},
		{name: "over limit without newline", in: strings.Repeat("x", 100), err: ErrTooLarge},
		{name: "EOF mid-line", in: "{}\n{\"type\":", lines: []string{"{}"}, err: io.ErrUnexpectedEOF},
		{name: "EOF after whitespace", in: "{}\n  ", lines: []string{"{}"}, err: io.EOF},
		{name: "empty", in: "", err: io.EOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// One byte at a time too: lines assembled across reads must not differ.
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				lines, err := readAll(r, max)
				if !reflect.DeepEqual(lines, tc.lines) {
					t.Fatalf("lines = %q, want %q", lines, tc.lines)
				}
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
			}
		})
	}
}

// TestLineReaderLongLines crosses the reader's internal buffer many times.
func TestLineReaderLongLines(t *testing.T) {
	max := DefaultLimits().MaxMessageBytes
	big := `{"type":"x","s":"` + strings.Repeat("é", (max-20)/2) + `"}`
	if len(big) > max {
		t.Fatalf("fixture too long: %d", len(big))
	}
	in := big + "\n" + `{"type":"list"}` + "\n" + strings.Repeat("z", max+1) + "\n"
	lines, err := readAll(strings.NewReader(in), 0)
	if len(lines) != 2 || lines[0] != big || lines[1] != `{"type":"list"}` {
		t.Fatalf("got %d lines", len(lines))
	}
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v", err)
	}
}

func TestDecodeFromClientErrors(t *testing.T) {
	q := func(i int, body string) string { // questions with the i-th replaced
		qs := []string{`{"question":"A?"}`, `{"question":"B?"}`}
		qs[i] = body
		return `{"type":"ask_user_request","requestId":"r1","questions":[` + strings.Join(qs, ",") + `]}`
	}
	tests := []struct {
		name  string
		line  string
		code  ErrorCode
		field string
		msg   string // substring
		reqID string
	}{
		{name: "not JSON", line: `hello`, code: CodeBadJSON, msg: "not valid JSON"},
		{name: "truncated JSON", line: `{"type":"list"`, code: CodeBadJSON},
		{name: "trailing garbage", line: `{"type":"list"} x`, code: CodeBadJSON},
		{name: "array", line: `[1,2]`, code: CodeBadJSON, msg: "message must be a JSON object, got a list"},
		{name: "string", line: `"list"`, code: CodeBadJSON, msg: "got a string"},
		{name: "null", line: `null`, code: CodeBadJSON, msg: "message must be a JSON object, got null"},
		{name: "invalid UTF-8", line: "{\"type\":\"list\",\"x\":\"\xff\"}", code: CodeBadJSON, msg: "not valid UTF-8 (at byte 20)"},
		{name: "missing type", line: `{"requestId":"r9"}`, code: CodeInvalidRequest, field: "type", reqID: "r9"},
		{name: "type not a string", line: `{"type":5}`, code: CodeInvalidRequest, field: "type", msg: "must be a string, got number"},
		{name: "unknown type", line: `{"type":"ask","requestId":"r2"}`, code: CodeUnknownType, field: "type", msg: `unknown message type "ask"`, reqID: "r2"},
		{name: "questions missing", line: `{"type":"ask_user_request","requestId":"r3"}`, code: CodeInvalidRequest, field: "questions", reqID: "r3"},
		{name: "questions not a list", line: `{"type":"ask_user_request","questions":{"question":"A?"}}`, code: CodeInvalidRequest, field: "questions", msg: "questions: must be a list, got object"},
		{name: "question not an object", line: q(1, `"B?"`), code: CodeInvalidRequest, field: "questions[1]", msg: "questions[1]: must be an object, got string", reqID: "r1"},
		{name: "question text missing", line: q(1, `{"header":"B"}`), code: CodeInvalidRequest, field: "questions[1].question", msg: "questions[1].question: missing"},
		{name: "question text a number", line: q(0, `{"question":5}`), code: CodeInvalidRequest, field: "questions[0].question", msg: "must be a string, got number"},
		{name: "multiSelect a string", line: q(1, `{"question":"B?","multiSelect":"yes"}`), code: CodeInvalidRequest, field: "questions[1].multiSelect", msg: "questions[1].multiSelect: must be a boolean, got string"},
		{name: "header a number", line: q(1, `{"question":"B?","header":12}`), code: CodeInvalidRequest, field: "questions[1].header"},
		{name: "options an object", line: q(0, `{"question":"A?","options":{"label":"x"}}`), code: CodeInvalidRequest, field: "questions[0].options", msg: "must be a list, got object"},
		{name: "option a string", line: q(0, `{"question":"A?","options":["x","y"]}`), code: CodeInvalidRequest, field: "questions[0].options[0]", msg: "must be an object, got string"},
		{name: "label missing", line: q(1, `{"question":"B?","options":[{"label":"x"},{"description":"y"}]}`), code: CodeInvalidRequest, field: "questions[1].options[1].label", msg: "missing"},
		{name: "label a number", line: q(1, `{"question":"B?","options":[{"label":1}]}`), code: CodeInvalidRequest, field: "questions[1].options[0].label"},
		{name: "description a list", line: q(0, `{"question":"A?","options":[{"label":"x","description":["d"]}]}`), code: CodeInvalidRequest, field: "questions[0].options[0].description"},
		{name: "preview a number", line: q(0, `{"question":"A?","options":[{"label":"x","preview":1}]}`), code: CodeInvalidRequest, field: "questions[0].options[0].preview"},
		{name: "requestId a number", line: `{"type":"ask_user_request","requestId":5,"questions":[{"question":"A?"}]}`, code: CodeInvalidRequest, field: "requestId", msg: "must be a string, got number"},
		{name: "requestId bad pattern", line: `{"type":"ask_user_request","requestId":"a b","questions":[{"question":"A?"}]}`, code: CodeInvalidRequest, field: "requestId", msg: "must match [A-Za-z0-9._:-]{1,128}"},
		{name: "requestId too long", line: `{"type":"ask_user_request","requestId":"` + strings.Repeat("r", 129) + `","questions":[{"question":"A?"}]}`, code: CodeInvalidRequest, field: "requestId"},
		{name: "tool a number", line: `{"type":"ask_user_request","tool":1,"questions":[{"question":"A?"}]}`, code: CodeInvalidRequest, field: "tool"},
		{name: "wait a string", line: `{"type":"ask_user_request","wait":"no","questions":[{"question":"A?"}]}`, code: CodeInvalidRequest, field: "wait", msg: "must be a boolean"},
		{name: "metadata a list", line: `{"type":"ask_user_request","metadata":[1],"questions":[{"question":"A?"}]}`, code: CodeInvalidRequest, field: "metadata", msg: "must be an object"},
		{name: "agent a string", line: `{"type":"ask_user_request","agent":"me","questions":[{"question":"A?"}]}`, code: CodeInvalidRequest, field: "agent", msg: "must be an object"},
		{name: "agent.subagent a string", line: `{"type":"ask_user_request","agent":{"subagent":"yes"},"questions":[{"question":"A?"}]}`, code: CodeInvalidRequest, field: "agent.subagent", msg: "must be a boolean"},
		// Keys are matched exactly as spelled: encoding/json alone would take
		// these for multiSelect and options, or drop them without a word.
		{name: "miscased multiSelect", line: q(1, `{"question":"B?","multiselect":true}`), code: CodeInvalidRequest, field: "questions[1].multiselect", msg: `unknown field; did you mean "multiSelect"?`, reqID: "r1"},
		{name: "upper-case OPTIONS", line: q(0, `{"question":"A?","OPTIONS":[{"label":"x"},{"label":"y"}]}`), code: CodeInvalidRequest, field: "questions[0].OPTIONS", msg: `did you mean "options"?`},
		{name: "mistyped option key", line: q(0, `{"question":"A?","options":[{"label":"x","descripton":"d"}]}`), code: CodeInvalidRequest, field: "questions[0].options[0].descripton", msg: `did you mean "description"?`},
		{name: "unknown option key", line: q(0, `{"question":"A?","options":[{"label":"x","colour":"d"}]}`), code: CodeInvalidRequest, field: "questions[0].options[0].colour", msg: `unknown field; allowed: "approvesPreview", "description", "label", "preview"`},
		{name: "miscased top key", line: `{"type":"ask_user_request","requestId":"r4","Questions":[{"question":"A?"}]}`, code: CodeInvalidRequest, field: "Questions", msg: `did you mean "questions"?`, reqID: "r4"},
		{name: "unknown top key", line: `{"type":"ask_user_request","timeout":5,"questions":[{"question":"A?"}]}`, code: CodeInvalidRequest, field: "timeout", msg: "unknown field; allowed:"},
		{name: "miscased agent key", line: `{"type":"ask_user_request","agent":{"parentID":"p"},"questions":[{"question":"A?"}]}`, code: CodeInvalidRequest, field: "agent.parentID", msg: `did you mean "parentId"?`},
		{name: "miscased input key", line: q(0, `{"question":"A?","input":{"type":"integer","Minimum":1}}`), code: CodeInvalidRequest, field: "questions[0].input.Minimum", msg: `did you mean "minimum"?`},
		{name: "input items key", line: q(0, `{"question":"A?","input":{"type":"array","items":{"type":"string","enums":["a"]}}}`), code: CodeInvalidRequest, field: "questions[0].input.items.enums", msg: `did you mean "enum"?`},
		{name: "miscased question key", line: q(0, `{"Question":"A?"}`), code: CodeInvalidRequest, field: "questions[0].Question", msg: `did you mean "question"?`},
		{name: "wait without id", line: `{"type":"wait"}`, code: CodeInvalidRequest, field: "requestId", msg: "requestId: missing"},
		{name: "wait bad id", line: `{"type":"wait","requestId":"no/slash"}`, code: CodeInvalidRequest, field: "requestId"},
		{name: "cancel bad via", line: `{"type":"cancel","requestId":"r","via":"file"}`, code: CodeInvalidRequest, field: "via", reqID: "r"},
		{name: "answer without answers", line: `{"type":"answer","requestId":"r"}`, code: CodeInvalidRequest, field: "answers", reqID: "r"},
		{name: "answer answers not a list", line: `{"type":"answer","requestId":"r","answers":"SQLite"}`, code: CodeInvalidRequest, field: "answers", msg: "must be a list", reqID: "r"},
		{name: "draft without index", line: `{"type":"draft","requestId":"r","answer":"x"}`, code: CodeInvalidRequest, field: "index", reqID: "r"},
		{name: "draft index a string", line: `{"type":"draft","requestId":"r","index":"1","answer":"x"}`, code: CodeInvalidRequest, field: "index", msg: "must be a whole number", reqID: "r"},
		{name: "draft without answer", line: `{"type":"draft","requestId":"r","index":0}`, code: CodeInvalidRequest, field: "answer", msg: "or null to clear it", reqID: "r"},
		{name: "draft without id", line: `{"type":"draft","index":0,"answer":null}`, code: CodeInvalidRequest, field: "requestId"},
		{name: "draft bad via", line: `{"type":"draft","requestId":"r","index":0,"answer":null,"via":"file"}`, code: CodeInvalidRequest, field: "via", reqID: "r"},
		{name: "subscribe bad role", line: `{"type":"subscribe","role":"admin"}`, code: CodeInvalidRequest, field: "role"},
		{name: "hello protocol a string", line: `{"type":"hello","protocol":"1"}`, code: CodeInvalidRequest, field: "protocol"},
		{name: "hello protocol a fraction", line: `{"type":"hello","protocol":1.5}`, code: CodeInvalidRequest, field: "protocol", msg: "protocol: must be a whole number, got number 1.5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg, err := DecodeFromClient([]byte(tc.line))
			if err == nil {
				t.Fatalf("want %s, decoded %#v", tc.code, msg)
			}
			if msg != nil {
				t.Fatalf("a message came back with an error: %#v", msg)
			}
			if err.Code != tc.code || err.Field != tc.field {
				t.Fatalf("got code %q field %q (%s); want %q %q", err.Code, err.Field, err.Message, tc.code, tc.field)
			}
			if !strings.Contains(err.Message, tc.msg) {
				t.Fatalf("message %q lacks %q", err.Message, tc.msg)
			}
			if tc.field != "" && !strings.HasPrefix(err.Message, tc.field+": ") {
				t.Fatalf("message %q does not start with its field", err.Message)
			}
			wantID := tc.reqID
			if wantID == "" && strings.HasPrefix(tc.line, q(0, `{"question":"A?"}`)[:50]) {
				wantID = "r1" // every request q builds carries a valid id
			}
			if err.RequestID != wantID {
				t.Fatalf("requestId = %q, want %q", err.RequestID, tc.reqID)
			}
			if _, encErr := Encode(err); encErr != nil {
				t.Fatalf("error does not encode: %v", encErr)
			}
		})
	}
}

func TestDecodeFromClientMessages(t *testing.T) {
	tests := []struct {
		line string
		want Message
	}{
		{`{"type":"hello","protocol":1,"client":"test/1"}`, Hello{Protocol: 1, Client: "test/1"}},
		{`{"type":"list"}`, ListRequest{}},
		{`{"type":"status"}`, StatusRequest{}},
		{`{"type":"subscribe","role":"watch"}`, Subscribe{Role: RoleWatch}},
		{`{"type":"wait","requestId":"r.1:x-y_z"}`, Wait{RequestID: "r.1:x-y_z"}},
		{`{"type":"cancel","requestId":"r","via":"cli"}`, Cancel{RequestID: "r", Via: ViaCLI}},
		{`{"type":"answer","requestId":"r","answers":["SQLite",2,["a"],{"selected":["x"]}],"via":"pane"}`,
			AnswerRequest{RequestID: "r", Via: ViaPane, Answers: []json.RawMessage{
				json.RawMessage(`"SQLite"`), json.RawMessage(`2`), json.RawMessage(`["a"]`), json.RawMessage(`{"selected":["x"]}`)}}},
		{`{"type":"draft","requestId":"r","index":1,"answer":{"selected":["x"],"notes":"n"},"via":"pane"}`,
			DraftRequest{RequestID: "r", Index: 1, Answer: json.RawMessage(`{"selected":["x"],"notes":"n"}`), Via: ViaPane}},
		{`{"type":"draft","requestId":"r","index":0,"answer":null}`, DraftRequest{RequestID: "r", Answer: json.RawMessage(`null`)}},
		{`{"type":"ask_user_request","tool":"ask_user_question","questions":[{"question":"Q?","header":"H","multiSelect":false,` +
			`"options":[{"label":"A","description":"d","preview":"p\nq"},{"label":"B"}]},{"question":"Free?","options":[]}],` +
			`"metadata":{"k":"v"},"agent":{"id":"a1","name":"n","cwd":"/w"},"wait":false}`,
			AskUserRequest{Request: Request{Tool: ToolAskUserQuestion, Questions: []Question{
				{Question: "Q?", Header: "H", MultiSelect: boolp(false), Options: []Option{{Label: "A", Description: "d", Preview: "p\nq"}, {Label: "B"}}},
				{Question: "Free?"},
			}, Metadata: json.RawMessage(`{"k":"v"}`), Agent: &Agent{ID: "a1", Name: "n", Cwd: "/w"}}, Wait: boolp(false)}},
	}
	for _, tc := range tests {
		got, err := DecodeFromClient([]byte(tc.line))
		if err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("%s\n got: %#v\nwant: %#v", tc.line, got, tc.want)
		}
	}
}

func TestDecodeFromDaemonRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 21, 21, 0, 0, 0, time.UTC)
	pending := Pending{Request: Request{RequestID: "r", Questions: []Question{{Question: "Q?"}}}, CreatedAt: at, Status: StatusWaiting, Draft: []json.RawMessage{json.RawMessage("null")}}
	msgs := []Message{
		Hello{Protocol: 1, Server: "askuserd/1", PendingFile: "/p"},
		Queued{RequestID: "r", Position: 2, PendingFile: "/p"},
		CancelledResponse("r", at),
		OK{RequestID: "r"},
		Snapshot{State: StateWaiting, Pending: []Pending{pending}},
		List{Pending: []Pending{pending}},
		Status{State: StateIdle, Version: "v", Socket: "/s", UptimeSeconds: 3},
		RequestAdded{Request: pending},
		RequestUpdated{Request: pending},
		RequestResolved{RequestID: "r", Outcome: OutcomeAnswered, Via: ViaFile},
		StateEvent{State: StateIdle, Pending: []Pending{}},
		PendingFileError{Path: "/p", Error: "line 12, column 3: expected ','"},
		StateDirError{Path: "/s", Error: "/s/state.jsonl.tmp: read-only file system"},
		StateDirError{Path: "/s", Error: ""},
		&Error{RequestID: "r", Code: CodeNotFound, Message: "no such request"},
	}
	for _, m := range msgs {
		b, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		got, derr := DecodeFromDaemon(bytes.TrimSuffix(b, []byte("\n")))
		if derr != nil {
			t.Fatalf("%s: %v", b, derr)
		}
		if got.MessageType() != m.MessageType() {
			t.Fatalf("type %q, want %q", got.MessageType(), m.MessageType())
		}
		b2, _ := Encode(got)
		if !bytes.Equal(b, b2) {
			t.Fatalf("round trip\n got: %s\nwant: %s", b2, b)
		}
	}
	if _, err := DecodeFromDaemon([]byte(`{"type":"bogus"}`)); !errors.Is(err, ErrUnknownMessage) || Broken(err) {
		t.Fatalf("unknown daemon message: %v, want ErrUnknownMessage, the connection not broken", err)
	}
	for _, line := range []string{`{"type":"ok","requestId":5}`, `not json`, `{"no":"type"}`} {
		if _, err := DecodeFromDaemon([]byte(line)); !errors.Is(err, ErrMalformedMessage) || Broken(err) {
			t.Fatalf("%s: %v, want ErrMalformedMessage, the connection not broken", line, err)
		}
	}
	for _, err := range []error{io.EOF, io.ErrUnexpectedEOF, net.ErrClosed, ErrTooLarge, os.ErrDeadlineExceeded} {
		if !Broken(err) {
			t.Errorf("Broken(%v) = false", err)
		}
	}
}

// TestConnPipelined talks over a real Unix socket: several messages in one
// write come out one by one, and a daemon error arrives as a *Error value.
func TestConnPipelined(t *testing.T) {
	sock := filepath.Join(testdir.Private(t), "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan []string, 1)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer nc.Close()
		var types []string
		lr := NewLineReader(nc, 0)
		for i := 0; i < 3; i++ {
			line, err := lr.ReadLine()
			if err != nil {
				break
			}
			m, perr := DecodeFromClient(line)
			if perr != nil {
				types = append(types, "error:"+perr.Message)
				continue
			}
			types = append(types, m.MessageType())
		}
		var burst []byte
		for _, m := range []Message{OK{RequestID: "a"}, Errf(CodeNotFound, "requestId", "no request %q", "b"), StatusRequest{}} {
			b, _ := Encode(m)
			burst = append(burst, b...)
		}
		nc.Write(burst[:len(burst)-len(`{"type":"status"}`+"\n")]) // two messages in one write
		got <- types
	}()

	c, err := Dial(sock, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.NetConn().Write([]byte("{\"type\":\"list\"}\n{\"type\":\"status\"}\r\n{\"type\":\"nope\"}\n")); err != nil {
		t.Fatal(err)
	}
	c.NetConn().SetDeadline(time.Now().Add(10 * time.Second)) // safety net only
	m1, err := c.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if ok, isOK := m1.(OK); !isOK || ok.RequestID != "a" {
		t.Fatalf("first = %#v", m1)
	}
	m2, err := c.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if e, isErr := m2.(*Error); !isErr || e.Code != CodeNotFound || e.Field != "requestId" {
		t.Fatalf("second = %#v", m2)
	}
	if _, err := c.Recv(); !errors.Is(err, io.EOF) {
		t.Fatalf("after close: %v", err)
	}
	types := <-got
	want := []string{"list", "status", `error:type: unknown message type "nope"`}
	if !reflect.DeepEqual(types, want) {
		t.Fatalf("server saw %q, want %q", types, want)
	}
}

// The client's read limit is far above limits.max_message_bytes (a snapshot of
// many pending requests is large) unless the configured limit is larger still.
func TestConnReadLimit(t *testing.T) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	for _, c := range []struct{ maxBytes, want int }{
		{0, MaxDaemonLineBytes},
		{DefaultLimits().MaxMessageBytes, MaxDaemonLineBytes},
		{MaxDaemonLineBytes + 1, MaxDaemonLineBytes + 1},
	} {
		if got := NewConn(a, c.maxBytes).ReadLimit(); got != c.want {
			t.Errorf("NewConn(max %d).ReadLimit() = %d, want %d", c.maxBytes, got, c.want)
		}
	}
}
