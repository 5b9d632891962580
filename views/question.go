package views

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"

	"askuser/socketproto/previewform"
	"askuser/views/panecore"
)

// drawQuestion lays out one question: its text at the top, the options
// below (a window of at most six, scrolled to the focus), the preview beside
// or under the list, then the note and the text input. Whatever
// does not fit scrolls, with a marker saying so: nothing is cut off unseen.
func (p *Pane) drawQuestion(screen tcell.Screen, r *panecore.RequestView, s *panecore.QuestionView, x, y, w, bottom int) {
	if w < 1 {
		return
	}
	l := p.layout(r, r.Tab)
	in, dlg := p.V.Input, p.V.Dialog
	editing := in != nil && in.Request == r.ID && in.Question == r.Tab // the input stays in view under a prompt
	var noteLines []string
	if s.Notes != "" && !(editing && in.Kind == panecore.InputNote) {
		noteLines = wrap("Note: "+Clean(s.Notes, true), w)
		if len(noteLines) > 2 {
			noteLines = append(noteLines[:1], truncate(noteLines[1], w-1)+"…")
		}
	}
	ih := 0
	if editing {
		ih = p.inputHeight(w, bottom-y)
	}
	var long int // rows of "Answer is long … [Y/n]", asked under the input
	if editing && dlg != nil && dlg.Kind == panecore.DialogLong {
		long = len(wrap(p.prompt(), max(1, w-1)))
		ih += long
	}
	// A typed answer is checked as it is typed: what breaks the rule shows
	// under the input, and Enter is refused until it passes.
	var problem []string
	if editing && dlg == nil && in.Kind == panecore.InputAnswer {
		if msg := in.ProblemText; msg != "" {
			problem = wrap("✗ "+Clean(msg, false), max(1, w))
			problem = problem[:min(len(problem), 2)]
			ih += len(problem)
		}
	}
	// What goes under the question (free text) or the list: the note, then
	// the input. Room for them is kept at the bottom; they are drawn right
	// under what is above them.
	reserve := len(noteLines) + ih
	if reserve > 0 && bottom-y-reserve > 3 {
		reserve++ // a blank line before them
	}
	if bottom-y-reserve < 1 {
		noteLines, reserve = nil, ih // too small: the input matters most
	}
	if bottom-y-reserve < 1 {
		reserve = 0
		editing = false
	}
	full := bottom
	below := func(row int) {
		if reserve > len(noteLines)+ih {
			row++ // the blank line
		}
		row = min(row, full-len(noteLines)-ih)
		for _, l := range noteLines {
			put(screen, x, row, w, seg{l, styleNote})
			row++
		}
		if editing {
			p.drawInput(screen, x, row, w, ih-long-len(problem))
			for i, l := range problem {
				put(screen, x, row+ih-long-len(problem)+i, w, seg{l, styleStrong})
			}
			if long > 0 {
				p.drawPrompt(screen, x-1, row+ih-long, w+1, full)
				p.longAsked = true
			}
		}
	}
	bottom -= reserve
	var q []seg
	if len(r.Questions) == 1 && s.Header != "" {
		for _, line := range wrap(Clean(s.Header, false), w) {
			q = append(q, seg{line, styleStrong})
		}
	}
	for _, line := range wrap(Clean(s.Question, true), w) {
		q = append(q, seg{line, styleStrong})
	}
	// A typed question says what its answer must be, under the question.
	if rule := s.Rule; rule != "" {
		for _, line := range wrap("Answer: "+Clean(rule, false), w) {
			q = append(q, seg{line, styleQuiet})
		}
	}
	H := bottom - y
	if len(s.Options) == 0 {
		p.qOverflow = max(0, len(q)-H)
		p.scrollable = p.qOverflow > 0
		end := p.drawScrolled(screen, q, &l.scroll, x, y, w, bottom)
		below(end)
		return
	}

	// How much room the list wants: its first window, or half the space.
	pv := p.previewOf(s)
	listW := w
	wide := pv != "" && w >= widePreview
	drawn := pv != "" && len(s.Options[s.Cursor].PreviewLines) > 0
	if drawn {
		wide = w >= wideFile
	}
	switch {
	case wide && drawn:
		listW = w * 2 / 5 // code wants the width more than the list does
	case wide:
		listW = w * 11 / 20
	}
	items := s.Items
	blocks := make([][]seg, len(items))
	need := 0
	for k, it := range items {
		blocks[k] = p.itemBlock(s, it, listW)
		if k < maxListItems {
			need += len(blocks[k])
		}
	}
	if len(items) > maxListItems {
		need++
	}
	minList := min(need, max(3, H/2))
	if pv != "" && !wide {
		// The list's focused option with a line of its description and
		// "↓ N more…" (3), and the preview's title and a line of it (2).
		minList = min(need+4, max(5, H*2/3))
	}
	noMatch := s.Filter != "" && len(items) == 1 && len(s.Options) > 0
	if noMatch {
		minList++
	}

	// The question: whole if it fits, else a scrolled window with a status line.
	qRows := len(q)
	p.qOverflow = 0
	if qRows+1+minList > H {
		qRows = max(1, H-minList-1)
		if qRows >= 2 {
			p.qOverflow = len(q) - (qRows - 1)
		} else {
			p.qOverflow = len(q) - 1
		}
		if p.qOverflow < 0 {
			p.qOverflow, qRows = 0, len(q)
		}
	}
	qOff := min(l.scroll, p.qOverflow)
	p.page = max(1, qRows-1)
	if p.qOverflow > 0 && qRows >= 2 {
		for i := 0; i < qRows-1; i++ {
			put(screen, x, y+i, w, q[qOff+i])
		}
		put(screen, x, y+qRows-1, w, seg{fmt.Sprintf("↕ lines %d–%d of %d, PgUp/PgDn", qOff+1, qOff+qRows-1, len(q)), styleQuiet})
	} else if p.qOverflow > 0 {
		// One row: no room for the status line, so the row itself says
		// that there is more.
		put(screen, x, y, w, seg{truncate(q[qOff].text, w-2), q[qOff].style}, seg{" ↕", styleQuiet})
	} else {
		for i := 0; i < qRows && qOff+i < len(q); i++ {
			put(screen, x, y+i, w, q[qOff+i])
		}
	}
	ly := y + qRows
	if bottom-ly-1 > minList {
		ly++ // a blank line between question and options
	}
	if noMatch {
		// Said, not left blank: the filter hides every option.
		put(screen, x, ly, w, seg{truncate("no option matches “"+Clean(s.Filter, false)+"” (Esc clears the filter)", w), styleQuiet})
		ly++
	}
	descOff := max(0, l.scroll-p.qOverflow)

	// The preview: beside a wide list, else under it.
	listBottom, pvEnd := bottom, 0
	if pv != "" {
		pvLines := previewRows(s.Options[s.Cursor], max(1, w-2))
		if wide {
			pvEnd = p.drawPreview(screen, r, s, l, pv, x+listW+2, ly, w-listW-2, bottom)
		} else {
			// The list keeps room for the focused option and its neighbours;
			// the preview gets its title and at least one line.
			ph := min(len(pvLines)+1, max(3, (bottom-ly)/2))
			if bottom-ly < 10 {
				ph = min(len(pvLines)+1, max(2, (bottom-ly)/3+1))
			}
			if len(s.Options[s.Cursor].PreviewLines) > 0 {
				// A file or a diff to read to the end: the rows the list
				// does not need are the preview's.
				ph = min(len(pvLines)+1, max(ph, bottom-ly-need))
			}
			ph = max(min(ph, bottom-ly-3), min(2, bottom-ly))
			listBottom = bottom - ph
			pvEnd = p.drawPreview(screen, r, s, l, pv, x, listBottom, w, bottom)
		}
	}
	listEnd, descMax := p.drawList(screen, s, l, items, blocks, descOff, x, ly, listW, listBottom)
	l.scroll = min(l.scroll, p.qOverflow+descMax)
	p.scrollable = p.qOverflow+descMax > 0
	below(max(listEnd, pvEnd))
}

