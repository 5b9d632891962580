package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"sync"

	"askuser/cmd/internal/jsonlines"

	"askuser/internal/agentinput"
	"askuser/internal/elicit"
	"askuser/socketproto"
	"askuser/socketproto/askclient"
)

// The relay of `askuser-client mcp-proxy` (docs/contract.md §8): newline-delimited
// JSON-RPC between an MCP client (our stdin and stdout) and an MCP server
// (the child's). Lines pass through as they came, byte for byte, except:
//
//   - the client's capabilities gain elicitation (form and URL): in the
//     initialize request, and, in the stateless protocol (2026-07-28), in
//     the capabilities every request carries in its _meta;
//   - the server's elicitations are answered here, through the daemon, and
//     never reach the client. Before 2026-07-28 a server elicits with an
//     elicitation/create request of its own; from 2026-07-28 on, during a
//     call, by answering the call with "resultType":"input_required" and
//     the forms in inputRequests — then the relay asks them and sends the
//     call again with the answers in inputResponses (multi round-trip
//     requests, SEP-2322), and only the final result reaches the client;
//   - a cancellation of one of those withdraws the question;
//   - a response from the client to a request it was never sent is dropped
//     (ids.go): the ids of the requests answered here are the
//     proxy's;
//   - a line of the client's that is not JSON, or not a message JSON-RPC
//     lets it send, is refused with an error to the client and never
//     reaches the server (ids.go).
//
// A line is looked into only when it contains one of the names these
// concern, so a large tool result is copied without being parsed.

// Meta keys of the stateless protocol (2026-07-28).
const (
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Reasons an elicitation stops waiting before the user answered.
var (
	errPeerCancelled = errors.New("the request was cancelled")
	errProxyStopping = errors.New("askuser-client mcp-proxy is stopping")
)

// cannotAsk is an elicitation askuser does not ask: a form it cannot show,
// a sub-agent's, or no daemon. The real client gets it when it can elicit.
type cannotAsk struct{ why string }

func (e *cannotAsk) Error() string { return "askuser-client mcp-proxy: " + e.why }

// relay is one proxied session.
type relay struct {
	toClient *jsonlines.Writer
	toServer *jsonlines.Writer
	// ask asks the daemon and waits; a cancelled ctx withdraws the question.
	ask    func(ctx context.Context, req socketproto.AskUserRequest) (socketproto.Response, error)
	limits socketproto.Limits
	agent  socketproto.Agent // from the environment and flags; name and id filled per form
	pid    string
	server string // the server's command, until it names itself
	// autostart: whether the daemon is started when none runs, for the
	// hint an unreachable daemon gets.
	autostart bool
	stderr    io.Writer // where a dropped client response is said; nil: nowhere

	mu         sync.Mutex
	relayState // guarded by mu
	wg         sync.WaitGroup
}

// relayState is what the relay learns as the session goes on.
type relayState struct {
	clientName    string
	serverName    string
	clientElicits bool                               // the real client declared elicitation itself
	calls         map[string][]byte                  // the client's calls a server may answer with input_required, by id, until answered
	waiting       map[string]context.CancelCauseFunc // elicitations being asked: "s"+the server's request id, "c"+the client's call id
	stopping      bool                               // withdrawAll ran: later elicitations are cancelled at once
	clientOwes    map[string]bool                    // the server's requests relayed to the client, by idKey, until it answers
}

// message is what the relay reads of the lines it looks into, with
// decodeExact: keys match case-exactly.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func has(line []byte, s string) bool { return bytes.Contains(line, []byte(s)) }

// fromClient relays the client's lines to the server until the client
// closes its side or the server's stdin is gone. Reading and writing are
// apart, with up to clientBacklog bytes between them, so that the client's
// end is seen (ended is closed) even while a write waits on a server that
// stopped reading.
func (r *relay) fromClient(in io.Reader, ended chan<- struct{}) error {
	q := newLineQueue(clientBacklog)
	go func() {
		defer close(ended)
		defer q.close()
		_ = jsonlines.Read(in, q.push)
	}()
	defer q.stop() // the reader, if it waits for room, gives up
	for {
		line, ok := q.pop()
		if !ok || !r.relayFromClient(line) {
			return nil
		}
	}
}

// clientBacklog bounds what the client may send ahead of a server that does
// not read: past it the proxy stops reading the client too.
const clientBacklog = 16 << 20

// lineQueue holds lines read and not yet written, up to a number of bytes.
type lineQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	lines   [][]byte
	bytes   int
	limit   int
	closed  bool // no more lines will come
	stopped bool // no more lines are wanted
}

