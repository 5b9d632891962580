package views

import (
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"

	"askuser/views/panecore"
)

const (
	maxListItems = 6  // options the list keeps room for before the question above it is cut; more show when they fit
	widePreview  = 70 // from this width the preview sits beside the list
	// wideFile is widePreview for a preview drawn as a file or a diff: code
	// wants the width, and beside the list at 80 columns a line of it
	// would wrap into two or three.
	wideFile = 120
	// The smallest terminal the pane draws a question on (docs/contract.md §6 "Small
	// terminals"): below it, "terminal too small" rather than a question
	// cut so short that a key could answer what is not on screen.
	minWidth, minHeight = 40, 12
)

// MinWidth is the fewest columns the pane draws a question in: `askuserd
// --split` gives its new pane at least these.
const MinWidth = minWidth

// layOut works out the frame a draw at x, y, w×h shows; the pane is left
// as it was (see frame.go).
func (p *Pane) layOut(x, y, w, h int) *frame {
	f := &frame{x: x, y: y, w: w, h: h, found: p.found, hintRow: -1,
		submitScroll: p.at.submit, helpScroll: p.at.help, ruleCursor: p.at.rule}
	if p.devices != nil {
		f.deviceCursor = p.devices.cursor
	}
	// Found again by the layout below.
	f.found.scrollable, f.found.previewOverflow = false, false
	cv := &f.cells
	// No clearing here: the app clears the screen before every draw.
	if f.found.small {
		p.layOutTooSmall(cv, x, y, w, h)
		return f
	}
	top, bottom := y, y+h
	p.layOutTitle(cv, x, top, w)
	top++
	top = p.layOutBanners(cv, x, top, w, h)
	if d := p.V.Dialog; d != nil && d.Kind != panecore.DialogLong {
		// About the request or the question on screen: asked right above
		// it, where the eyes are, not on the bottom line.
		top = p.layOutPrompt(cv, x, top, w, bottom-1)
	}
	bottom--
	if bottom >= top {
		// Painted last: which keys apply depends on what the layout below
		// finds (whether anything scrolls at this size).
		f.hintRow = bottom
	}
	longAsked := p.layOutBody(f, x, top, w, bottom)
	if d := p.V.Dialog; d != nil && d.Kind == panecore.DialogLong && !longAsked {
		// Asked under the text it is about (layOutQuestion); should the
		// input not fit on screen, above the hint line instead.
		lines := wrap(p.prompt(), max(1, w-1))
		p.layOutPrompt(cv, x, max(top, bottom-len(lines)), w, bottom)
	}
	return f
}

// layOutBanners lays out the lines above the question, from row top, and
// returns the row under them. Each is kept short, and all of them together
// leave the question its room (its text, the focused option with its
// description, a line of preview), cutting the least needed first.
func (p *Pane) layOutBanners(cv *canvas, x, top, w, h int) int {
	type bannerLines struct {
		lines []string
		style tcell.Style
	}
	var about bannerLines
	conn := bannerLines{wrapAtMost(prefixed("⚠ ", p.V.ConnLost), max(1, w-1), 3), styleStrong}
	if r, _ := p.focused(); r != nil {
		// Where the agent runs and what it attached: context.
		about = bannerLines{wrapAtMost(r.About, max(1, w-1), 2), styleQuiet}
	}
	// A notice or a hint often carries a path or an error: three lines.
	notice := bannerLines{wrapAtMost(p.notice(), max(1, w-1), 3), styleStrong}
	hint := bannerLines{wrapAtMost(p.hint(), max(1, w-1), 3), styleStrong}
	budget := max(0, h-1-1-questionRows) // title, hint line, the question's room
	total := func() int { return len(conn.lines) + len(about.lines) + len(notice.lines) + len(hint.lines) }
	cut := func(b *bannerLines, keep int) {
		for len(b.lines) > keep && total() > budget {
			b.lines = wrapAtMost(strings.Join(b.lines, " "), max(1, w-1), len(b.lines)-1)
		}
	}
	// The context goes first, then each word down to one line, then those.
	cut(&about, 0)
	cut(&hint, 1)
	cut(&notice, 1)
	cut(&conn, 1)
	cut(&hint, 0)
	cut(&notice, 0)
	cut(&conn, 0)
	for _, b := range []bannerLines{conn, about, notice, hint} {
		for _, l := range b.lines {
			cv.put(x+1, top, w-1, seg{l, b.style})
			top++
		}
	}
	return top
}