// previewOf is the focused option's preview text (clean), "" when none.
func (p *Pane) previewOf(s *panecore.QuestionView) string {
	if s.Multi || s.Cursor < 0 || s.Cursor >= len(s.Options) {
		return ""
	}
	return Clean(s.Options[s.Cursor].Preview, true)
}

// previewRows is option o's preview as the rows of a panel w cells wide:
// drawn in its form when the view has it so (a gutter of line numbers and
// the diff's mark, the text wrapped beside it), else its text wrapped.
// "Allow means seen" counts these rows.
func previewRows(o panecore.OptionView, w int) [][]seg {
	if len(o.PreviewLines) == 0 {
		lines := wrap(Clean(o.Preview, true), w)
		rows := make([][]seg, len(lines))
		for i, l := range lines {
			rows[i] = []seg{{l, stylePlain}}
		}
		return rows
	}
	digits, diff := previewform.Digits(o.PreviewLines)
	var rows [][]seg
	for _, l := range o.PreviewLines {
		g := previewform.Gutter(l, digits, diff)
		if width(g) > w/2 {
			g = "" // a pane too narrow for numbers keeps the text
		}
		st, gst := previewStyle(l.Kind)
		for k, part := range wrap(Clean(l.Text, false), max(1, w-width(g))) {
			if k > 0 {
				g = strings.Repeat(" ", width(g))
			}
			rows = append(rows, []seg{{g, gst}, {part, st}})
		}
	}
	return rows
}