func newLineQueue(limit int) *lineQueue {
	q := &lineQueue{limit: limit}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// push adds line, waiting while the queue is over its limit; false once
// no more lines are wanted.
func (q *lineQueue) push(line []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.bytes > q.limit && !q.stopped {
		q.cond.Wait()
	}
	if q.stopped {
		return false
	}
	q.lines = append(q.lines, line)
	q.bytes += len(line)
	q.cond.Broadcast()
	return true
}

// pop takes the oldest line, waiting for one; false once the queue is
// closed and empty.
func (q *lineQueue) pop() ([]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.lines) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.lines) == 0 {
		return nil, false
	}
	line := q.lines[0]
	q.lines[0] = nil
	q.lines = q.lines[1:]
	q.bytes -= len(line)
	q.cond.Broadcast()
	return line, true
}

func (q *lineQueue) close() { q.set(&q.closed) }
func (q *lineQueue) stop()  { q.set(&q.stopped) }

func (q *lineQueue) set(flag *bool) {
	q.mu.Lock()
	*flag = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// relayFromClient sends one of the client's lines on to the server, looking
// into it on the way; false when the server's stdin is gone.
func (r *relay) relayFromClient(line []byte) bool {
	if line = r.fromClientChecked(line); line == nil {
		return true
	}
	if has(line, `"initialize"`) || has(line, metaClientCapabilities) {
		line = r.capabilities(line)
	}
	if has(line, `"notifications/cancelled"`) {
		r.cancelled(line, "c") // and the server hears it too
	}
	if has(line, `"tools/call"`) || has(line, `"prompts/get"`) || has(line, `"resources/read"`) {
		r.remember(line)
	}
	return r.toServer.Write(line) == nil
}

// fromServer relays the server's lines to the client until the server
// closes its stdout (it exited), answering its elicitations on the way.
func (r *relay) fromServer(ctx context.Context, out io.Reader) error {
	return jsonlines.Read(out, func(line []byte) bool {
		switch {
		case has(line, `"elicitation/create"`) && r.elicitation(ctx, line):
			return true
		case has(line, `"input_required"`) && r.inputRequired(ctx, line):
			return true
		case has(line, `"notifications/cancelled"`) && r.cancelled(line, "s"):
			// About a request the client never saw.
			return true
		}
		if has(line, "serverInfo") {
			r.noteServer(line)
		}
		r.forget(line)
		r.sentToClient(line)
		// A client that went away is seen by fromClient (its stdin ends);
		// the server's last words are dropped meanwhile.
		_ = r.toClient.Write(line)
		return true
	})
}

// capabilities adds the elicitation capability to what the client declares
// — initialize's params.capabilities, the stateless protocol's
// params._meta — and notes who the client is. A line it cannot read goes on
// unchanged: the server then simply does not elicit.
func (r *relay) capabilities(line []byte) []byte {
	var top map[string]json.RawMessage
	var m message
	if json.Unmarshal(line, &top) != nil || decodeExact(line, &m) != nil || m.Method == "" || len(m.ID) == 0 {
		return line
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(m.Params, &params) != nil || params == nil {
		return line
	}
	changed := false
	if m.Method == "initialize" {
		caps, had, ok := withElicitation(params["capabilities"])
		if !ok {
			return line
		}
		params["capabilities"] = caps
		r.noteClient(params["clientInfo"], had)
		changed = true
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(params["_meta"], &meta) == nil && meta[metaClientCapabilities] != nil {
		caps, had, ok := withElicitation(meta[metaClientCapabilities])
		if ok {
			meta[metaClientCapabilities] = caps
			params["_meta"], _ = json.Marshal(meta)
			r.noteClient(meta[metaClientInfo], had)
			changed = true
		}
	}
	if !changed {
		return line
	}
	var err error
	if top["params"], err = json.Marshal(params); err != nil {
		return line
	}
	out, err := json.Marshal(top)
	if err != nil {
		return line
	}
	return append(out, '\n')
}

// withElicitation is a capabilities object with elicitation's form and URL
// modes added to whatever it declared; had says whether it declared
// elicitation itself.
func withElicitation(raw json.RawMessage) (out json.RawMessage, had, ok bool) {
	caps := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) > 0 && json.Unmarshal(raw, &caps) != nil {
		return nil, false, false
	}
	if caps == nil {
		caps = map[string]json.RawMessage{}
	}
	el := map[string]json.RawMessage{}
	if v, ok := caps["elicitation"]; ok {
		had = true
		if json.Unmarshal(v, &el) != nil || el == nil {
			el = map[string]json.RawMessage{}
		}
	}
	for _, mode := range []string{elicit.ModeForm, elicit.ModeURL} {
		if _, ok := el[mode]; !ok {
			el[mode] = json.RawMessage(`{}`)
		}
	}
	var err error
	if caps["elicitation"], err = json.Marshal(el); err != nil {
		return nil, false, false
	}
	if out, err = json.Marshal(caps); err != nil {
		return nil, false, false
	}
	return out, had, true
}

func (r *relay) noteClient(info json.RawMessage, elicits bool) {
	var ci struct {
		Name string `json:"name"`
	}
	_ = decodeExact(info, &ci)
	r.mu.Lock()
	defer r.mu.Unlock()
	if ci.Name != "" {
		r.clientName = ci.Name
	}
	r.clientElicits = r.clientElicits || elicits
}

// noteServer keeps the server's own name, from its initialize or discover
// result, for the question's metadata.
func (r *relay) noteServer(line []byte) {
	type info struct {
		Name string `json:"name"`
	}
	var m struct {
		Result struct {
			ServerInfo info                       `json:"serverInfo"`
			Meta       map[string]json.RawMessage `json:"_meta"`
		} `json:"result"`
	}
	if decodeExact(line, &m) != nil {
		return
	}
	name := m.Result.ServerInfo.Name
	if name == "" {
		var si info
		_ = decodeExact(m.Result.Meta[metaServerInfo], &si)
		name = si.Name
	}
	if name != "" {
		r.mu.Lock()
		r.serverName = name
		r.mu.Unlock()
	}
}

// remember keeps a call the server may answer with input_required, to send
// it again with the answers.
func (r *relay) remember(line []byte) {
	var m message
	if decodeExact(line, &m) != nil || len(m.ID) == 0 {
		return
	}
	switch m.Method {
	case "tools/call", "prompts/get", "resources/read":
	default:
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls = map[string][]byte{}
	}
	r.calls[string(m.ID)] = line
}

// forget drops a remembered call once its result goes to the client. Lines
// are read for their id only while calls are remembered.
func (r *relay) forget(line []byte) {
	r.mu.Lock()
	n := len(r.calls)
	r.mu.Unlock()
	if n == 0 {
		return
	}
	var m message
	if decodeExact(line, &m) != nil || len(m.ID) == 0 || m.Method != "" {
		return
	}
	r.mu.Lock()
	delete(r.calls, string(m.ID))
	r.mu.Unlock()
}

// track registers an elicitation being asked under key and runs answer in
// its own goroutine (the user may take minutes; the relay goes on). Once
// the proxy stops, nothing new is asked: stopped runs instead.
func (r *relay) track(ctx context.Context, key string, answer func(context.Context), stopped func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	r.mu.Lock()
	if r.stopping {
		r.mu.Unlock()
		cancel(nil)
		stopped()
		return
	}
	if r.waiting == nil {
		r.waiting = map[string]context.CancelCauseFunc{}
	}
	r.waiting[key] = cancel
	r.wg.Add(1) // under mu, so never after withdrawAll's Wait began
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		defer func() {
			r.mu.Lock()
			delete(r.waiting, key)
			r.mu.Unlock()
			cancel(nil)
		}()
		answer(ctx)
	}()
}

// elicitation takes an elicitation/create request of the server's and
// answers it through the daemon. It reports whether the line was taken; a
// line that is not such a request is relayed.
func (r *relay) elicitation(ctx context.Context, line []byte) bool {
	var m message
	if decodeExact(line, &m) != nil || m.Method != "elicitation/create" || len(m.ID) == 0 {
		return false
	}
	var p elicit.Params
	if err := json.Unmarshal(m.Params, &p); err != nil {
		r.replyError(r.toServer, m.ID, -32602, "askuser-client mcp-proxy: elicitation/create params: "+err.Error())
		return true
	}
	r.track(ctx, "s"+string(m.ID), func(ctx context.Context) {
		res, err := r.askElicitation(ctx, p)
		var ca *cannotAsk
		switch {
		case err == nil:
			r.reply(r.toServer, m.ID, res)
		case errors.Is(context.Cause(ctx), errPeerCancelled):
			// The server gave up on it: no reply is due.
		case ctx.Err() != nil:
			r.reply(r.toServer, m.ID, elicit.Cancel())
		case errors.As(err, &ca) && r.clientCanElicit():
			r.sentToClient(line)
			_ = r.toClient.Write(line)
		default:
			r.replyError(r.toServer, m.ID, -32603, err.Error())
		}
	}, func() { r.reply(r.toServer, m.ID, elicit.Cancel()) })
	return true
}

// inputRequired takes a result of the server's that asks for input before
// the call can finish (protocol 2026-07-28), when every input it asks for
// is an elicitation: it asks them, one after the other, and sends the
// client's call again with the answers. It reports whether the line was
// taken; otherwise (sampling, roots: the client's business) it is relayed.
func (r *relay) inputRequired(ctx context.Context, line []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result struct {
			ResultType    string             `json:"resultType"`
			InputRequests map[string]message `json:"inputRequests"`
			RequestState  json.RawMessage    `json:"requestState"`
		} `json:"result"`
	}
	if decodeExact(line, &m) != nil || m.Result.ResultType != "input_required" || len(m.ID) == 0 || len(m.Result.InputRequests) == 0 {
		return false
	}
	if !onlyElicitations(m.Result.InputRequests) {
		return false
	}
	r.mu.Lock()
	call, ok := r.calls[string(m.ID)]
	r.mu.Unlock()
	if !ok {
		return false
	}
	r.track(ctx, "c"+string(m.ID), func(ctx context.Context) {
		responses, err := r.askInputs(ctx, m.Result.InputRequests)
		if err != nil {
			r.inputsFailed(ctx, m.ID, line, err)
			return
		}
		retry, err := retryCall(call, responses, m.Result.RequestState)
		if err != nil {
			r.replyError(r.toClient, m.ID, -32603, "askuser-client mcp-proxy: "+err.Error())
			return
		}
		_ = r.toServer.Write(retry)
	}, func() {})
	return true
}

