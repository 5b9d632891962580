package views

import "fmt"

// Allow means seen (docs/contract.md §6): an option that approves its preview (a
// permission prompt's Allow approves the tool's whole input) is taken only
// once every line of that preview has been on screen. The reading is
// tracked in the lines drawn at one width: a resize re-wraps the text, and
// the lines seen at the old width no longer say which characters were
// shown, so the reading starts over (the safe side of a rare event).
type approvalReading struct {
	read map[int]bool // options whose approved preview was seen to the end

	opt, width int // the preview being read, and the width it was wrapped at
	upto       int // lines 0..upto-1 of it have been on screen
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

// unseenApproval reports whether option i approves a preview that has not
// all been on screen yet. It then focuses the option, so that its preview
// shows, and says what to do.
func (p *Pane) unseenApproval(s *QState, i int) bool {
	if i < 0 || i >= len(s.Q.Options) || !s.Q.Options[i].ApprovesPreview || s.approvals.read[i] {
		return false
	}
	if s.Cursor != i {
		s.Cursor, s.PrevTop = i, 0
	}
	p.hint = fmt.Sprintf("Not taken: %q approves everything in its preview. Read it to the end first (} scrolls it), then choose it.",
		Clean(s.Q.Options[i].Label, false))
	return true
}
