// Package acpproxy is `askuser-client acp-proxy` (docs/contract.md §11
// "ACP"): it runs an ACP agent as its child and relays the JSON-RPC lines
// between it and the editor that started the proxy, byte for byte and in
// order, while every session/request_permission the agent sends also waits
// in askuser (and so does an elicitation form). The first answer wins, in
// askuser or in the editor: the other copy is withdrawn. ACP's shapes are read through internal/agents/acp;
// the daemon is reached through the Ask function it is given. It knows
// nothing of the pane or of any one agent.
package acpproxy

import (
	"askuser/cmd/internal/jsonlines"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"askuser/internal/agentinput"
	"askuser/internal/agents/acp"
	"askuser/socketproto"
	"askuser/socketproto/askclient"
)

// AskFunc asks the daemon and waits for the result; a cancelled ctx
// withdraws the question (with askclient.Settled as its cause, saying how
// it was settled elsewhere). onQueued sees the daemon's acknowledgement (a
// position of 0: the daemon answered at once, by a remembered rule).
type AskFunc func(ctx context.Context, req socketproto.AskUserRequest, onQueued func(socketproto.Queued)) (socketproto.Response, error)

// holdMax bounds how long a permission request waits for askuser's
// acknowledgement before it goes on to the editor: a rule answers it in
// that time and the editor never sees it; a daemon slower than that leaves
// both asking.
const holdMax = time.Second

// Relay is one proxied connection: the editor's side and the agent's.
type Relay struct {
	toAgent  *jsonlines.Writer
	toEditor *jsonlines.Writer
	ask      AskFunc
	limits   socketproto.Limits
	agent    socketproto.Agent // from the environment: ASKUSER_AGENT_ID
	fallback string            // the agent's name until it says its own
	stderr   io.Writer

	mu         sync.Mutex
	relayState // guarded by mu
	wg         sync.WaitGroup
}

// relayState is what the proxy learns of the connection as it goes on.
type relayState struct {
	agentName  string
	editorName string
	asked      map[string]editorRequest // the editor's requests whose response the proxy reads, by id
	sessions   map[string]string        // session id → its directory
	prompts    map[string]*permission   // the agent's requests asked in askuser too, by id, until the editor's response
	tools      map[string]acp.ToolCall  // tool calls under way, by session and id, as their updates said
	stopping   bool
}

// editorRequest is one of the editor's requests the proxy reads the
// answer to.
type editorRequest struct {
	method  string
	session acp.SessionParams
}

// permission is one of the agent's requests to the editor that is asked in
// askuser too: a session/request_permission, or an elicitation/create form.
type permission struct {
	id      json.RawMessage
	session string
	what    string // "permission request", "elicitation": for the log
	// cancelled is the agent's answer when the turn ends first; describe
	// says the editor's answer in words, for the withdrawal.
	cancelled any
	describe  func(result json.RawMessage) string
	cancel    context.CancelCauseFunc

	// mu orders the request's reaching the editor and its settling, so that
	// the editor is told to stop asking only after it was asked.
	mu sync.Mutex
	// settled: the agent has its answer (from askuser, the editor, or the
	// proxy on a cancellation); by whom, for the log.
	settled string
	relayed bool // the request went on to the editor
}

// Options are what a Relay needs.
type Options struct {
	ToAgent  io.Writer // the agent's stdin
	ToEditor io.Writer // the editor's side: the proxy's stdout
	Ask      AskFunc
	Limits   socketproto.Limits
	Agent    socketproto.Agent
	Fallback string    // the agent's name until its initialize response
	Stderr   io.Writer // where the proxy says what it did; nil: nowhere
}

// New is a relay between an editor and an agent.
func New(o Options) *Relay {
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	return &Relay{
		toAgent: jsonlines.NewWriter(o.ToAgent), toEditor: jsonlines.NewWriter(o.ToEditor),
		ask: o.Ask, limits: o.Limits, agent: o.Agent, fallback: o.Fallback, stderr: o.Stderr,
		relayState: relayState{asked: map[string]editorRequest{}, sessions: map[string]string{}, prompts: map[string]*permission{},
			tools: map[string]acp.ToolCall{}},
	}
}

func (r *Relay) logf(format string, args ...any) {
	fmt.Fprintf(r.stderr, "askuser-client acp-proxy: "+format+"\n", args...)
}

func has(line []byte, s string) bool { return bytes.Contains(line, []byte(s)) }

// sessionUpdate begins the bulk of an agent's lines; an unescaped
// `"method":"session/update"` is JSON structure, never text inside a
// string, so such a line is no response the proxy waits for.
var sessionUpdate = []byte(`"method":"session/update"`)

