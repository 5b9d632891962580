package journal

import (
	"slices"
	"time"

	"askuser/internal/history"
	"askuser/socketproto"
)

// model is the live state that replaying the records adds up to. It is used
// for replay only: once the queue holds the state, the queue is the truth and
// compaction takes its snapshot from there.
type model struct {
	pending map[string]*Request
	order   []string // pending ids, oldest first; may hold resolved ids until state()
	results map[string]*Result
	resOrd  []string // result ids, oldest first
	// resolved lists the history entries that resolutions since the last
	// mark (and results marked NoHistory) make: what history.jsonl must hold
	// after the mark's offset.
	resolved []history.Entry
	// mark is history.jsonl's size at the last compaction.
	mark int64
	// histories holds each result's history line, for a history cut
	// shorter than the mark (allResolved).
	histories map[string]history.Entry
}

func newModel() *model {
	return &model{pending: map[string]*Request{}, results: map[string]*Result{}, histories: map[string]history.Entry{}}
}

// apply takes one record in. It returns false when the record makes no sense
// here (an id never added, a request that names another id), which replay
// logs and skips: a record that cannot be answered must not come back.
func (m *model) apply(r Record) bool {
	switch r.Op {
	case OpMark:
		m.mark = r.HistorySize
		m.resolved = nil
	case OpAdd:
		if !validAsked(r) {
			return false
		}
		if _, dup := m.pending[r.ID]; !dup {
			m.order = append(m.order, r.ID)
		}
		m.pending[r.ID] = &Request{Pending: *r.Pending, Parked: r.Parked, Remember: r.Remember}
	case OpDraft:
		p := m.pending[r.ID]
		if p == nil || len(r.Draft) > len(p.Pending.Questions) {
			return false
		}
		p.Pending.Draft = r.Draft
	case OpResolve:
		p := m.pending[r.ID]
		if p == nil {
			return false
		}
		delete(m.pending, r.ID)
		asked := p.Pending
		asked.Draft = nil
		h := HistoryOf(&asked, r)
		m.keep(&Result{ID: r.ID, Outcome: r.Outcome, Via: r.Via, Response: r.Response,
			Expires: r.Expires, Delivered: r.Delivered, Asked: asked, Settled: r.Settled}, h)
		m.resolved = append(m.resolved, h)
	case OpDelivered:
		res := m.results[r.ID]
		if res == nil {
			return false
		}
		res.Delivered = true
	case OpResult:
		if !validAsked(r) {
			return false
		}
		h := HistoryOf(r.Pending, r)
		m.keep(&Result{ID: r.ID, Outcome: r.Outcome, Via: r.Via, Response: r.Response,
			Expires: r.Expires, Delivered: r.Delivered, Asked: *r.Pending, Settled: r.Settled}, h)
		if r.NoHistory {
			m.resolved = append(m.resolved, h)
		}
	default:
		return false
	}
	return true
}

// validAsked checks what an add or result record says was asked: it must
// name itself, and ask something.
func validAsked(r Record) bool {
	return r.ID != "" && len(r.ID) <= socketproto.MaxRequestIDLen && r.Pending != nil &&
		r.Pending.RequestID == r.ID && len(r.Pending.Questions) > 0 &&
		len(r.Pending.Draft) <= len(r.Pending.Questions)
}

func (m *model) keep(res *Result, h history.Entry) {
	if _, had := m.results[res.ID]; !had {
		m.resOrd = append(m.resOrd, res.ID)
	}
	m.results[res.ID] = res
	m.histories[res.ID] = h
}

// allResolved is the history line of every result the journal holds,
// expired or not, oldest first: what history.jsonl must hold somewhere when
// it was cut shorter than the mark and the lines before the mark are gone.
func (m *model) allResolved() []history.Entry {
	var out []history.Entry
	for _, id := range m.resOrd {
		if _, ok := m.results[id]; ok {
			out = append(out, m.histories[id])
		}
	}
	return out
}

// state is the live state, without results expired by now.
func (m *model) state(now time.Time) State {
	m.order = slices.DeleteFunc(m.order, func(id string) bool { return m.pending[id] == nil })
	m.resOrd = slices.DeleteFunc(m.resOrd, func(id string) bool {
		if res := m.results[id]; res != nil && res.Expires.After(now) {
			return false
		}
		delete(m.results, id)
		return true
	})
	st := State{Pending: make([]Request, 0, len(m.order)), Results: make([]Result, 0, len(m.resOrd))}
	for _, id := range m.order {
		st.Pending = append(st.Pending, *m.pending[id])
	}
	for _, id := range m.resOrd {
		st.Results = append(st.Results, *m.results[id])
	}
	return st
}

// HistoryOf is the history.jsonl line for a request resolved as r says.
func HistoryOf(asked *socketproto.Pending, r Record) history.Entry {
	h := history.Entry{
		RequestID: r.ID,
		Tool:      asked.Tool,
		Questions: asked.Questions,
		Outcome:   r.Outcome,
		Via:       r.Via,
		Time:      r.At,
		CreatedAt: asked.CreatedAt,
		Agent:     asked.Agent,
		Metadata:  asked.Metadata,
		Settled:   r.Settled,

		Permission: asked.Permission,
	}
	if r.Response != nil {
		h.RuleID = r.Response.RuleID
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
