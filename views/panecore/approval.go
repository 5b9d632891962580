package panecore

import (
	"fmt"

	"askuser/socketproto/agenttext"
)

// Allow means seen (docs/contract.md §6): an option that approves its
// preview (a permission prompt's Allow approves the tool's whole input) is
// taken only once every line of that preview has been on screen, and its
// answer then names the preview by its digest. A face says what it showed
// (PreviewShown): lines of the preview as it wrapped them at some width.
// The reading is tracked in those lines at one width: a resize re-wraps the
// text, and the lines seen at the old width no longer say which characters
// were shown, so the reading starts over (the safe side of a rare event).
type approvalReading struct {
	read map[int]bool // options whose approved preview was seen to the end

	opt, width int // the preview being read, and the width it was wrapped at
	upto       int // lines 0..upto-1 of it have been on screen
	total      int // its lines at that width
}

// shown records that the lines [top, top+rows) of option opt's preview,
// total lines long wrapped at width, are on screen. Only reading on from
// what was seen counts: a jump past unseen lines does not.
func (a *approvalReading) shown(opt, width, top, rows, total int) {
	if a.read[opt] {
		return
	}
	if a.opt != opt || a.width != width {
		a.opt, a.width, a.upto = opt, width, 0
	}
	a.total = total
	if top <= a.upto {
		a.upto = max(a.upto, top+rows)
	}
	if a.upto >= total {
		if a.read == nil {
			a.read = map[int]bool{}
		}
		a.read[opt] = true
	}
}

// percent is how much of option opt's preview has been on screen.
func (a *approvalReading) percent(opt int) int {
	switch {
	case a.read[opt]:
		return 100
	case a.opt != opt || a.total <= 0:
		return 0
	}
	return min(99, a.upto*100/a.total)
}

// previewShown is the face's report after a draw (Core.PreviewShown).
func (st *state) previewShown(req string, q, opt, width, top, rows, total int) {
	r := st.m.Find(req)
	if r == nil || q < 0 || q >= len(r.Qs) {
		return
	}
	r.view = nil
	s := r.Qs[q]
	if opt < 0 || opt >= len(s.Q.Options) || !s.Q.Options[opt].ApprovesPreview {
		return
	}
	s.approvals.shown(opt, width, top, rows, total)
}

// unseenApproval reports whether option i approves a preview that has not
// all been on screen yet. It then focuses the option, so that its preview
// shows, and says what to do.
func (st *state) unseenApproval(r *Req, s *QState, i int) bool {
	ref := unreadRefusal(r, s, i)
	if ref == nil {
		return false
	}
	s.Cursor = i
	st.refuse(ref)
	return true
}

// unreadRefusal is why option i of s is not taken yet (it approves a
// preview not all on screen yet); nil when it would be.
func unreadRefusal(r *Req, s *QState, i int) *Refusal {
	if i < 0 || i >= len(s.Q.Options) || !s.Q.Options[i].ApprovesPreview || s.approvals.read[i] {
		return nil
	}
	return &Refusal{
		Text:   fmt.Sprintf("Not taken: %q approves everything in its preview. Read it to the end first, then choose it.", agenttext.Clean(s.Q.Options[i].Label, false)),
		Reason: "unread", Request: r.P.RequestID, Question: r.index(s), Option: i, Element: "option",
	}
}