// layOutBody lays out what goes between the banners and the hint line: the
// list of keys, the Devices or Rules view, or the request on screen. It
// reports whether "Answer is long" went under the input.
func (p *Pane) layOutBody(f *frame, x, top, w, bottom int) (longAsked bool) {
	cv := &f.cells
	switch {
	case p.help:
		f.helpScroll = p.layOutHelp(f, x+1, top, w-2, bottom)
		return false
	case p.devices != nil:
		f.deviceCursor = p.layOutDevices(cv, x+1, top, w-2, bottom)
		return false
	case p.V.Rules != nil:
		f.ruleCursor = p.layOutRules(cv, x+1, top, w-2, bottom)
		return false
	}
	r, s := p.focused()
	if r == nil {
		p.layOutEmpty(cv, x+1, top+1, w-2, bottom)
		return false
	}
	if len(r.Questions) > 1 && top < bottom {
		p.layOutTabs(cv, r, x+1, top, w-2)
		top++
	}
	if len(r.Questions) > 1 && bottom-top > 12 {
		top++ // a blank line under the tab bar, when there is room
	}
	switch {
	case r.Sending:
		cv.put(x+1, top, w-2, seg{"Sending…", styleStrong})
	case r.OnSubmit:
		f.submitScroll = p.layOutSubmit(f, r, x+1, top, w-2, bottom)
	case s == nil: // a request without questions: nothing to answer, only to cancel
		cv.put(x+1, top, w-2, seg{"This request has no questions; Esc declines it.", stylePlain})
	default:
		return p.layOutQuestion(f, r, s, x+1, top, w-2, bottom)
	}
	return false
}

// layOutPrompt lays out the question a prompt asks from row y, wrapped,
// not cut ("[Y/n]" at the end is the point of the line), and returns the
// row under it; bottom bounds it.
func (p *Pane) layOutPrompt(cv *canvas, x, y, w, bottom int) int {
	for _, l := range wrap(p.prompt(), max(1, w-1)) {
		if y >= bottom {
			break
		}
		cv.fill(x, y, w, styleTitle)
		cv.put(x, y, w, seg{" " + l, styleFocus})
		y++
	}
	return y
}

// prompt is the dialog's question with its keys: Enter's answer in
// capitals.
func (p *Pane) prompt() string {
	d := p.V.Dialog
	if d == nil {
		return ""
	}
	if d.DefaultYes {
		return d.Text + " [Y/n]"
	}
	return d.Text + " [y/N]"
}

func (p *Pane) layOutTitle(cv *canvas, x, y, w int) {
	cv.fill(x, y, w, styleTitle)
	n := len(p.V.Requests)
	name := "askuser"
	if p.V.Demo {
		name = "askuser DEMO (nothing is sent)"
	}
	parts := []string{name + " — " + waiting(n)}
	if r, _ := p.focused(); r != nil {
		if n > 1 {
			parts = append(parts, fmt.Sprintf("request %d of %d", p.V.Focus+1, n))
		}
		parts = append(parts, r.Agent)
		if r.Age != "" {
			parts = append(parts, r.Age)
		}
		if r.StatusText != "" {
			parts = append(parts, r.StatusText)
		}
	}
	title := " " + strings.Join(parts, " · ")
	if width(title) > w && len(parts) > 1 {
		// Narrow: "2 waiting · 1/2 · claude-main · 3m ago" ("DEMO · …":
		// a demo pane never hides that it is one).
		parts[0] = waiting(n)
		if p.V.Demo {
			parts[0] = "DEMO · " + parts[0]
		}
		if n > 1 {
			parts[1] = fmt.Sprintf("%d/%d", p.V.Focus+1, n)
		}
		title = " " + strings.Join(parts, " · ")
	}
	cv.put(x, y, w, seg{truncate(title, w), styleTitle})
}