func onlyElicitations(inputs map[string]message) bool {
	for _, in := range inputs {
		if in.Method != "elicitation/create" {
			return false
		}
	}
	return true
}

// askInputs asks each elicitation of inputs in askuser, in the order of
// their keys, and returns the results by key; the first that cannot be
// answered stops it.
func (r *relay) askInputs(ctx context.Context, inputs map[string]message) (map[string]elicit.Result, error) {
	ids := make([]string, 0, len(inputs))
	for id := range inputs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	responses := map[string]elicit.Result{}
	for _, id := range ids {
		var p elicit.Params
		if err := json.Unmarshal(inputs[id].Params, &p); err != nil {
			return nil, &cannotAsk{why: "inputRequests." + id + ": " + err.Error()}
		}
		res, err := r.askElicitation(ctx, p)
		if err != nil {
			return nil, err
		}
		responses[id] = res
	}
	return responses, nil
}

// inputsFailed ends the call id whose inputs askInputs could not answer
// with err; line is the server's input_required result.
func (r *relay) inputsFailed(ctx context.Context, id json.RawMessage, line []byte, err error) {
	var ca *cannotAsk
	switch {
	case errors.Is(context.Cause(ctx), errPeerCancelled):
		// the client cancelled its call: nothing more is due
	case ctx.Err() != nil:
		// stopping: the client is gone or going
	case errors.As(err, &ca) && r.clientCanElicit():
		// The client's own round trip, from the start.
		r.mu.Lock()
		delete(r.calls, string(id))
		r.mu.Unlock()
		_ = r.toClient.Write(line)
	default:
		r.replyError(r.toClient, id, -32603, err.Error())
	}
}