// previewStyle is how a drawn line shows: its text, and its gutter.
func previewStyle(k previewform.Kind) (text, gutter tcell.Style) {
	switch k {
	case previewform.Head:
		return styleStrong, styleQuiet
	case previewform.Hunk, previewform.Note:
		return styleQuiet, styleQuiet
	case previewform.Del:
		return styleDel, styleDel
	case previewform.Add:
		return styleAdd, styleAdd
	}
	return stylePlain, styleQuiet
}

// itemBlock is an option's lines: the numbered label, then its description.
func (p *Pane) itemBlock(s *panecore.QuestionView, it, w int) []seg {
	focused := it == s.Cursor
	marker := "  "
	if focused {
		marker = "> "
	}
	box := ""
	if s.Multi {
		box = "[ ] "
		if s.Checked[it] {
			box = "[x] "
		}
	}
	label, desc := "", ""
	if it == len(s.Options) {
		label = "Other (type your answer)"
		if s.Custom != "" {
			label = "Other: " + Clean(s.Custom, false)
		}
	} else {
		label = Clean(s.Options[it].Label, false)
		desc = Clean(s.Options[it].Description, true)
	}
	if !s.Multi && s.Choice == it && s.Answered {
		label += " ✓"
	}
	head := marker + box + fmt.Sprintf("%d. ", it+1)
	indent := width(head)
	style := stylePlain
	if focused {
		style = styleFocus
	}
	var out []seg
	for i, l := range wrap(label, max(1, w-indent)) {
		if i == 0 {
			out = append(out, seg{head + l, style})
		} else {
			out = append(out, seg{strings.Repeat(" ", indent) + l, style})
		}
	}
	if desc != "" {
		for _, l := range wrap(desc, max(1, w-indent)) {
			out = append(out, seg{strings.Repeat(" ", indent) + l, styleQuiet})
		}
	}
	return out
}

// drawList draws the window of options that contains the focus, with
// "↑ N more…" / "↓ N more…" for what is outside it.
func (p *Pane) drawList(screen tcell.Screen, s *panecore.QuestionView, l *qLayout, items []int, blocks [][]seg, descOff, x, y, w, bottom int) (end, descMax int) {
	H := bottom - y
	if H <= 0 {
		return y, 0
	}
	n := len(items)
	ci := max(indexOf(items, s.Cursor), 0)
	fit := func(top int) int {
		avail := H
		if top > 0 {
			avail--
		}
		end, used := top, 0
		for end < n {
			rest := 0
			if end+1 < n {
				rest = 1
			}
			if used+len(blocks[end])+rest > avail {
				break
			}
			used += len(blocks[end])
			end++
		}
		if end == top && top < n {
			end = top + 1 // an item taller than the space: shown in part
		}
		return end
	}
	l.winTop = min(max(l.winTop, 0), ci)
	for ci >= fit(l.winTop) {
		l.winTop++
	}
	// With more room than when the window was placed (a taller terminal),
	// start it earlier while that shows more: else "↑ N more…" would hide
	// options that now fit.
	for l.winTop > 0 && ci < fit(l.winTop-1) && fit(l.winTop-1)-(l.winTop-1) > fit(l.winTop)-l.winTop {
		l.winTop--
	}
	last := fit(l.winTop)
	row := y
	if l.winTop > 0 {
		put(screen, x, row, w, seg{fmt.Sprintf("  ↑ %d more…", l.winTop), styleQuiet})
		row++
	}
	stop := bottom
	if last < n {
		stop--
	}
	for k := l.winTop; k < last && row < stop; k++ {
		lines := blocks[k]
		if len(lines) > stop-row { // only the focused item can be this tall
			room := stop - row
			switch {
			case room >= 2:
				descMax = len(lines) - (room - 1)
				off := min(descOff, descMax)
				lines = append(append([]seg{}, lines[0]), lines[1+off:]...)
				lines = lines[:room-1]
				lines = append(lines, seg{"     ↕ more of this option (PgUp/PgDn)", styleQuiet})
			case room == 1:
				// No row for the marker: the label's own row says it.
				l := lines[0]
				lines = []seg{{truncate(l.text, w-2), l.style}, {" ↕", styleQuiet}}
				put(screen, x, row, w, lines...)
				row++
				continue
			}
		}
		for _, l := range lines {
			if row >= stop {
				break
			}
			put(screen, x, row, w, l)
			row++
		}
	}
	if last < n {
		put(screen, x, row, w, seg{fmt.Sprintf("  ↓ %d more…", n-last), styleQuiet})
		row++
	}
	return row, descMax
}

