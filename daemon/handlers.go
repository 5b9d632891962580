package daemon

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strconv"
	"time"

	"askuser/socketproto"
)

// handle answers one decoded message (or its decoding error) from c.
func (s *state) handle(c *conn, msg socketproto.Message, perr *socketproto.Error) {
	if c.gone {
		return
	}
	if perr != nil {
		s.send(c, perr)
		return
	}
	if s.handleRequestMessage(c, msg) || s.handleServiceMessage(c, msg) {
		return
	}
	s.send(c, socketproto.Errf(socketproto.CodeUnknownType, "type", "unknown message type %q", msg.MessageType()))
}

// handleRequestMessage handles a message about one request (asking, waiting,
// withdrawing, answering, a draft) and reports whether msg was one.
func (s *state) handleRequestMessage(c *conn, msg socketproto.Message) bool {
	switch m := msg.(type) {
	case socketproto.AskUserRequest:
		s.ask(c, m)
	case socketproto.Wait:
		s.wait(c, m)
	case socketproto.Cancel:
		s.cancel(c, m)
	case socketproto.AnswerRequest:
		s.answer(c, m)
	case socketproto.DraftRequest:
		s.draft(c, m)
	default:
		return false
	}
	return true
}

// handleServiceMessage handles a message about the daemon and the
// connection (hello, subscribing, listing, status, rules, activity, web
// push) and reports whether msg was one.
func (s *state) handleServiceMessage(c *conn, msg socketproto.Message) bool {
	switch m := msg.(type) {
	case socketproto.Hello:
		s.hello(c, m)
	case socketproto.Subscribe:
		s.subscribe(c, m)
	case socketproto.ListRequest:
		s.sendList(c)
	case socketproto.StatusRequest:
		s.send(c, s.status())
	case socketproto.RulesRequest:
		s.rulesList(c)
	case socketproto.RevokeRule:
		s.revokeRule(c, m)
	case socketproto.Activity:
		s.handleActivity()
	case socketproto.PushKeyRequest:
		s.pushKey(c)
	case socketproto.PushSubscribe:
		s.pushSubscribe(c, m)
	case socketproto.PushUnsubscribe:
		s.pushUnsubscribe(c, m)
	default:
		return false
	}
	return true
}

func (s *state) hello(c *conn, m socketproto.Hello) {
	if m.Protocol != socketproto.ProtocolVersion {
		s.send(c, socketproto.Errf(socketproto.CodeUnsupportedProtocol, "protocol",
			"askuserd speaks protocol %d, got %d", socketproto.ProtocolVersion, m.Protocol))
		return
	}
	s.send(c, socketproto.Hello{
		Protocol:    socketproto.ProtocolVersion,
		Server:      "askuserd/" + s.opts.Version,
		PendingFile: s.opts.PendingFilePath,
	})
}

func (s *state) ask(c *conn, m socketproto.AskUserRequest) {
	if e := socketproto.CheckSubagent(m.Agent); e != nil {
		s.sendErr(c, m.RequestID, e)
		return
	}
	if e := socketproto.ValidateRequest(m.Request, s.limits); e != nil {
		s.sendErr(c, m.RequestID, e)
		return
	}
	if e := refuseRememberOptions(m.Request); e != nil {
		s.sendErr(c, m.RequestID, e)
		return
	}
	id := m.RequestID
	if id == "" {
		id = s.newID()
	}
	kept := s.keptFor(m.Request)
	if e := s.idTaken(id, kept); e != nil {
		s.sendErr(c, id, e)
		return
	}
	if kept != nil && kept.id == id {
		// The agent asks again under the id it used (its daemon went away
		// before it could collect the answer): that request is answered.
		s.send(c, socketproto.Queued{RequestID: id, Position: 0, PendingFile: s.opts.PendingFilePath})
		if m.Waits() {
			s.send(c, *kept.resp)
		}
		s.markDelivered(kept)
		return
	}
	if kept == nil && len(s.pending) >= s.limits.MaxPending {
		s.sendErr(c, id, socketproto.Errf(socketproto.CodeQueueFull, "",
			"%d requests are already pending (limits.max_pending); try again later", len(s.pending)))
		return
	}
	r := &request{p: socketproto.Pending{
		Request:   m.Request,
		CreatedAt: s.now().UTC(),
		Status:    socketproto.StatusParked,
		Draft:     make([]json.RawMessage, len(m.Questions)),
	}}
	r.p.RequestID = id
	r.p.Tool = m.ProfileTool()
	r.owner = c
	r.parked = !m.Waits()
	if m.Waits() {
		r.p.Status = socketproto.StatusWaiting
		r.waiters = []*conn{c}
	}
	if kept != nil {
		s.answerFromKept(c, r, kept)
		return
	}
	if s.permissionPrompt(c, r) {
		return // answered by a rule
	}
	position := len(s.pending) + 1
	if err := s.add(r); err != nil {
		s.sendErr(c, id, stateUnavailable(id, err))
		return
	}
	s.send(c, socketproto.Queued{RequestID: id, Position: position, PendingFile: s.opts.PendingFilePath})
}

// idTaken refuses a request id that names another request: one pending, or
// one resolved whose result is still kept (docs/contract.md §4). The one exception is
// the agent's own kept answer under that very id.
func (s *state) idTaken(id string, kept *result) *socketproto.Error {
	if _, dup := s.pending[id]; dup {
		return socketproto.Errf(socketproto.CodeDuplicateRequestID, "requestId",
			"request %q is already pending; wait for it or use another id", id)
	}
	if res := s.results[id]; res != nil && res != kept {
		return socketproto.Errf(socketproto.CodeDuplicateRequestID, "requestId",
			"request %q was already %s; its id stays taken while its result is kept (until %s); use another id",
			id, res.outcome, res.expires.UTC().Format(time.RFC3339))
	}
	return nil
}