// FromEditor relays one of the editor's lines to the agent, reading it on
// the way when it is one the proxy follows; false when the agent's stdin is
// gone.
func (r *Relay) FromEditor(line []byte) bool {
	r.mu.Lock()
	follow := len(r.prompts) > 0
	r.mu.Unlock()
	if follow || has(line, `"initialize"`) || has(line, `"session/`) {
		var e acp.Envelope
		if json.Unmarshal(line, &e) == nil {
			switch {
			case e.IsResponse():
				if !r.editorAnswered(e, line) {
					return true // dropped: askuser answered first
				}
			case e.Method == acp.MethodSessionCancel:
				// The agent hears the cancellation first, then "cancelled"
				// for each request of the turn, as from an editor that
				// answers them itself.
				ok := r.toAgent.Write(line) == nil
				var p acp.SessionRef
				if json.Unmarshal(e.Params, &p) == nil && p.SessionID != "" {
					r.endSession(p.SessionID, "the editor cancelled the turn")
				}
				return ok
			case e.Method != "":
				r.editorSent(e)
			}
		}
	}
	return r.toAgent.Write(line) == nil
}

// FromAgent relays one of the agent's lines to the editor, reading it on
// the way when it is one the proxy follows. A permission request is
// registered before it reaches the editor, so that the editor's answer,
// however fast, finds it.
func (r *Relay) FromAgent(line []byte) {
	r.mu.Lock()
	follow := len(r.asked) > 0
	r.mu.Unlock()
	if has(line, `"sessionUpdate":"tool_call`) {
		r.toolCallNoted(line)
	}
	if (follow && !bytes.Contains(line, sessionUpdate)) || has(line, `"`+acp.MethodRequestPermission+`"`) || has(line, `"`+acp.MethodElicitation+`"`) {
		var e acp.Envelope
		if json.Unmarshal(line, &e) == nil {
			var pm *permission
			switch {
			case e.IsResponse():
				r.agentAnswered(e)
			case e.IsRequest() && e.Method == acp.MethodRequestPermission:
				pm = r.permissionAsked(e)
			case e.IsRequest() && e.Method == acp.MethodElicitation:
				pm = r.elicitationAsked(e)
			}
			if pm != nil {
				pm.mu.Lock()
				defer pm.mu.Unlock()
				if pm.settled != "" {
					r.mu.Lock()
					delete(r.prompts, string(pm.id))
					r.mu.Unlock()
					return // a rule answered it: the editor never asks
				}
				pm.relayed = true
			}
		}
	}
	// An editor that went away is seen as the end of the proxy's stdin.
	_ = r.toEditor.Write(line)
}

// maxTools bounds the tool calls kept while under way: an agent that never
// says a call finished must not grow the proxy without end.
const maxTools = 4096

// toolCallNoted keeps what a tool_call or tool_call_update notification
// says of its call, for a permission request about it that says less.
func (r *Relay) toolCallNoted(line []byte) {
	var e acp.Envelope
	var n acp.ToolCallNote
	if json.Unmarshal(line, &e) != nil || e.Method != "session/update" || json.Unmarshal(e.Params, &n) != nil || n.Update.ToolCallID == "" {
		return
	}
	key := n.SessionID + "\x00" + n.Update.ToolCallID
	r.mu.Lock()
	defer r.mu.Unlock()
	if n.Finished() {
		delete(r.tools, key)
		return
	}
	if _, ok := r.tools[key]; !ok && len(r.tools) >= maxTools {
		clear(r.tools)
	}
	r.tools[key] = r.tools[key].Merge(n.Update.ToolCall)
}

// editorSent notes the editor's requests whose answers say who the agent
// is and where its sessions are.
func (r *Relay) editorSent(e acp.Envelope) {
	switch e.Method {
	case acp.MethodInitialize:
		var p acp.InitializeParams
		_ = json.Unmarshal(e.Params, &p)
		r.mu.Lock()
		r.editorName = agentinput.Printable(p.EditorName(), 60)
		r.mu.Unlock()
		r.follow(e, acp.SessionParams{})
	case acp.MethodSessionNew, acp.MethodSessionLoad, acp.MethodSessionResume:
		var p acp.SessionParams
		_ = json.Unmarshal(e.Params, &p)
		r.follow(e, p)
	case acp.MethodSessionPrompt:
		var p acp.SessionParams
		_ = json.Unmarshal(e.Params, &p)
		r.follow(e, p)
	}
}

func (r *Relay) follow(e acp.Envelope, p acp.SessionParams) {
	if len(e.ID) == 0 {
		return
	}
	r.mu.Lock()
	r.asked[string(e.ID)] = editorRequest{method: e.Method, session: p}
	r.mu.Unlock()
}