// retryCall is the client's call again, with the answers in inputResponses
// and the server's requestState echoed, as SEP-2322 has a client retry.
func retryCall(call []byte, responses map[string]elicit.Result, state json.RawMessage) ([]byte, error) {
	var top, params map[string]json.RawMessage
	if err := json.Unmarshal(call, &top); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(top["params"], &params); err != nil || params == nil {
		params = map[string]json.RawMessage{}
	}
	var err error
	if params["inputResponses"], err = json.Marshal(responses); err != nil {
		return nil, err
	}
	delete(params, "requestState")
	if len(state) > 0 && string(state) != "null" {
		params["requestState"] = state
	}
	if top["params"], err = json.Marshal(params); err != nil {
		return nil, err
	}
	out, err := json.Marshal(top)
	return append(out, '\n'), err
}

func (r *relay) clientCanElicit() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.clientElicits
}

// askElicitation asks one elicitation in askuser and waits for its result.
// An error is a *cannotAsk, or ctx's when the question was withdrawn.
func (r *relay) askElicitation(ctx context.Context, p elicit.Params) (elicit.Result, error) {
	form, err := elicit.Build(p)
	if err != nil {
		return elicit.Result{}, &cannotAsk{why: "cannot ask this form in askuser: " + err.Error()}
	}
	req := r.request(form)
	if perr := socketproto.CheckSubagent(req.Agent); perr != nil {
		return elicit.Result{}, &cannotAsk{why: perr.Error()}
	}
	if perr := socketproto.ValidateRequest(req.Request, r.limits); perr != nil {
		return elicit.Result{}, &cannotAsk{why: "cannot ask this form in askuser: " + perr.Error()}
	}
	resp, err := r.ask(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return elicit.Result{}, ctx.Err()
		}
		return elicit.Result{}, &cannotAsk{why: r.describe(err)}
	}
	return form.Result(resp), nil
}

