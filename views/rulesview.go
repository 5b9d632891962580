package views

import (
	"fmt"
	"strings"

	"askuser/views/panecore"
)

// The Rules view (docs/contract.md §13): the remembered decisions, as the
// core's view has them (already clean), one after another with who made
// each, when and where, how often it answered and when last; x revokes the
// one under the cursor. The cursor is the pane's own layout.

// layOutRules lays out the Rules view, and returns the cursor kept on a
// rule.
func (p *Pane) layOutRules(cv *canvas, x, y, w, bottom int) (cursor int) {
	v := p.V.Rules
	cursor = p.at.rule
	for _, l := range wrap("Rules: prompts they cover are allowed without asking", max(1, w)) {
		cv.put(x, y, w, seg{l, styleStrong})
		y++
	}
	if !v.Loaded {
		cv.put(x, y, w, seg{"Loading…", styleQuiet})
		return cursor
	}
	if v.Problem != "" {
		for _, l := range wrapAtMost("⚠ "+v.Problem, max(1, w), 3) {
			cv.put(x, y, w, seg{l, styleStrong})
			y++
		}
	}
	if len(v.Rules) == 0 {
		y++
		for _, l := range wrap("No rules. Choose “Allow, and remember” on a permission prompt to make one.", max(1, w)) {
			if y >= bottom {
				break
			}
			cv.put(x, y, w, seg{l, stylePlain})
			y++
		}
		return cursor
	}
	cursor = min(max(cursor, 0), len(v.Rules)-1)
	y++
	for i, r := range v.Rules {
		if y >= bottom {
			cv.put(x, bottom-1, w, seg{fmt.Sprintf("↓ %d more…", len(v.Rules)-i), styleQuiet})
			return cursor
		}
		style := stylePlain
		if i == cursor {
			style = styleFocus
		}
		// A hanging indent: the sentence and its details wrap under the
		// sentence's first word, the id alone in its column.
		id := fmt.Sprintf("%d  ", r.ID)
		indent := width(id)
		for j, l := range wrapAtMost(r.Sentence, max(1, w-indent), 6) {
			if y >= bottom {
				break
			}
			lead := strings.Repeat(" ", indent)
			if j == 0 {
				lead = id
			} else {
				style = stylePlain
			}
			cv.put(x, y, w, seg{lead + l, style})
			y++
		}
		for _, l := range wrapAtMost(r.Details, max(1, w-indent), 3) {
			if y >= bottom {
				break
			}
			cv.put(x+indent, y, w-indent, seg{l, styleQuiet})
			y++
		}
	}
	return cursor
}

// revokeAtCursor revokes the rule under the cursor.
func (p *Pane) revokeAtCursor() {
	if v := p.V.Rules; v != nil && p.at.rule < len(v.Rules) {
		p.act(panecore.Action{Kind: panecore.RevokeRule, Item: v.Rules[p.at.rule].ID})
	}
}

func rulesListed(p *Pane, _ keyCtx) bool { return p.V.Rules != nil && len(p.V.Rules.Rules) > 0 }
