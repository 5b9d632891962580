package views

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"

	"askuser/socketproto/previewform"
	"askuser/views/panecore"
)

// layOutQuestion lays out one question: its text at the top, the options
// below (a window of at most six, scrolled to the focus), the preview beside
// or under the list, then the note and the text input. Whatever does not
// fit scrolls, with a marker saying so: nothing is cut off unseen. It
// reports whether "Answer is long" went under the input.
func (p *Pane) layOutQuestion(f *frame, r *panecore.RequestView, s *panecore.QuestionView, x, y, w, bottom int) (longAsked bool) {
	placed := &placedQuestion{key: layKey{r.ID, r.Tab}, pos: p.positions(r, r.Tab)}
	f.question = placed
	pos := &placed.pos
	if w < 1 {
		return false
	}
	u := p.planUnder(r, s, w, bottom-y)
	full := bottom
	bottom -= u.reserve
	q := questionLines(r, s, w)
	H := bottom - y
	if len(s.Options) == 0 {
		f.found.qOverflow = max(0, len(q)-H)
		f.found.scrollable = f.found.qOverflow > 0
		var end int
		pos.scroll, end = f.layOutScrolled(q, pos.scroll, x, y, w, bottom)
		return p.layOutUnder(f, u, x, end, w, full)
	}

	pv := p.previewOf(s)
	list := p.planList(s, pv, w, H)
	text := windowQuestion(q, pos.scroll, H, list.min)
	f.found.qOverflow = text.overflow
	f.found.page = max(1, text.rows-1)
	text.layOut(&f.cells, x, y, w)
	ly := y + text.rows
	if bottom-ly-1 > list.min {
		ly++ // a blank line between question and options
	}
	if list.noMatch {
		// Said, not left blank: the filter hides every option.
		f.cells.put(x, ly, w, seg{truncate("no option matches “"+Clean(s.Filter, false)+"” (Esc clears the filter)", w), styleQuiet})
		ly++
	}
	descOff := max(0, pos.scroll-text.overflow)

	// The preview: beside a wide list, else under it.
	listBottom, pvEnd := bottom, 0
	switch {
	case pv != "" && list.wide:
		pvEnd = p.layOutPreview(f, r, s, pos, x+list.w+2, ly, w-list.w-2, bottom)
	case pv != "":
		listBottom = bottom - previewHeight(s.Options[s.Cursor], list.need, w, bottom-ly)
		pvEnd = p.layOutPreview(f, r, s, pos, x, listBottom, w, bottom)
	}
	listEnd, descMax := f.layOutList(s, pos, list, descOff, x, ly, listBottom)
	pos.scroll = min(pos.scroll, text.overflow+descMax)
	f.found.scrollable = text.overflow+descMax > 0
	return p.layOutUnder(f, u, x, max(listEnd, pvEnd), w, full)
}

// questionLines is the question's text as lines w cells wide: its header
// when it is the request's only question, the question, and what a typed
// answer must be.
func questionLines(r *panecore.RequestView, s *panecore.QuestionView, w int) []seg {
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
	return q
}

// under is what goes under the question (free text) or its list: the
// note, then the text input, the problem with what is typed and "Answer is
// long … [Y/n]" under it. Room for them is kept at the bottom; they go
// right under what is above them.
type under struct {
	note      []string
	editing   bool     // the text input is on screen
	inputRows int      // the text input's own rows
	problem   []string // a typed answer is checked as it is typed
	long      int      // the rows of "Answer is long … [Y/n]"
	reserve   int      // the rows kept at the bottom, a blank line included
}

// height is the rows of the input and what goes under it.
func (u under) height() int { return u.inputRows + len(u.problem) + u.long }

