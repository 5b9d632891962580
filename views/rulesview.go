package views

import (
	"fmt"

	"github.com/gdamore/tcell/v2"

	"askuser/views/panecore"
)

// The Rules view (docs/contract.md §13): the remembered decisions, as the
// core's view has them (already clean), one after another with who made
// each, when and where, how often it answered and when last; x revokes the
// one under the cursor. The cursor is the pane's own layout.

func (p *Pane) drawRules(screen tcell.Screen, x, y, w, bottom int) {
	v := p.V.Rules
	put(screen, x, y, w, seg{"Rules: prompts they cover are allowed without asking", styleStrong})
	y++
	if !v.Loaded {
		put(screen, x, y, w, seg{"Loading…", styleQuiet})
		return
	}
	if v.Problem != "" {
		for _, l := range wrapAtMost("⚠ "+v.Problem, max(1, w), 3) {
			put(screen, x, y, w, seg{l, styleStrong})
			y++
		}
	}
	if len(v.Rules) == 0 {
		put(screen, x, y+1, w, seg{"No rules. Choose “Allow, and remember” on a permission prompt to make one.", stylePlain})
		return
	}
	p.ruleCursor = min(max(p.ruleCursor, 0), len(v.Rules)-1)
	y++
	for i, r := range v.Rules {
		if y >= bottom {
			put(screen, x, bottom-1, w, seg{fmt.Sprintf("↓ %d more…", len(v.Rules)-i), styleQuiet})
			return
		}
		style := stylePlain
		if i == p.ruleCursor {
			style = styleFocus
		}
		for j, l := range wrapAtMost(fmt.Sprintf("%d  %s", r.ID, r.Sentence), max(1, w), 3) {
			if y >= bottom {
				break
			}
			if j > 0 {
				style = stylePlain
			}
			put(screen, x, y, w, seg{l, style})
			y++
		}
		if y < bottom {
			put(screen, x+3, y, w-3, seg{r.Details, styleQuiet})
			y++
		}
	}
}

// revokeAtCursor revokes the rule under the cursor.
func (p *Pane) revokeAtCursor() {
	if v := p.V.Rules; v != nil && p.ruleCursor < len(v.Rules) {
		p.act(panecore.Action{Kind: panecore.RevokeRule, Item: v.Rules[p.ruleCursor].ID})
	}
}

func rulesListed(p *Pane, _ keyCtx) bool { return p.V.Rules != nil && len(p.V.Rules.Rules) > 0 }
