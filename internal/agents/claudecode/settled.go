package claudecode

import (
	"encoding/json"
	"time"
)

// How the hook learns that a permission prompt was settled in Claude Code's
// own dialog, and how: the session record says when (session.go),
// the call's result in the transcript says how (transcript.go).
// The outcome goes to askuser with the withdrawal, so a later answer there
// is refused and history records what the user chose in Claude Code.

// Outcomes the hook reports to askuser.
const (
	settledAllowed = "allowed in Claude Code's own dialog"
	settledDenied  = "denied in Claude Code's own dialog"
	settledRunning = "allowed in Claude Code's own dialog, the call running"
	settledUnknown = "answered in Claude Code's own dialog"
)

// SettledPoll is how often the record and the transcript are read: both
// are small reads (the transcript from where the last read ended).
const SettledPoll = 100 * time.Millisecond

// resultGrace is how long, once the record says the dialog was answered and
// no tool runs, the hook waits for the call's result to say how: a
// refusal's result is written at once.
const resultGrace = 2 * time.Second

// SettledWatch follows a session record and a transcript (either may be
// nil) for the end of one permission prompt.
type SettledWatch struct {
	session    *sessionWatch
	transcript *transcriptWatch
}

// NewSettledWatch follows the session record and the transcript beside
// transcriptPath for the end of the permission prompt for tool with input,
// shown since began; nil when there is neither to follow.
func NewSettledWatch(transcriptPath, sessionID, tool string, input json.RawMessage, began time.Time) *SettledWatch {
	w := &SettledWatch{session: newSessionWatch(transcriptPath, sessionID),
		transcript: newTranscriptWatch(transcriptPath, tool, input, began)}
	if w.session == nil && w.transcript == nil {
		return nil
	}
	return w
}

// Settled sends how the prompt was settled in Claude Code's own dialog,
// once it was; it stops when stop is closed.
func (w SettledWatch) Settled(stop <-chan struct{}) <-chan string {
	out := make(chan string, 1)
	go func() {
		t := time.NewTicker(SettledPoll)
		defer t.Stop()
		var answeredAt time.Time // when the record said the dialog was answered
		busy := false
		// The first look is at once: the dialog may be answered within a
		// poll of its showing, and a record never seen asking says nothing.
		for first := true; ; first = false {
			if !first {
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
			if w.transcript != nil && w.transcript.read() {
				out <- outcomeOf(w.transcript.result)
				return
			}
			if answeredAt.IsZero() && w.session != nil {
				var done bool
				if done, busy = w.session.poll(); done {
					answeredAt = time.Now()
				}
			}
			switch {
			case answeredAt.IsZero():
			case busy:
				// Answered, and a tool runs with no result yet: Claude
				// Code ends the turn on a refusal, so the call was allowed.
				out <- settledRunning
				return
			case w.transcript == nil || time.Since(answeredAt) >= resultGrace:
				out <- settledUnknown
				return
			}
		}
	}()
	return out
}

func outcomeOf(r *callResult) string {
	if r != nil && r.denied {
		return settledDenied
	}
	return settledAllowed
}