// agentAnswered reads the agent's answer to a request the proxy follows.
func (r *Relay) agentAnswered(e acp.Envelope) {
	r.mu.Lock()
	req, ok := r.asked[string(e.ID)]
	delete(r.asked, string(e.ID))
	r.mu.Unlock()
	if !ok {
		return
	}
	switch req.method {
	case acp.MethodInitialize:
		var res acp.InitializeResult
		if json.Unmarshal(e.Result, &res) == nil && res.AgentName() != "" {
			r.mu.Lock()
			r.agentName = agentinput.Printable(res.AgentName(), socketproto.MaxAgentNameChars)
			r.mu.Unlock()
		}
	case acp.MethodSessionNew, acp.MethodSessionLoad, acp.MethodSessionResume:
		id := req.session.SessionID
		var res acp.SessionResult
		if json.Unmarshal(e.Result, &res) == nil && res.SessionID != "" {
			id = res.SessionID
		}
		if id != "" && len(e.Error) == 0 {
			r.mu.Lock()
			r.sessions[id] = req.session.Cwd
			r.mu.Unlock()
		}
	case acp.MethodSessionPrompt:
		if req.session.SessionID != "" {
			r.endSession(req.session.SessionID, "the agent ended the turn")
		}
	}
}

// permissionAsked asks the agent's permission request in askuser too
// (mirror); nil when askuser does not ask it.
func (r *Relay) permissionAsked(e acp.Envelope) *permission {
	var p acp.PermissionParams
	if err := json.Unmarshal(e.Params, &p); err != nil {
		r.logf("permission request %s: %v; left to the editor", e.ID, err)
		return nil
	}
	r.mu.Lock()
	if known, ok := r.tools[p.SessionID+"\x00"+p.ToolCall.ToolCallID]; ok {
		p.ToolCall = known.Merge(p.ToolCall)
	}
	r.mu.Unlock()
	prompt, err := acp.Prompt(p)
	if err != nil {
		r.logf("permission request %s: %v; left to the editor", e.ID, err)
		return nil
	}
	name, agent := r.asker(p.SessionID)
	req := prompt.Request(name)
	req.Agent = agent
	return r.mirror(e, &permission{id: e.ID, session: p.SessionID, what: "permission request", cancelled: acp.Cancelled(), describe: prompt.Describe}, req,
		func(resp socketproto.Response) (any, string) { return prompt.Outcome(resp) })
}

// elicitationAsked asks the agent's elicitation form in askuser too, one
// typed question per field as for an MCP server's (mirror); nil when
// askuser does not ask it (a URL, a field it cannot ask).
func (r *Relay) elicitationAsked(e acp.Envelope) *permission {
	var p acp.ElicitationParams
	if err := json.Unmarshal(e.Params, &p); err != nil {
		r.logf("elicitation %s: %v; left to the editor", e.ID, err)
		return nil
	}
	form, err := p.Form()
	if err != nil {
		r.logf("elicitation %s: %v; left to the editor", e.ID, err)
		return nil
	}
	_, agent := r.asker(p.SessionID)
	req := socketproto.AskUserRequest{Request: socketproto.Request{Tool: socketproto.ToolAskUser, Questions: form.Questions, Agent: agent}}
	return r.mirror(e, &permission{id: e.ID, session: p.SessionID, what: "elicitation", cancelled: acp.ElicitationCancelled(), describe: acp.DescribeElicitation}, req,
		func(resp socketproto.Response) (any, string) {
			res := form.Result(resp)
			return res, res.Action
		})
}

