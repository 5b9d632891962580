package views

import (
	"github.com/gdamore/tcell/v2"
)

// A draw has three steps, so that drawing itself changes nothing:
//
//   - layOut works out one frame from the core's view, the size and the
//     pane's scroll positions: what goes where, the positions clamped to
//     what fits, and what the keys will need to know. It changes nothing.
//   - apply makes the frame's positions and findings the pane's: the one
//     place a draw changes the pane.
//   - paint puts the frame on the screen, reading only.
//
// What the core must know of a draw is said in explicit calls around
// them: SetHidden before (whether a question shows at all), PreviewShown
// after (which lines of an approving preview were on screen).

// frame is one draw, laid out.
type frame struct {
	x, y, w, h int
	found      drawn
	cells      canvas

	// The scroll positions as this frame leaves them.
	question     *placedQuestion // the question on screen, nil when none
	submitScroll int
	helpScroll   int
	ruleCursor   int
	deviceCursor int

	// input is where the text input goes, nil when it is not on screen.
	input *inputPlace
	// hintRow is the hint line's row, -1 for none: its keys are worked out
	// when painting, from what apply made of this frame.
	hintRow int
	// reading is what the frame shows of a preview an option approves.
	reading *reading
}

// placedQuestion is a question's scroll positions as a frame leaves them.
type placedQuestion struct {
	key layKey
	pos qLayout
}

// inputPlace is the text input's place on screen: its label at x, y in
// a row w wide, the text area right of it, h rows tall.
type inputPlace struct {
	label      string
	x, y, w, h int
}

// area is the text area's rectangle.
func (in inputPlace) area() (x, y, w, h int) {
	lw := width(in.label)
	return in.x + lw, in.y, max(1, in.w-lw), in.h
}

// canvas records what a draw puts on the screen, in order, without a
// screen: laying out writes it, painting copies it.
type canvas struct {
	marks []mark
}

// mark is one row of text, or a row filled with a style.
type mark struct {
	x, y, w int
	segs    []seg
	fill    bool
	style   tcell.Style // the fill's
}

func (c *canvas) put(x, y, w int, segs ...seg) {
	c.marks = append(c.marks, mark{x: x, y: y, w: w, segs: segs})
}

func (c *canvas) fill(x, y, w int, style tcell.Style) {
	c.marks = append(c.marks, mark{x: x, y: y, w: w, fill: true, style: style})
}

func (c *canvas) paint(screen tcell.Screen) {
	for _, m := range c.marks {
		if m.fill {
			fill(screen, m.x, m.y, m.w, m.style)
		} else {
			put(screen, m.x, m.y, m.w, m.segs...)
		}
	}
}

// Draw renders the whole pane from the core's view.
func (p *Pane) Draw(screen tcell.Screen) {
	x, y, w, h := p.GetRect()
	p.prepare(screen, w, h)
	f := p.layOut(x, y, w, h)
	p.apply(f)
	p.paint(screen, f)
	p.reportReading(f.reading)
	p.scheduleWake()
}

// prepare takes what changed before a draw: whether a question shows at
// all (the core settles when one comes back into view), the core's view
// as of now, and a bell for a new request.
func (p *Pane) prepare(screen tcell.Screen, w, h int) {
	p.found.small = w < minWidth || h < minHeight
	p.core.SetHidden(p.found.small)
	p.refresh()
	p.rev = p.V.Rev
	p.forget()
	if p.V.Bells > p.rung {
		p.rung = p.V.Bells
		p.Bells++
		_ = screen.Beep()
	}
}

// apply makes frame f's positions and findings the pane's, and puts the
// text input where f has it.
func (p *Pane) apply(f *frame) {
	p.found = f.found
	if q := f.question; q != nil {
		pos := q.pos
		p.at.questions[q.key] = &pos
	}
	p.at.submit, p.at.help, p.at.rule = f.submitScroll, f.helpScroll, f.ruleCursor
	if p.devices != nil {
		p.devices.cursor = f.deviceCursor
	}
	if f.input != nil {
		x, y, w, h := f.input.area()
		if ix, iy, iw, ih := p.input.GetRect(); ix != x || iy != y || iw != w || ih != h {
			// The input moved or changed size (a resize, or a paste that
			// made it taller). An offset kept from the old size could hide
			// text that now fits, or the cursor: show the rows that end at
			// the cursor. A new width re-wraps the text, and the text area
			// then finds the cursor itself from offset 0.
			p.input.SetRect(x, y, w, h)
			_, _, row, _ := p.input.GetCursor()
			if iw != w || row < 0 {
				row = 0
			}
			p.input.SetOffset(max(0, row-h+1), 0)
		}
	}
}

// paint puts frame f on the screen. It changes nothing of the pane's: the
// hint line reads the findings apply took from f.
func (p *Pane) paint(screen tcell.Screen, f *frame) {
	f.cells.paint(screen)
	if in := f.input; in != nil {
		put(screen, in.x, in.y, in.w, seg{in.label, styleStrong})
		p.input.Draw(screen)
	}
	if f.hintRow >= 0 {
		put(screen, f.x, f.hintRow, f.w, seg{fitHints(p.hintLine(), f.w-1), styleQuiet})
	}
}

// reportReading tells the core which lines of an approving preview the draw
// put on screen (Allow means seen).
func (p *Pane) reportReading(rd *reading) {
	if rd != nil {
		p.core.PreviewShown(rd.req, rd.q, rd.opt, rd.width, rd.top, rd.rows, rd.total)
		p.refresh()
	}
}