// newID makes a request id no pending or remembered request has.
func (s *state) newID() string {
	stamp := strconv.FormatInt(s.now().UnixMilli(), 10)
	for {
		s.idSeq++
		id := "req-" + stamp + "-" + strconv.FormatUint(s.idSeq, 10)
		_, p := s.pending[id]
		_, r := s.results[id]
		if !p && !r {
			return id
		}
	}
}

func (s *state) wait(c *conn, m socketproto.Wait) {
	if r := s.pending[m.RequestID]; r != nil {
		s.addWaiter(r, c)
		return
	}
	res := s.results[m.RequestID]
	switch {
	case res == nil:
		s.sendErr(c, m.RequestID, socketproto.Errf(socketproto.CodeNotFound, "requestId",
			"no pending or recently resolved request %q", m.RequestID))
	case res.resp == nil:
		s.sendErr(c, m.RequestID, socketproto.Errf(socketproto.CodeNotFound, "requestId",
			"request %q was withdrawn: its agent cancelled it or did not come back within %s",
			m.RequestID, s.opts.Config.Daemon.OrphanGrace.Duration))
	default:
		s.send(c, *res.resp)
		s.markDelivered(res)
	}
}

// lookup finds a pending request for answer and cancel, or says why not.
func (s *state) lookup(id string) (*request, *socketproto.Error) {
	if r := s.pending[id]; r != nil {
		return r, nil
	}
	if res := s.results[id]; res != nil {
		if res.settled != "" {
			return nil, socketproto.Errf(socketproto.CodeAlreadyResolved, "requestId",
				"request %q was already settled in its agent's own prompt: %s", id, res.settled)
		}
		return nil, socketproto.Errf(socketproto.CodeAlreadyResolved, "requestId",
			"request %q was already %s%s", id, res.outcome, viaPhrase(res.via))
	}
	return nil, socketproto.Errf(socketproto.CodeNotFound, "requestId", "no pending request %q", id)
}

func viaPhrase(via socketproto.Via) string {
	switch via {
	case "":
		return ""
	case socketproto.ViaAgent:
		return " by its agent"
	}
	return " via " + string(via)
}

// viaOf is the message's via, else what the connection is: a pane, or the CLI.
func viaOf(c *conn, via socketproto.Via) socketproto.Via {
	if via != "" {
		return via
	}
	if c.role == socketproto.RolePane {
		return socketproto.ViaPane
	}
	return socketproto.ViaCLI
}

func (s *state) cancel(c *conn, m socketproto.Cancel) {
	r, e := s.lookup(m.RequestID)
	if e != nil {
		s.sendErr(c, m.RequestID, e)
		return
	}
	if c.asking.has(m.RequestID) || r.owner == c {
		// The agent takes its question back, saying how its own prompt
		// settled it if it was; other waiters learn it is gone.
		if err := s.withdraw(r, m.Settled, c); err != nil {
			s.sendErr(c, m.RequestID, stateUnavailable(m.RequestID, err))
			return
		}
	} else if m.Settled != "" {
		// Only the agent knows how its own prompt went.
		s.sendErr(c, m.RequestID, socketproto.Errf(socketproto.CodeInvalidRequest, "settled",
			"only the asking agent's own withdrawal may say how its prompt was settled"))
		return
	} else if err := s.cancelAsUser(r, viaOf(c, m.Via)); err != nil {
		s.sendErr(c, m.RequestID, stateUnavailable(m.RequestID, err))
		return
	}
	s.send(c, socketproto.OK{RequestID: m.RequestID})
}

func (s *state) answer(c *conn, m socketproto.AnswerRequest) {
	r, e := s.lookup(m.RequestID)
	if e != nil {
		s.sendErr(c, m.RequestID, e)
		return
	}
	answers, e := socketproto.NormalizeAnswers(r.p.Questions, m.Answers)
	if e != nil {
		s.sendErr(c, m.RequestID, e)
		return
	}
	if err := s.answerWith(r, answers, viaOf(c, m.Via)); err != nil {
		s.sendErr(c, m.RequestID, stateUnavailable(m.RequestID, err))
		return
	}
	s.send(c, socketproto.OK{RequestID: m.RequestID})
}

func (s *state) subscribe(c *conn, m socketproto.Subscribe) {
	role := m.Role
	if role == "" {
		role = socketproto.RoleWatch
	}
	s.unsubscribe(c)
	c.role = role
	if role == socketproto.RolePane {
		s.panes++
	}
	s.subs[c] = struct{}{}
	s.sendSnapshot(c)
	s.tellTrouble(c)
}

func (s *state) status() socketproto.Status {
	return socketproto.Status{
		State:         s.currentState(),
		Pending:       len(s.pending),
		Panes:         s.panes,
		Version:       s.opts.Version,
		Pid:           os.Getpid(),
		Socket:        s.opts.SocketPath,
		StateDir:      s.opts.Config.StateDir(),
		PendingFile:   s.opts.PendingFilePath,
		UptimeSeconds: int64(s.now().Sub(s.started).Seconds()),

		PendingFileError: s.fileTrouble[s.opts.PendingFilePath],
		StateDirError:    s.trouble,
		FileErrors:       s.fileErrors(),
		ConfigError:      s.configs.trouble,
		ConfigRestart:    s.configs.restart,
	}
}

// fileErrors is the troubles of the daemon's other files, by path.
func (s *state) fileErrors() []socketproto.FileError {
	var out []socketproto.FileError
	for _, path := range slices.Sorted(maps.Keys(s.otherTrouble)) {
		out = append(out, socketproto.FileError{Path: path, Error: s.otherTrouble[path]})
	}
	return out
}