func waiting(n int) string {
	if n == 0 {
		return "nothing waiting"
	}
	return fmt.Sprintf("%d waiting", n)
}

// questionRows is the least room the question area keeps at the smallest
// size: the tab bar, a line of the question, the focused option and a line
// of its description (or the marker that says there is more), "↓ N more…",
// and the preview's title and first line.
const questionRows = 7

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// layOutTooSmall says so, in as much of it as fits.
func (p *Pane) layOutTooSmall(cv *canvas, x, y, w, h int) {
	msg := fmt.Sprintf("terminal too small (%d×%d); the pane needs %d×%d. q quits.", w, h, minWidth, minHeight)
	for i, l := range wrap(msg, max(1, w)) {
		if i >= h {
			break
		}
		cv.put(x, y+i, w, seg{l, styleStrong})
	}
}

// scheduleWake asks the app for one redraw when something on screen will
// change by itself (the core's NextWake: the guard ends, a notice expires,
// the title's age reads differently). One timer, at the next such moment;
// nothing redraws while nothing changes (an idle pane uses no CPU).
func (p *Pane) scheduleWake() {
	if p.onWake == nil {
		return
	}
	next := p.core.NextWake()
	if next > 0 {
		next += 5 * time.Millisecond // past the moment, never just before it
	}
	p.onWake(next)
}

// fitHints keeps the hints that fit, most important first, whole; the
// pinned ones (how to quit, how to see every key) always, at the end.
func fitHints(h []string, w int) string {
	var pinned []string
	for _, part := range h {
		if pinnedHints[part] {
			pinned = append(pinned, part)
		}
	}
	tail := strings.Join(pinned, " • ")
	room := w
	if tail != "" {
		room -= width(tail) + width(" • ")
	}
	out := ""
	for _, part := range h {
		if pinnedHints[part] {
			continue
		}
		next := part
		if out != "" {
			next = out + " • " + part
		}
		if width(next) > room {
			continue
		}
		out = next
	}
	switch {
	case tail == "":
	case out == "":
		out = tail
	default:
		out += " • " + tail
	}
	return " " + out
}

// layOutHelp lays out the list of keys (?): every binding, as the README's
// key table has it, scrolled by helpScroll. It returns helpScroll clamped.
func (p *Pane) layOutHelp(f *frame, x, y, w, bottom int) int {
	var lines []seg
	for _, l := range wrap("Every key, where it applies and what it does. Esc closes this list.", max(1, w)) {
		lines = append(lines, seg{l, styleStrong})
	}
	lines = append(lines, seg{"", stylePlain})
	for _, r := range keyRows() {
		keys := strings.ReplaceAll(r.keys, "`", "")
		does := strings.ReplaceAll(r.does, "`", "")
		for i, l := range wrap(keys+" ("+r.where+"): "+does, max(1, w-2)) {
			style, indent := stylePlain, "  "
			if i == 0 {
				style, indent = styleStrong, ""
			}
			lines = append(lines, seg{indent + l, style})
		}
	}
	off, _ := f.layOutScrolled(lines, p.at.help, x, y, w, bottom)
	return off
}

func (p *Pane) layOutEmpty(cv *canvas, x, y, w, bottom int) {
	if y >= bottom {
		return
	}
	cv.put(x, y, w, seg{"No questions waiting", styleStrong})
	y += 2
	// What to try next, for someone who just opened it: where agents ask,
	// the demo, and a question of their own.
	paragraphs := []string{
		"Agents ask on " + Clean(p.V.Socket, false),
		"To see the pane at work: askuserd --demo (sample questions; nothing is sent).",
		"To ask one yourself, from another terminal: askuser-client ask --question 'Ready?' --option Yes --option No",
		"Connect an agent: askuser-client integrate claude (or codex, gemini, opencode, pi).",
	}
	for i, para := range paragraphs {
		style := stylePlain
		if i > 0 {
			style = styleQuiet
		}
		for _, l := range wrap(para, w) {
			if y >= bottom {
				return
			}
			cv.put(x, y, w, seg{l, style})
			y++
		}
		y++
	}
}

