package journal

import (
	"slices"
	"time"

	"askuser/socketproto"
)

// model is the live state as the journal's own goroutine (or a replay) sees
// it: applying every record in order gives what the queue holds.
type model struct {
	pending map[string]*Request
	order   []string // pending ids, oldest first; may hold resolved ids until tidy
	results map[string]*Result
	resOrd  []string // result ids, oldest first
}

func newModel() *model {
	return &model{pending: map[string]*Request{}, results: map[string]*Result{}}
}

// apply takes one record in. It returns the history entry a resolve makes
// (nil otherwise) and false when the record makes no sense here (an id never
// added), which replay logs and skips.
func (m *model) apply(r Record) (*HistoryEntry, bool) {
	switch r.Op {
	case OpAdd:
		if r.Pending == nil || r.ID == "" {
			return nil, false
		}
		if _, dup := m.pending[r.ID]; !dup {
			m.order = append(m.order, r.ID)
		}
		m.pending[r.ID] = &Request{Pending: *r.Pending, Parked: r.Parked}
	case OpDraft:
		p := m.pending[r.ID]
		if p == nil {
			return nil, false
		}
		p.Pending.Draft = r.Draft
	case OpResolve:
		p := m.pending[r.ID]
		if p == nil {
			return nil, false
		}
		delete(m.pending, r.ID)
		m.keep(&Result{ID: r.ID, Outcome: r.Outcome, Via: r.Via, Response: r.Response,
			Expires: r.Expires, Delivered: r.Delivered,
			Questions: p.Pending.Questions, Agent: p.Pending.Agent})
		return historyOf(p, r), true
	case OpDelivered:
		res := m.results[r.ID]
		if res == nil {
			return nil, false
		}
		res.Delivered = true
	case OpResult:
		if r.ID == "" || r.Pending == nil {
			return nil, false
		}
		m.keep(&Result{ID: r.ID, Outcome: r.Outcome, Via: r.Via, Response: r.Response,
			Expires: r.Expires, Delivered: r.Delivered,
			Questions: r.Pending.Questions, Agent: r.Pending.Agent})
	default:
		return nil, false
	}
	return nil, true
}

func (m *model) keep(res *Result) {
	if _, had := m.results[res.ID]; !had {
		m.resOrd = append(m.resOrd, res.ID)
	}
	m.results[res.ID] = res
}

// state is the live state, without results expired by now.
func (m *model) state(now time.Time) State {
	m.tidy(now)
	st := State{Pending: make([]Request, 0, len(m.order)), Results: make([]Result, 0, len(m.resOrd))}
	for _, id := range m.order {
		st.Pending = append(st.Pending, *m.pending[id])
	}
	for _, id := range m.resOrd {
		st.Results = append(st.Results, *m.results[id])
	}
	return st
}

// tidy drops resolved ids from the order and results expired by now.
func (m *model) tidy(now time.Time) {
	m.order = slices.DeleteFunc(m.order, func(id string) bool { return m.pending[id] == nil })
	m.resOrd = slices.DeleteFunc(m.resOrd, func(id string) bool {
		if res := m.results[id]; res != nil && res.Expires.After(now) {
			return false
		}
		delete(m.results, id)
		return true
	})
}

// snapshot is the records that rebuild the live state: what compaction writes.
func (m *model) snapshot(now time.Time) []Record {
	st := m.state(now)
	recs := make([]Record, 0, len(st.Pending)+len(st.Results))
	for _, p := range st.Pending {
		recs = append(recs, Record{Op: OpAdd, ID: p.Pending.RequestID, At: now, Pending: &p.Pending, Parked: p.Parked})
	}
	for _, res := range st.Results {
		asked := resultRequest(res)
		recs = append(recs, Record{Op: OpResult, ID: res.ID, At: now, Pending: asked,
			Outcome: res.Outcome, Via: res.Via, Response: res.Response, Expires: res.Expires, Delivered: res.Delivered})
	}
	return recs
}

func historyOf(p *Request, r Record) *HistoryEntry {
	h := &HistoryEntry{
		RequestID: r.ID,
		Tool:      p.Pending.Tool,
		Questions: p.Pending.Questions,
		Outcome:   r.Outcome,
		Via:       r.Via,
		Time:      r.At,
		CreatedAt: p.Pending.CreatedAt,
		Agent:     p.Pending.Agent,
		Metadata:  p.Pending.Metadata,
	}
	if r.Response != nil {
		h.Answers = r.Response.Answers
		h.AnswersByQuestion = r.Response.AnswersByQuestion
		if !r.Response.AnsweredAt.IsZero() {
			h.Time = r.Response.AnsweredAt
		}
	}
	if h.Answers == nil {
		h.Answers = []socketproto.Answer{}
	}
	return h
}

// resultRequest is what a kept result remembers of its request.
func resultRequest(res Result) *socketproto.Pending {
	p := &socketproto.Pending{}
	p.RequestID = res.ID
	p.Questions = res.Questions
	p.Agent = res.Agent
	return p
}
