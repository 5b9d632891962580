package daemon

import (
	"reflect"
	"slices"

	"askuser/socketproto"
)

// Kept answers (docs/contract.md §10): an answered request whose agent went away keeps
// its result for daemon.result_retention, and a new request from the same
// agent id with exactly the same questions gets that answer at once instead
// of asking the user again. The index below finds such a result; it holds
// only answered results that no connection has received yet.

// keptAnswers indexes kept answered results that no connection has received
// yet, by agent id, for "same agent, same questions".
type keptAnswers struct {
	byAgent map[string][]*result
}

// indexKept makes an answered result nobody has received yet findable by
// its agent's id.
func (s *state) indexKept(res *result) {
	a := res.asked.Agent
	if res.outcome != socketproto.OutcomeAnswered || res.resp == nil || res.delivered || a == nil || a.ID == "" {
		return
	}
	if s.byAgent == nil {
		s.byAgent = map[string][]*result{}
	}
	s.byAgent[a.ID] = append(s.byAgent[a.ID], res)
}

// forgetKept drops a result from the index (delivered or expired).
func (s *state) forgetKept(res *result) {
	a := res.asked.Agent
	if a == nil || s.byAgent[a.ID] == nil {
		return
	}
	list := slices.DeleteFunc(s.byAgent[a.ID], func(r *result) bool { return r == res })
	if len(list) == 0 {
		delete(s.byAgent, a.ID)
	} else {
		s.byAgent[a.ID] = list
	}
}

// keptFor finds the undelivered answer to the same questions from the same
// agent (docs/contract.md §10), or nil.
func (s *state) keptFor(req socketproto.Request) *result {
	if req.Agent == nil || req.Agent.ID == "" {
		return nil
	}
	for _, res := range s.byAgent[req.Agent.ID] {
		// Only undelivered results are indexed; one replaced under the same
		// id (an old journal's pending request and result) is not this one.
		if s.results[res.id] == res && reflect.DeepEqual(res.asked.Questions, req.Questions) {
			return res
		}
	}
	return nil
}

// answerFromKept answers a repeated request at once with a kept answer. The
// new request is journaled and resolved with the answers given earlier, so
// "wait" on its id works and history has it; followers hear only that it was
// resolved (enqueue). The kept answer is then delivered, and neither it nor
// the new request's copy of it is handed out again.
func (s *state) answerFromKept(c *conn, r *request, old *result) {
	if err := s.enqueue(r); err != nil {
		s.sendErr(c, r.p.RequestID, stateUnavailable(r.p.RequestID, err))
		return
	}
	s.send(c, socketproto.Queued{RequestID: r.p.RequestID, Position: 0, PendingFile: s.opts.PendingFilePath})
	resp := *old.resp
	resp.RequestID = r.p.RequestID
	if err := s.resolve(r, old.outcome, old.via, &resp, nil); err != nil {
		// It stays pending, as asked; the user answers it again.
		s.tellAdded(r)
		return
	}
	// Asked without waiting, its result is kept for "wait" but is no kept
	// answer for a third identical request.
	s.forgetKept(s.results[r.p.RequestID])
	s.markDelivered(old)
	s.log.Debug("answered a repeated request from a kept answer", "requestId", r.p.RequestID, "keptFrom", old.id,
		"agent", r.p.Agent.ID)
}
