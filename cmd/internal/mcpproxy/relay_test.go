package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"askuser/cmd/internal/jsonlines"

	"askuser/socketproto"
)

// syncBuffer is a bytes.Buffer the relay's goroutines may write to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func testRelay(ask func(context.Context, socketproto.AskUserRequest) (socketproto.Response, error)) (*relay, *syncBuffer, *syncBuffer) {
	toClient, toServer := &syncBuffer{}, &syncBuffer{}
	return &relay{
		toClient: jsonlines.NewWriter(toClient),
		toServer: jsonlines.NewWriter(toServer),
		ask:      ask,
		limits:   socketproto.DefaultLimits(),
		pid:      "42",
		server:   "srv",
	}, toClient, toServer
}

// What the relay does not concern itself with passes byte for byte, in
// either direction: odd spacing, escapes, a last line without a newline.
func TestRelayPassesLinesUnchanged(t *testing.T) {
	t.Parallel()
	r, toClient, toServer := testRelay(nil)
	in := "{\"jsonrpc\":\"2.0\", \"id\":1 ,\"method\":\"tools/list\"}\n" +
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\",\"params\":{\"x\":\"\\u00e9\"}}\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\r\n" +
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}"
	if err := r.fromClient(strings.NewReader(in), make(chan struct{})); err != nil {
		t.Fatal(err)
	}
	if toServer.String() != in {
		t.Errorf("to the server:\n%q\nwant\n%q", toServer.String(), in)
	}
	out := "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"elicitation\"}}\n"
	if err := r.fromServer(context.Background(), strings.NewReader(out)); err != nil {
		t.Fatal(err)
	}
	if toClient.String() != out {
		t.Errorf("to the client:\n%q\nwant\n%q", toClient.String(), out)
	}
}

// The client's capabilities gain elicitation, kept alongside what it
// declared, in initialize and in the stateless protocol's _meta.
func TestRelayAddsTheElicitationCapability(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, line, path string }{
		{"initialize", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"gemini-cli-mcp-client","version":"1"}}}`, "capabilities"},
		{"initialize without capabilities", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"gemini-cli-mcp-client"}}}`, "capabilities"},
		{"stateless", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"gemini-cli-mcp-client"}}}}`, "meta"},
	} {
		r, _, toServer := testRelay(nil)
		if err := r.fromClient(strings.NewReader(c.line+"\n"), make(chan struct{})); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Params struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
				Meta         map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(toServer.String()), &got); err != nil || !strings.HasSuffix(toServer.String(), "}\n") {
			t.Fatalf("%s: sent %q (%v)", c.name, toServer.String(), err)
		}
		caps := got.Params.Capabilities
		if c.path == "meta" {
			_ = json.Unmarshal(got.Params.Meta[metaClientCapabilities], &caps)
		}
		if string(caps["elicitation"]) != `{"form":{},"url":{}}` {
			t.Errorf("%s: elicitation = %s in %s", c.name, caps["elicitation"], toServer.String())
		}
		if strings.Contains(c.line, "roots") && caps["roots"] == nil {
			t.Errorf("%s: the client's roots capability was lost: %s", c.name, toServer.String())
		}
		if r.clientName != "gemini-cli-mcp-client" || r.clientElicits {
			t.Errorf("%s: client %q, elicits %v", c.name, r.clientName, r.clientElicits)
		}
	}
}

// An elicitation/create request is answered to the server, never shown to
// the client; a cancellation from the server withdraws the question and
// gets no reply.
func TestRelayAnswersElicitations(t *testing.T) {
	t.Parallel()
	asked := make(chan socketproto.AskUserRequest, 2)
	r, toClient, toServer := testRelay(func(ctx context.Context, req socketproto.AskUserRequest) (socketproto.Response, error) {
		asked <- req
		if strings.Contains(req.Questions[0].Question, "wait") {
			<-ctx.Done()
			return socketproto.Response{}, ctx.Err()
		}
		as, perr := socketproto.NormalizeAnswers(req.Questions, []json.RawMessage{json.RawMessage(`"7"`)})
		if perr != nil {
			t.Error(perr)
		}
		return socketproto.Response{Answered: true, Answers: as}, nil
	})
	lines := `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"How many?","requestedSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}}` + "\n" +
		`{"jsonrpc":"2.0","id":"e2","method":"elicitation/create","params":{"message":"wait","requestedSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}}` + "\n"
	if err := r.fromServer(context.Background(), strings.NewReader(lines)); err != nil {
		t.Fatal(err)
	}
	first, second := <-asked, <-asked
	if first.Agent == nil || first.Agent.ID != "mcp-42" || !strings.Contains(string(first.Metadata), "srv") {
		t.Errorf("asked as %+v, metadata %s", first.Agent, first.Metadata)
	}
	_ = second
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"e2"}}` + "\n"
	if err := r.fromServer(context.Background(), strings.NewReader(cancel)); err != nil {
		t.Fatal(err)
	}
	r.withdrawAll()
	if got, want := toServer.String(), `{"id":"e1","jsonrpc":"2.0","result":{"action":"accept","content":{"n":7}}}`+"\n"; got != want {
		t.Errorf("to the server:\n%s\nwant\n%s", got, want)
	}
	if toClient.String() != "" {
		t.Errorf("the client saw %q", toClient.String())
	}
}

// The proxy stopping while a form waits answers the server "cancel".
func TestRelayStoppingCancels(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	r, _, toServer := testRelay(func(ctx context.Context, req socketproto.AskUserRequest) (socketproto.Response, error) {
		close(started)
		<-ctx.Done()
		return socketproto.Response{}, ctx.Err()
	})
	line := `{"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/","elicitationId":"x"}}` + "\n"
	if err := r.fromServer(context.Background(), strings.NewReader(line)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("not asked")
	}
	r.withdrawAll()
	if got := toServer.String(); got != `{"id":5,"jsonrpc":"2.0","result":{"action":"cancel"}}`+"\n" {
		t.Errorf("to the server: %s", got)
	}
}