// layOutTabs lays out "← ■ Database  □ Service Name  ✓ Submit →", scrolled
// so the current tab is always in view.
func (p *Pane) layOutTabs(cv *canvas, r *panecore.RequestView, x, y, w int) {
	var labels []string
	for _, s := range r.Questions {
		mark := "□ "
		if s.Answered {
			mark = "■ "
		}
		labels = append(labels, mark+s.TabLabel)
	}
	labels = append(labels, "✓ Submit")
	// Start from the current tab and add tabs on the left while they fit.
	first := r.Tab
	used := width(labels[r.Tab]) + 4
	for first > 0 && used+width(labels[first-1])+2 <= w {
		first--
		used += width(labels[first]) + 2
	}
	segs := []seg{{"← ", stylePlain}}
	if first > 0 {
		segs[0] = seg{"…", stylePlain}
	}
	for i := first; i < len(labels); i++ {
		style := stylePlain
		if i == r.Tab {
			style = styleFocus
		}
		segs = append(segs, seg{labels[i], style}, seg{"  ", stylePlain})
	}
	segs[len(segs)-1] = seg{" →", stylePlain}
	total := 0
	for _, sg := range segs {
		total += width(sg.text)
	}
	cv.put(x, y, w, segs...)
	if total > w && w > 1 {
		cv.put(x+w-1, y, 1, seg{"…", stylePlain}) // more tabs on the right
	}
}

// layOutSubmit lays out the Submit tab: every question and its answer. It
// returns submitScroll clamped.
func (p *Pane) layOutSubmit(f *frame, r *panecore.RequestView, x, y, w, bottom int) int {
	var lines []seg
	add := func(text string, style tcell.Style, indent int) {
		for _, l := range wrap(text, max(1, w-indent)) {
			lines = append(lines, seg{strings.Repeat(" ", indent) + l, style})
		}
	}
	for i, s := range r.Questions {
		mark := "■ "
		if !s.Answered {
			mark = "□ "
		}
		add(mark+Clean(s.Question, true), styleStrong, 0)
		if s.Answered {
			add("→ "+Clean(s.Listed, true), stylePlain, 2)
		} else {
			add(s.Listed, styleQuiet, 2)
		}
		if s.Notes != "" {
			add("Note: "+Clean(s.Notes, true), styleNote, 2)
		}
		if i < len(r.Questions)-1 {
			lines = append(lines, seg{})
		}
	}
	// Said as the core says it: what keeps Enter from sending, if anything.
	if why := p.V.Actions[panecore.ActSubmit].Disabled; why != "" {
		lines = append(lines, seg{}, seg{why, styleStrong})
	} else {
		lines = append(lines, seg{}, seg{"Press Enter to send these answers.", styleStrong})
	}
	off, _ := f.layOutScrolled(lines, p.at.submit, x, y, w, bottom)
	return off
}

// layOutScrolled lays out lines from off, with a position line when they
// do not fit, and makes what shows PgUp/PgDn's page. It returns off
// clamped, and the row under the last line.
func (f *frame) layOutScrolled(lines []seg, off, x, y, w, bottom int) (shownOff, end int) {
	h := bottom - y
	if h <= 0 {
		return off, y
	}
	f.found.page = h
	if len(lines) > h {
		h--
		f.found.page = h
		off = min(off, len(lines)-h)
		f.cells.put(x, y+h, w, seg{fmt.Sprintf("lines %d–%d of %d (PgUp/PgDn)", off+1, off+h, len(lines)), styleQuiet})
	} else {
		off = 0
	}
	row := y
	for i := 0; i < h && off+i < len(lines); i++ {
		f.cells.put(x, y+i, w, lines[off+i])
		row++
	}
	if len(lines) > h {
		return off, bottom
	}
	return off, row
}