// planUnder works out what goes under question s of r, and the rows it
// keeps out of space.
func (p *Pane) planUnder(r *panecore.RequestView, s *panecore.QuestionView, w, space int) under {
	var u under
	in := p.V.Input
	u.editing = in != nil && in.Request == r.ID && in.Question == r.Tab // the input stays in view under a prompt
	if s.Notes != "" && !(u.editing && in.Kind == panecore.InputNote) {
		u.note = noteLines(s.Notes, w)
	}
	if u.editing {
		u.inputRows, u.problem, u.long = p.planInput(w, space)
	}
	u.reserve = len(u.note) + u.height()
	if u.reserve > 0 && space-u.reserve > 3 {
		u.reserve++ // a blank line before them
	}
	if space-u.reserve < 1 {
		u.note, u.reserve = nil, u.height() // too small: the input matters most
	}
	if space-u.reserve < 1 {
		u.reserve = 0
		u.editing = false
	}
	return u
}

// planInput is the rows of the open text input w cells wide out of space,
// and what goes under it: the problem with what is typed, the rows of
// "Answer is long … [Y/n]".
func (p *Pane) planInput(w, space int) (rows int, problem []string, long int) {
	in, dlg := p.V.Input, p.V.Dialog
	if dlg != nil && dlg.Kind == panecore.DialogLong {
		long = len(wrap(p.prompt(), max(1, w-1)))
	}
	// What breaks the typed answer's rule shows under the input, and Enter
	// is refused until it passes.
	if msg := in.ProblemText; dlg == nil && in.Kind == panecore.InputAnswer && msg != "" {
		problem = wrap("✗ "+Clean(msg, false), max(1, w))
		problem = problem[:min(len(problem), 2)]
	}
	return p.inputHeight(w, space), problem, long
}

// noteLines is a note under the question, in at most two lines w cells
// wide.
func noteLines(note string, w int) []string {
	lines := wrap("Note: "+Clean(note, true), w)
	if len(lines) > 2 {
		lines = append(lines[:1], truncate(lines[1], w-1)+"…")
	}
	return lines
}

// layOutUnder lays out u from row (the row under what is above it), within
// the question's bottom, full. It reports whether "Answer is long" went
// under the input.
func (p *Pane) layOutUnder(f *frame, u under, x, row, w, full int) (longAsked bool) {
	if u.reserve > len(u.note)+u.height() {
		row++ // the blank line
	}
	row = min(row, full-len(u.note)-u.height())
	for _, l := range u.note {
		f.cells.put(x, row, w, seg{l, styleNote})
		row++
	}
	if !u.editing {
		return false
	}
	f.input = &inputPlace{label: p.inputLabel(), x: x, y: row, w: w, h: u.inputRows}
	row += u.inputRows
	for _, l := range u.problem {
		f.cells.put(x, row, w, seg{l, styleStrong})
		row++
	}
	if u.long == 0 {
		return false
	}
	p.layOutPrompt(&f.cells, x-1, row, w+1, full)
	return true
}

// listPlan is how an options list is laid out at a width: its items and
// their lines, and the room it asks for.
type listPlan struct {
	items   []int   // the options the filter keeps, and Other
	blocks  [][]seg // each item's lines
	w       int     // the list's width
	wide    bool    // the preview goes beside the list
	need    int     // the rows of its first window
	min     int     // the rows it keeps whatever the question's length
	noMatch bool    // the filter keeps no option: a line says so
}

// planList plans question s's list in w cells and H rows, with the
// focused option's preview pv ("" for none).
func (p *Pane) planList(s *panecore.QuestionView, pv string, w, H int) listPlan {
	l := listPlan{items: s.Items, w: w}
	l.wide = pv != "" && w >= widePreview
	drawn := pv != "" && len(s.Options[s.Cursor].PreviewLines) > 0
	if drawn {
		l.wide = w >= wideFile
	}
	switch {
	case l.wide && drawn:
		l.w = w * 2 / 5 // code wants the width more than the list does
	case l.wide:
		l.w = w * 11 / 20
	}
	// How much room the list wants: its first window, or half the space.
	l.blocks = make([][]seg, len(l.items))
	for k, it := range l.items {
		l.blocks[k] = p.itemBlock(s, it, l.w)
		if k < maxListItems {
			l.need += len(l.blocks[k])
		}
	}
	if len(l.items) > maxListItems {
		l.need++
	}
	l.min = min(l.need, max(3, H/2))
	if pv != "" && !l.wide {
		// The list's focused option with a line of its description and
		// "↓ N more…" (3), and the preview's title and a line of it (2).
		l.min = min(l.need+4, max(5, H*2/3))
	}
	l.noMatch = s.Filter != "" && len(l.items) == 1 && len(s.Options) > 0
	if l.noMatch {
		l.min++
	}
	return l
}

