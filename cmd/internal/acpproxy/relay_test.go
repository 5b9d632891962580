package acpproxy

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"askuser/socketproto"
	"askuser/socketproto/askclient"
)

// lines collects what one side receives.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

const (
	initReq   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"zed"}}}` + "\n"
	initRes   = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"claude-code-acp","title":"Claude Code"}}}` + "\n"
	newReq    = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/src/shop","mcpServers":[]}}` + "\n"
	newRes    = `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}` + "\n"
	promptReq = `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}` + "\n"
	promptRes = `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}` + "\n"
	permReq   = `{"jsonrpc":"2.0","id":5,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t","title":"echo hi","kind":"execute","rawInput":{"command":"echo hi"}},"options":[{"optionId":"a1","name":"Allow","kind":"allow_once"},{"optionId":"r1","name":"Reject","kind":"reject_once"}]}}` + "\n"
	editorYes = `{"jsonrpc":"2.0","id":5,"result":{"outcome":{"outcome":"selected","optionId":"a1"}}}` + "\n"
	cancelReq = `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":5}}` + "\n"
	agentGets = `{"jsonrpc":"2.0","id":5,"result":{"outcome":{"outcome":"selected","optionId":"a1"}}}` + "\n"
	cancelled = `{"jsonrpc":"2.0","id":5,"result":{"outcome":{"outcome":"cancelled"}}}` + "\n"
)

// session runs a relay through initialize, session/new and a prompt.
func session(t *testing.T, fake *asked) (r *Relay, agent, editor, log *lines) {
	t.Helper()
	agent, editor, log = &lines{}, &lines{}, &lines{}
	r = New(Options{ToAgent: agent, ToEditor: editor, Ask: fake.ask, Limits: socketproto.DefaultLimits(), Stderr: log})
	r.FromEditor([]byte(initReq))
	r.FromAgent([]byte(initRes))
	r.FromEditor([]byte(newReq))
	r.FromAgent([]byte(newRes))
	r.FromEditor([]byte(promptReq))
	return r, agent, editor, log
}

func answered(label string) func(socketproto.AskUserRequest) (socketproto.Response, bool) {
	return func(socketproto.AskUserRequest) (socketproto.Response, bool) {
		return socketproto.Response{Answered: true, Answers: []socketproto.Answer{{SelectedOption: label}}}, true
	}
}

// Answered in askuser first: the agent gets the option, the editor is told
// to stop asking, and its later answer is dropped and said.
func TestAskuserAnswersFirst(t *testing.T) {
	gate := make(chan struct{})
	yes := answered("Allow")
	fake := &asked{position: 1, answer: func(q socketproto.AskUserRequest) (socketproto.Response, bool) {
		<-gate // the user answers once the editor asks too
		return yes(q)
	}}
	r, agent, editor, log := session(t, fake)
	r.FromAgent([]byte(permReq))
	close(gate)
	r.Stop() // waits for the answer to be given
	if got := agent.String(); !strings.HasSuffix(got, agentGets) {
		t.Fatalf("the agent got %q, want it to end with %q", got, agentGets)
	}
	if got := editor.String(); !strings.HasSuffix(got, permReq+cancelReq) {
		t.Fatalf("the editor got %q, want the request then %q", got, cancelReq)
	}
	before := agent.String()
	r.FromEditor([]byte(editorYes))
	if agent.String() != before {
		t.Errorf("the editor's late answer reached the agent: %q", agent.String()[len(before):])
	}
	if !strings.Contains(log.String(), "dropped") {
		t.Errorf("stderr does not say the late answer was dropped: %q", log.String())
	}
	if a := fake.reqs[0].Agent; a.Name != "Claude Code" || a.Cwd != "/src/shop" || a.ID != "claude-code-s1" {
		t.Errorf("asked as %+v", a)
	}
}

// A remembered rule answers before the editor would ask: the editor never
// sees the request, nor a cancellation.
func TestRuleAnswersWithoutEditor(t *testing.T) {
	fake := &asked{position: 0, answer: answered("Allow")}
	r, agent, editor, _ := session(t, fake)
	r.FromAgent([]byte(permReq))
	r.Stop()
	if strings.Contains(editor.String(), "request_permission") || strings.Contains(editor.String(), "cancel_request") {
		t.Errorf("the editor heard of it: %q", editor.String())
	}
	if !strings.HasSuffix(agent.String(), agentGets) {
		t.Errorf("the agent got %q", agent.String())
	}
}