// request is the form as a question request from the agent this proxy
// serves: named after the MCP client, as `askuser-client mcp` names it.
func (r *relay) request(form *elicit.Form) socketproto.AskUserRequest {
	r.mu.Lock()
	client, server := r.clientName, r.serverName
	r.mu.Unlock()
	a := r.agent
	name := agentinput.Printable(client, socketproto.MaxAgentNameChars)
	if name == "" {
		name = "mcp"
	}
	if len(a.Cwd) > socketproto.MaxAgentCwdChars {
		a.Cwd = ""
	}
	if a.ID == "" {
		a.ID = agentinput.Slug(name) + "-" + r.pid
	}
	if a.Name == "" {
		a.Name = name
	}
	if server == "" {
		server = r.server
	}
	md, _ := json.Marshal(map[string]string{"MCP server": agentinput.Printable(server, 200)})
	return socketproto.AskUserRequest{Request: socketproto.Request{
		Tool:      socketproto.ToolAskUser,
		Questions: form.Questions,
		Metadata:  md,
		Agent:     &a,
	}}
}

// describe says why a form could not be asked, for the server to pass on.
func (r *relay) describe(err error) string {
	var perr *socketproto.Error
	switch {
	case errors.Is(err, askclient.ErrConnectionLost):
		return "the question was lost: " + err.Error()
	case errors.As(err, &perr):
		return perr.Error()
	case errors.Is(err, askclient.ErrUnreachable):
		hint := "run 'askuserd' in a terminal, or 'askuserd serve'"
		if !r.autostart {
			hint += " (this proxy does not start it: --no-autostart)"
		}
		return err.Error() + "; " + hint
	}
	return "askuser: " + err.Error()
}

// cancelled withdraws an elicitation that a notifications/cancelled names:
// from the server ("s"), a request of its own; from the client ("c"), a
// call being answered with input. It reports whether it named one.
func (r *relay) cancelled(line []byte, side string) bool {
	var m message
	if decodeExact(line, &m) != nil || m.Method != "notifications/cancelled" || len(m.ID) != 0 {
		return false
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if decodeExact(m.Params, &p) != nil || len(p.RequestID) == 0 {
		return false
	}
	r.mu.Lock()
	cancel, ok := r.waiting[side+string(p.RequestID)]
	if side == "c" {
		delete(r.calls, string(p.RequestID))
	}
	r.mu.Unlock()
	if ok {
		cancel(errPeerCancelled)
	}
	return ok
}

// withdrawAll withdraws every elicitation still waiting (the client went
// away or the proxy is told to stop) and waits until each has replied.
func (r *relay) withdrawAll() {
	r.mu.Lock()
	r.stopping = true
	for _, cancel := range r.waiting {
		cancel(errProxyStopping)
	}
	r.mu.Unlock()
	r.wg.Wait()
}

func (r *relay) reply(to *jsonlines.Writer, id json.RawMessage, result any) {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	if err != nil {
		r.replyError(to, id, -32603, "askuser-client mcp-proxy: "+err.Error())
		return
	}
	_ = to.Write(append(b, '\n'))
}

func (r *relay) replyError(to *jsonlines.Writer, id json.RawMessage, code int, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	_ = to.Write(append(b, '\n'))
}