// questionWindow is what shows of the question's lines above a list.
type questionWindow struct {
	lines    []seg
	rows     int // the rows it takes, a status line included
	off      int // its first line shown
	overflow int // lines that do not fit
}

// windowQuestion shows the question whole if it fits in H rows beside a
// list that keeps minList, else a window of it, scrolled by scroll, with a
// status line.
func windowQuestion(q []seg, scroll, H, minList int) questionWindow {
	t := questionWindow{lines: q, rows: len(q)}
	if t.rows+1+minList > H {
		t.rows = max(1, H-minList-1)
		if t.rows >= 2 {
			t.overflow = len(q) - (t.rows - 1)
		} else {
			t.overflow = len(q) - 1
		}
		if t.overflow < 0 {
			t.overflow, t.rows = 0, len(q)
		}
	}
	t.off = min(scroll, t.overflow)
	return t
}

func (t questionWindow) layOut(cv *canvas, x, y, w int) {
	q := t.lines
	switch {
	case t.overflow > 0 && t.rows >= 2:
		for i := 0; i < t.rows-1; i++ {
			cv.put(x, y+i, w, q[t.off+i])
		}
		cv.put(x, y+t.rows-1, w, seg{fmt.Sprintf("↕ lines %d–%d of %d, PgUp/PgDn", t.off+1, t.off+t.rows-1, len(q)), styleQuiet})
	case t.overflow > 0:
		// One row: no room for the status line, so the row itself says
		// that there is more.
		cv.put(x, y, w, seg{truncate(q[t.off].text, w-2), q[t.off].style}, seg{" ↕", styleQuiet})
	default:
		for i := 0; i < t.rows && t.off+i < len(q); i++ {
			cv.put(x, y+i, w, q[t.off+i])
		}
	}
}