// mirror registers pm, one of the agent's requests, and asks req in
// askuser; outcome reads askuser's answer as the agent's. It returns once
// askuser has it queued (or answered it by a rule, or holdMax passed), so
// that a rule's answer is given before the editor would ask; nil when
// askuser does not ask it.
func (r *Relay) mirror(e acp.Envelope, pm *permission, req socketproto.AskUserRequest, outcome func(socketproto.Response) (any, string)) *permission {
	if perr := socketproto.ValidateRequest(req.Request, r.limits); perr != nil {
		r.logf("%s %s: cannot be asked in askuser: %v; left to the editor", pm.what, e.ID, perr)
		return nil
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	pm.cancel = cancel
	r.mu.Lock()
	if r.stopping {
		r.mu.Unlock()
		cancel(nil)
		return nil
	}
	r.prompts[string(e.ID)] = pm
	r.wg.Add(1)
	r.mu.Unlock()
	queued := make(chan int, 1)
	done := make(chan struct{})
	go func() {
		defer r.wg.Done()
		defer cancel(nil)
		defer close(done)
		resp, err := r.ask(ctx, req, func(q socketproto.Queued) {
			select {
			case queued <- q.Position:
			default:
			}
		})
		if err == nil && resp.ConnectionLost {
			err = askclient.ErrConnectionLost
		}
		if err != nil {
			if ctx.Err() == nil {
				r.logf("%s %s: askuser: %v; answer it in the editor", pm.what, e.ID, err)
			}
			return
		}
		out, why := outcome(resp)
		r.settle(pm, "askuser", why, out)
	}()
	hold := time.NewTimer(holdMax)
	defer hold.Stop()
	select {
	case pos := <-queued:
		if pos == 0 { // resolved at once: its answer is on the way
			select {
			case <-done:
			case <-hold.C:
			}
		}
	case <-done:
	case <-hold.C:
	}
	return pm
}

// asker is who asks in askuser: the agent the proxy runs, by its name, in
// the session's directory.
func (r *Relay) asker(session string) (string, *socketproto.Agent) {
	r.mu.Lock()
	name, cwd := r.agentName, r.sessions[session]
	r.mu.Unlock()
	if name == "" {
		name = agentinput.Printable(r.fallback, socketproto.MaxAgentNameChars)
	}
	if name == "" {
		name = "ACP agent"
	}
	a := r.agent
	if a.ID == "" {
		a.ID = agentinput.Slug(name)
		if s := agentinput.Slug(session); session != "" && s != "mcp" {
			a.ID += "-" + s
		}
	}
	a.Name = name
	a.Cwd = ""
	if cwd != "" && len(cwd) <= socketproto.MaxAgentCwdChars {
		a.Cwd = agentinput.Printable(cwd, socketproto.MaxAgentCwdChars)
	}
	return name, &a
}

// settle gives the agent its answer to pm, once: out from by. An editor
// that was asked is told to stop asking ($/cancel_request). False when pm
// was already settled.
func (r *Relay) settle(pm *permission, by, why string, out any) bool {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	if pm.settled != "" {
		return false
	}
	pm.settled = by
	if b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}{"2.0", pm.id, out}); err == nil {
		_ = r.toAgent.Write(append(b, '\n'))
	}
	if pm.relayed {
		if b, err := json.Marshal(struct {
			JSONRPC string `json:"jsonrpc"`
			Method  string `json:"method"`
			Params  struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}{JSONRPC: "2.0", Method: acp.MethodCancelRequest, Params: struct {
			RequestID json.RawMessage `json:"requestId"`
		}{pm.id}}); err == nil {
			_ = r.toEditor.Write(append(b, '\n'))
		}
	}
	r.logf("%s %s: answered in %s (%s)", pm.what, pm.id, by, why)
	return true
}

// editorAnswered takes the editor's response to one of the agent's
// permission requests: the first answer, it goes on to the agent and
// askuser's copy is withdrawn saying how; after askuser's, it is dropped.
// False: drop the line.
func (r *Relay) editorAnswered(e acp.Envelope, line []byte) bool {
	r.mu.Lock()
	pm, ok := r.prompts[string(e.ID)]
	if ok {
		delete(r.prompts, string(e.ID))
	}
	editor := r.editorName
	r.mu.Unlock()
	if !ok {
		return true
	}
	pm.mu.Lock()
	first := pm.settled == ""
	if first {
		pm.settled = "the editor"
	}
	pm.mu.Unlock()
	if !first {
		r.logf("%s %s: the editor's answer came after %s's; dropped", pm.what, e.ID, pm.settled)
		return false
	}
	if editor == "" {
		editor = "the editor"
	}
	how := "answered in " + editor
	if len(e.Error) == 0 {
		if d := pm.describe(e.Result); d != "" {
			how += ": " + d
		}
	}
	pm.cancel(askclient.Settled{How: agentinput.Printable(how, 200)})
	return true
}

// endSession settles every permission of session still waiting: the turn
// it belonged to is over. The agent hears "cancelled", the editor is told
// to stop asking, askuser's copy is withdrawn.
func (r *Relay) endSession(session, why string) {
	r.mu.Lock()
	var open []*permission
	for _, pm := range r.prompts {
		if pm.session == session {
			open = append(open, pm)
		}
	}
	r.mu.Unlock()
	for _, pm := range open {
		if r.settle(pm, "the proxy", why, pm.cancelled) {
			pm.cancel(askclient.Settled{How: why})
		}
	}
}

// Stop withdraws every question still waiting in askuser (the editor or
// the agent went away) and waits until each is withdrawn.
func (r *Relay) Stop() {
	r.mu.Lock()
	r.stopping = true
	for _, pm := range r.prompts {
		pm.cancel(nil)
	}
	r.mu.Unlock()
	r.wg.Wait()
}
