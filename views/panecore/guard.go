package panecore

import (
	"fmt"
	"time"
)

// No answer the user has not seen (docs/contract.md §6). Two things keep
// keys meant for one request from answering another:
//
//   - the revision: View.Rev changes whenever what is on screen changes by
//     itself (a daemon event: a request arrives or leaves, the next slides
//     in, an answer changes elsewhere), and an action that answers carries
//     the revision it was made against. One made against an older one was
//     made on a screen that is gone, and is refused. A terminal draws after
//     every event, so its keys are rarely stale; a web page is a network
//     away, and its clicks can be.
//   - settling: when the request or question on screen changed by itself,
//     such actions are refused for ui.input_guard, the time it takes to see
//     that it changed. The user's own moves (Tab, [ ], answering and moving
//     on) start neither: their next actions are theirs.
type guard struct {
	rev         uint64
	why         string    // what changed at the last revision, for the refusal
	bumped      bool      // the event being applied made a new revision already
	shown       string    // the request and tab on screen, as watch saw them
	settleUntil time.Time // answering actions are refused until then
}

// notTaken is the word for an action refused while the surface settles.
const notTaken = "Not taken: the question on screen just changed. Read it, then answer."

// changed notes that what is on screen changed by itself.
func (st *state) changed(why string) {
	if !st.bumped {
		st.rev++
	}
	st.why, st.bumped = why, true
}

// onScreen is what settling watches: the request on screen and its tab,
// "" when none can be answered (or the face shows none).
func (st *state) onScreen() string {
	if r := st.m.Focused(); r != nil && !r.Sending && !st.hidden {
		return fmt.Sprintf("%s\x00%d", r.P.RequestID, r.Tab)
	}
	return ""
}

// watch runs after every event: a request or tab on screen that changed by
// itself starts settling, and is a new revision.
func (st *state) watch() {
	defer func() { st.bumped = false }()
	what := st.onScreen()
	if what == st.shown {
		return
	}
	st.shown = what
	if !st.bumped {
		st.changed("the request on screen changed")
	}
	if what != "" && st.opt.InputGuard > 0 {
		st.settleUntil = st.opt.Now().Add(st.opt.InputGuard)
	}
}

// movedByUser notes that the user's own action changed what is on screen:
// it neither settles nor makes a new revision.
func (st *state) movedByUser() { st.shown = st.onScreen() }

// settling reports whether answering actions are refused for now.
func (st *state) settling() bool {
	return st.opt.InputGuard > 0 && st.opt.Now().Before(st.settleUntil)
}

// guarded reports whether a chooses, submits, declines or confirms here.
// Typing a filter is looking, not answering; Esc in a free-text question's
// input declines the request.
func (st *state) guarded(a Action) bool {
	switch {
	case a.Kind == Back:
		return st.mode == modeText && st.edit.q != nil && !st.edit.q.HasOptions()
	case st.mode == modeFilter && (a.Kind == Accept || a.Kind == Paste || a.Kind == Type):
		return false
	}
	return a.Kind.guarded()
}

// refusal is why a would not be taken now, nil when it would.
func (st *state) refusal(a Action) *Refusal {
	if !st.guarded(a) {
		return nil
	}
	r := st.m.Focused()
	ref := &Refusal{Option: -1, Element: "request", Question: -1}
	if r != nil {
		ref.Request, ref.Question = r.P.RequestID, r.Tab
	}
	switch {
	case a.Request != "" && (r == nil || a.Request != r.P.RequestID):
		ref.Reason = "stale"
		ref.Text = "Not taken: that request is no longer the one on screen. Read this one, then answer."
	case a.Rev != st.rev:
		ref.Reason = "stale"
		ref.Text = fmt.Sprintf("Not taken: the screen changed (%s) since you acted. Read it, then answer.", st.why)
	case st.settling():
		ref.Reason = "settling"
		ref.Text = notTaken
	default:
		return nil
	}
	return ref
}