// previewHeight is the rows a preview under the list gets, its title
// included, out of space: the list keeps room for the focused option and
// its neighbours (need rows for its first window); the preview gets its
// title and at least one line.
func previewHeight(o panecore.OptionView, need, w, space int) int {
	lines := len(previewRows(o, max(1, w-2)))
	ph := min(lines+1, max(3, space/2))
	if space < 10 {
		ph = min(lines+1, max(2, space/3+1))
	}
	if len(o.PreviewLines) > 0 {
		// A file or a diff to read to the end: the rows the list does not
		// need are the preview's.
		ph = min(lines+1, max(ph, space-need))
	}
	return max(min(ph, space-3), min(2, space))
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

// layOutList lays out the window of list's options that contains the
// focus, from row y to bottom, with "↑ N more…" / "↓ N more…" for what is
// outside it; the window's top is kept in pos. The focused option, when
// taller than the room, shows its lines from descOff. It returns the row
// under the list, and how many of the focused option's lines do not fit.
func (f *frame) layOutList(s *panecore.QuestionView, pos *qLayout, list listPlan, descOff, x, y, bottom int) (end, descMax int) {
	H := bottom - y
	if H <= 0 {
		return y, 0
	}
	w, blocks, n := list.w, list.blocks, len(list.items)
	ci := max(indexOf(list.items, s.Cursor), 0)
	pos.winTop = listTop(blocks, ci, pos.winTop, H)
	last := listFit(blocks, pos.winTop, H)
	row := y
	if pos.winTop > 0 {
		f.cells.put(x, row, w, seg{fmt.Sprintf("  ↑ %d more…", pos.winTop), styleQuiet})
		row++
	}
	stop := bottom
	if last < n {
		stop--
	}
	for k := pos.winTop; k < last && row < stop; k++ {
		rows := oneSegEach(blocks[k])
		if len(blocks[k]) > stop-row { // only the focused item can be this tall
			rows, descMax = cutItem(blocks[k], descOff, stop-row, w)
		}
		for _, l := range rows {
			if row >= stop {
				break
			}
			f.cells.put(x, row, w, l...)
			row++
		}
	}
	if last < n {
		f.cells.put(x, row, w, seg{fmt.Sprintf("  ↓ %d more…", n-last), styleQuiet})
		row++
	}
	return row, descMax
}

// listFit is the end of the window of items that starts at top in H rows:
// "↑ N more…" takes a row when top > 0, "↓ N more…" one when items are left
// below.
func listFit(blocks [][]seg, top, H int) int {
	n := len(blocks)
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

// listTop is the first item of the window that shows item ci in H rows,
// moved as little as it can from top.
func listTop(blocks [][]seg, ci, top, H int) int {
	top = min(max(top, 0), ci)
	for ci >= listFit(blocks, top, H) {
		top++
	}
	// With more room than when the window was placed (a taller terminal),
	// start it earlier while that shows more: else "↑ N more…" would hide
	// options that now fit.
	for top > 0 && ci < listFit(blocks, top-1, H) && listFit(blocks, top-1, H)-(top-1) > listFit(blocks, top, H)-top {
		top--
	}
	return top
}

// cutItem fits an item's lines into room rows w cells wide, its label
// kept and its description shown from descOff, as rows of segments. It
// returns them, and how many of its lines do not fit.
func cutItem(lines []seg, descOff, room, w int) (rows [][]seg, descMax int) {
	switch {
	case room >= 2:
		descMax = len(lines) - (room - 1)
		off := min(descOff, descMax)
		lines = append(append([]seg{}, lines[0]), lines[1+off:]...)
		lines = append(lines[:room-1], seg{"     ↕ more of this option (PgUp/PgDn)", styleQuiet})
	case room == 1:
		// No row for the marker: the label's own row says it.
		return [][]seg{{{truncate(lines[0].text, w-2), lines[0].style}, {" ↕", styleQuiet}}}, 0
	}
	return oneSegEach(lines), descMax
}

// oneSegEach is lines as rows of one segment each.
func oneSegEach(lines []seg) [][]seg {
	rows := make([][]seg, len(lines))
	for i, l := range lines {
		rows[i] = []seg{l}
	}
	return rows
}

// layOutPreview lays out the focused option's preview in a framed panel.
// When it does not fit, its title line says which lines show: a line of
// its own would take the one row a short terminal has for the preview
// itself. The preview's first line shown is kept in pos; what shows of a
// preview its option approves is the frame's reading.
func (p *Pane) layOutPreview(f *frame, r *panecore.RequestView, s *panecore.QuestionView, pos *qLayout, x, y, w, bottom int) (end int) {
	if w < 3 || bottom-y < 2 {
		return y
	}
	lines := previewRows(s.Options[s.Cursor], w)
	h := bottom - y - 1
	title := "─ Preview "
	if len(lines) > h {
		f.found.previewOverflow = true
		pos.prevTop = min(pos.prevTop, len(lines)-h)
		title = fmt.Sprintf("─ Preview %d–%d of %d ({ }) ", pos.prevTop+1, pos.prevTop+h, len(lines))
	} else {
		pos.prevTop = 0
	}
	f.cells.put(x, y, w, seg{truncate(title+strings.Repeat("─", max(0, w-width(title))), w), styleQuiet})
	end = y + 1
	for i := 0; i < h && pos.prevTop+i < len(lines); i++ {
		f.cells.put(x, y+1+i, w, lines[pos.prevTop+i]...)
		end++
	}
	f.found.previewRows = h
	if s.Options[s.Cursor].ApprovesPreview {
		f.reading = &reading{req: r.ID, q: r.Tab, opt: s.Cursor, width: w, top: pos.prevTop, rows: h, total: len(lines)}
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

// inputLabel is the text input's label: what it is for.
func (p *Pane) inputLabel() string {
	switch p.V.Input.Kind {
	case panecore.InputNote:
		return "Note: "
	case panecore.InputFilter:
		return "/ "
	}
	return "> "
}

func indexOf(xs []int, v int) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return -1
}
