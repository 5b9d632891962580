package claudecode_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testdaemon/inproc"
)

// Claude Code's Elicitation hook, fed the inputs Claude Code 2.1.330 sends
// (testdata/elicitation-*.json, recorded with tests/elicitserver's
// forms), against a real daemon.

// elicitationHookOutput is the hook's output, read strictly: nothing but
// the frame, the action and the content.
type elicitationHookOutput struct {
	HookEventName string                     `json:"hookEventName"`
	Action        string                     `json:"action"`
	Content       map[string]json.RawMessage `json:"content"`
}

func hookElicitation(t *testing.T, stdout string) elicitationHookOutput {
	t.Helper()
	var out struct {
		HookSpecificOutput elicitationHookOutput `json:"hookSpecificOutput"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("hook output %q: %v", stdout, err)
	}
	if out.HookSpecificOutput.HookEventName != "Elicitation" {
		t.Fatalf("hook output %s: want hookEventName Elicitation", stdout)
	}
	return out.HookSpecificOutput
}

// rawAnswers is answers as the socket carries them.
func rawAnswers(answers ...string) []json.RawMessage {
	raws := make([]json.RawMessage, len(answers))
	for i, a := range answers {
		raws[i] = json.RawMessage(a)
	}
	return raws
}

func TestClaudeHookElicitationForm(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	input := claudeTestdata(t, "elicitation-form.json")

	t.Run("accepted: every field kind, with its JSON type", func(t *testing.T) {
		ch := runHookAsync(sock, input)
		p := watch("request_added").(socketproto.RequestAdded).Request
		if p.Agent == nil || p.Agent.ID != "claude-code-5d1c2b7e-8a41-4f0e-9a53-0c6e2d4f1b9a" || p.Agent.Cwd != "/home/you/app" {
			t.Errorf("agent = %+v", p.Agent)
		}
		if !strings.Contains(string(p.Metadata), `"MCP server":"elicit"`) {
			t.Errorf("metadata %s does not name the server", p.Metadata)
		}
		if got, want := testdaemon.InputKinds(p.Questions), "string integer number boolean string array string?"; got != want {
			t.Errorf("question kinds = %s, want %s", got, want)
		}
		if q := p.Questions[0].Question; !strings.HasPrefix(q, "Build settings\n\nColour\nthe build's colour") {
			t.Errorf("first question = %q", q)
		}
		// askuser checks what Claude Code would pass on unchecked.
		c := testdaemon.Dial(t, sock)
		if err := c.Send(socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI,
			Answers: rawAnswers(`"blue"`, `9`, `0.5`, `"Yes"`, `"widget"`, `["a","c"]`, `""`)}); err != nil {
			t.Fatal(err)
		}
		if m, ok := testdaemon.Recv(t, c, testdaemon.Wait).(*socketproto.Error); !ok || m.Code != socketproto.CodeInvalidAnswer {
			t.Fatalf("an answer over the maximum: got %#v", m)
		}
		c.Close()
		testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI,
			Answers: rawAnswers(`"blue"`, `3`, `0.5`, `"Yes"`, `"widget"`, `["a","c"]`, `""`)})
		got := hookElicitation(t, awaitHook(t, ch).Stdout)
		want := elicitationHookOutput{HookEventName: "Elicitation", Action: "accept", Content: map[string]json.RawMessage{
			"color": json.RawMessage(`"blue"`), "count": json.RawMessage(`3`), "ratio": json.RawMessage(`0.5`),
			"ok": json.RawMessage(`true`), "name": json.RawMessage(`"widget"`), "tags": json.RawMessage(`["a","c"]`)}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("output %+v\nwant %+v", got, want)
		}
	})

	t.Run("declined in askuser: a decline", func(t *testing.T) {
		ch := runHookAsync(sock, input)
		p := watch("request_added").(socketproto.RequestAdded).Request
		testdaemon.SendOK(t, sock, socketproto.Cancel{RequestID: p.RequestID, Via: socketproto.ViaCLI})
		got := hookElicitation(t, awaitHook(t, ch).Stdout)
		if got.Action != "decline" || got.Content != nil {
			t.Errorf("output %+v, want a decline without content", got)
		}
	})

	t.Run("a form without fields: consent, with empty content", func(t *testing.T) {
		in := `{"hook_event_name":"Elicitation","mcp_server_name":"deploy","message":"Deploy to production?","mode":"form",` +
			`"requested_schema":{"type":"object","properties":{}}}`
		ch := runHookAsync(sock, []byte(in))
		p := watch("request_added").(socketproto.RequestAdded).Request
		if len(p.Questions) != 1 || p.Questions[0].Question != "Deploy to production?" {
			t.Fatalf("asked %+v", p.Questions)
		}
		testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI, Answers: rawAnswers(`"Yes"`)})
		r := awaitHook(t, ch)
		if got := hookElicitation(t, r.Stdout); got.Action != "accept" || got.Content == nil || len(got.Content) != 0 {
			t.Errorf("output %s, want accept with empty content", r.Stdout)
		}
	})

	t.Run("a field askuser cannot ask: nothing, Claude Code asks", func(t *testing.T) {
		in := `{"hook_event_name":"Elicitation","mcp_server_name":"deep","message":"Address","mode":"form",` +
			`"requested_schema":{"type":"object","properties":{"addr":{"type":"object","properties":{"street":{"type":"string"}}}}}}`
		r := awaitHook(t, runHookAsync(sock, []byte(in)))
		if r.Stdout != "" || !strings.Contains(r.Stderr, "requestedSchema.properties.addr") || !strings.Contains(r.Stderr, "own dialog") {
			t.Errorf("stdout %q, stderr %q", r.Stdout, r.Stderr)
		}
	})
}

func TestClaudeHookElicitationURL(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	input := claudeTestdata(t, "elicitation-url.json")
	for _, c := range []struct{ answer, action string }{{`1`, "accept"}, {`"Decline"`, "decline"}} {
		ch := runHookAsync(sock, input)
		p := watch("request_added").(socketproto.RequestAdded).Request
		q := p.Questions[0]
		if !strings.Contains(q.Question, "Sign in to the tracker") || !strings.Contains(q.Question, "https://example.com/auth?state=xyz") ||
			len(q.Options) != 2 {
			t.Fatalf("the URL question: %+v", q)
		}
		testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI, Answers: rawAnswers(c.answer)})
		r := awaitHook(t, ch)
		if got := hookElicitation(t, r.Stdout); got.Action != c.action || got.Content != nil {
			t.Errorf("answered %s: output %s, want %s without content", c.answer, r.Stdout, c.action)
		}
	}
}

func TestClaudeHookElicitationWithoutDaemon(t *testing.T) {
	sock := noDaemonSocket(t)
	r := awaitHook(t, runHookAsync(sock, claudeTestdata(t, "elicitation-form.json")))
	if r.Stdout != "" || !strings.Contains(r.Stderr, "Claude Code asks in its own dialog") {
		t.Errorf("stdout %q, stderr %q", r.Stdout, r.Stderr)
	}
}