// drawPreview draws the focused option's preview in a framed panel. When it
// does not fit, its title line says which lines show: a line of its own
// would take the one row a short terminal has for the preview itself.
func (p *Pane) drawPreview(screen tcell.Screen, r *panecore.RequestView, s *panecore.QuestionView, l *qLayout, pv string, x, y, w, bottom int) (end int) {
	if w < 3 || bottom-y < 2 {
		return y
	}
	lines := previewRows(s.Options[s.Cursor], w)
	h := bottom - y - 1
	title := "─ Preview "
	if len(lines) > h {
		p.previewOverflow = true
		l.prevTop = min(l.prevTop, len(lines)-h)
		title = fmt.Sprintf("─ Preview %d–%d of %d ({ }) ", l.prevTop+1, l.prevTop+h, len(lines))
	} else {
		l.prevTop = 0
	}
	put(screen, x, y, w, seg{truncate(title+strings.Repeat("─", max(0, w-width(title))), w), styleQuiet})
	end = y + 1
	for i := 0; i < h && l.prevTop+i < len(lines); i++ {
		put(screen, x, y+1+i, w, lines[l.prevTop+i]...)
		end++
	}
	p.previewRows = h
	if s.Options[s.Cursor].ApprovesPreview {
		p.reading = &reading{req: r.ID, q: r.Tab, opt: s.Cursor, width: w, top: l.prevTop, rows: h, total: len(lines)}
	}
	return end
}

// inputHeight is the rows the text input gets: its wrapped text, at most a
// third of the space (it scrolls inside beyond that).
func (p *Pane) inputHeight(w, space int) int {
	lines := len(wrap(p.input.GetText(), max(1, w-p.inputLabelWidth()-1)))
	return min(max(lines, 1), max(1, space/3))
}

func (p *Pane) inputLabelWidth() int {
	if in := p.V.Input; in != nil && in.Kind == panecore.InputNote {
		return width("Note: ")
	}
	return 2
}

// drawInput draws the text input (answer, note or filter) ih rows tall at row y.
func (p *Pane) drawInput(screen tcell.Screen, x, y, w, ih int) {
	label := "> "
	switch p.V.Input.Kind {
	case panecore.InputNote:
		label = "Note: "
	case panecore.InputFilter:
		label = "/ "
	}
	lw := width(label)
	put(screen, x, y, w, seg{label, styleStrong})
	if ix, iy, iw, ih0 := p.input.GetRect(); ix != x+lw || iy != y || iw != max(1, w-lw) || ih0 != ih {
		// The input moved or changed size (a resize, or a paste that made it
		// taller). An offset kept from the old size could hide text that now
		// fits, or the cursor: show the rows that end at the cursor. A new
		// width re-wraps the text, and the text area then finds the cursor
		// itself from offset 0.
		p.input.SetRect(x+lw, y, max(1, w-lw), ih)
		_, _, row, _ := p.input.GetCursor()
		if iw != max(1, w-lw) || row < 0 {
			row = 0
		}
		p.input.SetOffset(max(0, row-ih+1), 0)
	}
	p.input.Draw(screen)
}

func indexOf(xs []int, v int) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return -1
}