// Answered in the editor first: it reaches the agent as sent, and askuser's
// copy is withdrawn saying how.
func TestEditorAnswersFirst(t *testing.T) {
	fake := &asked{position: 1}
	r, agent, _, _ := session(t, fake)
	r.FromAgent([]byte(permReq))
	r.FromEditor([]byte(editorYes))
	r.Stop()
	if !strings.HasSuffix(agent.String(), editorYes) {
		t.Errorf("the agent got %q", agent.String())
	}
	var st askclient.Settled
	if len(fake.causes) != 1 || !errors.As(fake.causes[0], &st) || st.How != `answered in zed: "Allow"` {
		t.Errorf("withdrawn with %v", fake.causes)
	}
}

// A cancelled turn, and a turn that ended: askuser's copy is withdrawn,
// the agent hears "cancelled", the editor is told to stop asking.
func TestTurnEndWithdraws(t *testing.T) {
	for _, c := range []struct {
		name string
		end  func(r *Relay)
	}{
		{"session/cancel", func(r *Relay) {
			r.FromEditor([]byte(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}` + "\n"))
		}},
		{"turn ended", func(r *Relay) { r.FromAgent([]byte(promptRes)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake := &asked{position: 1}
			r, agent, editor, _ := session(t, fake)
			r.FromAgent([]byte(permReq))
			c.end(r)
			r.Stop()
			if !strings.HasSuffix(agent.String(), cancelled) {
				t.Errorf("the agent got %q, want it to end with %q (after the cancellation)", agent.String(), cancelled)
			}
			if !strings.Contains(editor.String(), cancelReq) {
				t.Errorf("the editor got %q, want %q", editor.String(), cancelReq)
			}
			var st askclient.Settled
			if len(fake.causes) != 1 || !errors.As(fake.causes[0], &st) {
				t.Errorf("withdrawn with %v", fake.causes)
			}
		})
	}
}

// stopped asks nothing: a question asked and not answered is withdrawn
// without a word of how, and the agent hears nothing from the proxy.
func TestStopWithdraws(t *testing.T) {
	fake := &asked{position: 1}
	r, agent, _, _ := session(t, fake)
	r.FromAgent([]byte(permReq))
	before := agent.String()
	r.Stop()
	if agent.String() != before {
		t.Errorf("the agent got %q after the stop", agent.String()[len(before):])
	}
	if len(fake.causes) != 1 || errors.As(fake.causes[0], new(askclient.Settled)) {
		t.Errorf("withdrawn with %v", fake.causes)
	}
	_ = context.Canceled
}

// An agent's elicitation form waits in askuser too: answered there, the
// agent gets the content with its JSON types and the editor is told to stop
// asking; a URL elicitation is the editor's alone.
func TestElicitationAnsweredInAskuser(t *testing.T) {
	gate := make(chan struct{})
	fake := &asked{position: 1, answer: func(q socketproto.AskUserRequest) (socketproto.Response, bool) {
		<-gate
		return socketproto.Response{Answered: true, Answers: []socketproto.Answer{{Question: q.Questions[0].Question, Answer: socketproto.AnswerValue{JSON: []byte("3")}}}}, true
	}}
	r, agent, editor, _ := session(t, fake)
	form := `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"sessionId":"s1","mode":"form","message":"How many?","requestedSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}}` + "\n"
	r.FromAgent([]byte(form))
	close(gate)
	r.FromAgent([]byte(`{"jsonrpc":"2.0","id":"e2","method":"elicitation/create","params":{"sessionId":"s1","mode":"url","message":"Log in","url":"https://example.com","elicitationId":"x"}}` + "\n"))
	r.Stop()
	if want := `{"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{"n":3}}}` + "\n"; !strings.Contains(agent.String(), want) {
		t.Errorf("the agent got %q, want %q", agent.String(), want)
	}
	if want := `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"e1"}}`; !strings.Contains(editor.String(), want) {
		t.Errorf("the editor got %q, want %q", editor.String(), want)
	}
	if len(fake.reqs) != 1 || fake.reqs[0].Questions[0].Input == nil || fake.reqs[0].Questions[0].Input.Type != "integer" {
		t.Errorf("asked %+v; want the form's one integer field, and not the URL", fake.reqs)
	}
	if !strings.Contains(editor.String(), `"id":"e2"`) {
		t.Errorf("the URL elicitation did not reach the editor")
	}
}
