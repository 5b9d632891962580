// Package journal keeps askuserd's queue on disk (docs/contract.md §10): an append-only
// state.jsonl of what happened to each request, replayed on start and
// compacted to the live state, and history.jsonl, one line per resolved
// request. It knows the records and the files, nothing of the queue that
// sends them: the daemon hands it records and, on start, takes back the
// State it replays.
package journal

import (
	"encoding/json"
	"time"

	"askuser/socketproto"
)

// Op is what a record says happened.
type Op string

// Record ops.
const (
	OpAdd       Op = "add"       // a request was queued: Pending, Parked
	OpDraft     Op = "draft"     // the draft answers changed: Draft
	OpResolve   Op = "resolve"   // answered, cancelled or withdrawn: Outcome, Via, Response, Expires
	OpDelivered Op = "delivered" // a kept result reached its agent
	OpResult    Op = "result"    // a kept result, as compaction writes it (Pending carries what was asked)
	OpMark      Op = "mark"      // the first line compaction writes: HistorySize, Format
)

// Record is one line of state.jsonl.
type Record struct {
	Op Op        `json:"op"`
	ID string    `json:"id"`
	At time.Time `json:"at"`

	Pending *socketproto.Pending `json:"pending,omitempty"`
	// PendingJSON, when set, is Pending as json.Marshal encodes it, written
	// in its place (as ResponseJSON).
	PendingJSON json.RawMessage `json:"-"`
	// Parked: asked with "wait": false, so it comes back parked, not orphaned.
	Parked bool `json:"parked,omitempty"`
	// Remember (add): the rule each of the daemon's own "Allow, and
	// remember" options saves, by the option's label, as offered. A
	// restart gives the same choice the same rule, whatever changed in
	// the tree since.
	Remember map[string]socketproto.Rule `json:"remember,omitempty"`

	Draft []json.RawMessage `json:"draft,omitempty"`

	Outcome  socketproto.Outcome   `json:"outcome,omitempty"`
	Via      socketproto.Via       `json:"via,omitempty"`
	Response *socketproto.Response `json:"response,omitempty"`
	// ResponseJSON, when set, is Response as json.Marshal encodes it,
	// written in its place: the daemon sends the agent the same bytes, so
	// they are encoded once.
	ResponseJSON json.RawMessage `json:"-"`
	Expires      time.Time       `json:"expires,omitzero"`
	Delivered    bool            `json:"delivered,omitempty"`
	// Settled (resolve, result): how the user settled a withdrawn request
	// in the agent's own prompt. Absent in journals written before it.
	Settled string `json:"settled,omitempty"`

	// HistorySize (mark): history.jsonl's size when the journal was
	// compacted. Every resolution after the mark has its history line
	// after that offset, which is where a restart looks for it.
	HistorySize int64 `json:"historySize,omitempty"`
	// Format (mark): the journal format the file is written in (format.go).
	Format int `json:"format,omitempty"`
	// NoHistory (result): its history line was not written yet.
	NoHistory bool `json:"noHistory,omitempty"`
}

// Request is a pending request as replayed.
type Request struct {
	Pending  socketproto.Pending
	Parked   bool
	Remember map[string]socketproto.Rule
}

// Result is a resolved request kept until Expires.
type Result struct {
	ID      string
	Outcome socketproto.Outcome
	Via     socketproto.Via
	// Response is nil when the request was withdrawn.
	Response *socketproto.Response
	Expires  time.Time
	// Delivered: the result was written to a waiting connection.
	Delivered bool
	// Asked is the request as it was asked (without its draft), for
	// history and for "same agent, same questions" (docs/contract.md §10).
	Asked socketproto.Pending
	// Settled: how the user settled a withdrawn request in the agent's own
	// prompt.
	Settled string
}

// State is the live state the records add up to: pending requests in the
// order they were asked, and results kept, in the order they were resolved.
type State struct {
	Pending []Request
	Results []Result
}
