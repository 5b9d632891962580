package views

import (
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/uniseg"
)

// width is the number of terminal cells s takes.
func width(s string) int { return uniseg.StringWidth(s) }

// wrap breaks clean text (see Clean) into lines at most w cells wide: at
// newlines, at spaces where it can, inside a word when a word is wider than
// a line. Every character of s ends up on some line: nothing is cut off.
func wrap(s string, w int) []string {
	if w < 1 {
		w = 1
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = append(out, wrapParagraph(para, w)...)
	}
	return out
}

func wrapParagraph(p string, w int) []string {
	if width(p) <= w {
		return []string{p}
	}
	var lines []string
	var line strings.Builder
	lineW := 0
	flush := func() {
		lines = append(lines, strings.TrimRight(line.String(), " "))
		line.Reset()
		lineW = 0
	}
	for _, word := range splitKeepSpaces(p) {
		ww := width(word)
		if lineW+ww <= w {
			line.WriteString(word)
			lineW += ww
			continue
		}
		if strings.TrimSpace(word) == "" { // a space at the end of a line
			flush()
			continue
		}
		if lineW > 0 && ww <= w {
			flush()
			line.WriteString(word)
			lineW = ww
			continue
		}
		// A word longer than the line: break it after a '/' where it can
		// (a socket's path breaks between directories, not inside a name),
		// else between grapheme clusters.
		if lineW > 0 {
			flush() // it starts a line of its own, to be broken there
		}
		for _, part := range splitAfterSlashes(word) {
			pw := width(part)
			if lineW > 0 && lineW+pw > w && pw <= w {
				flush()
			}
			g := uniseg.NewGraphemes(part)
			for g.Next() {
				cw := g.Width()
				if lineW+cw > w && lineW > 0 {
					flush()
				}
				line.WriteString(g.Str())
				lineW += cw
			}
		}
	}
	if lineW > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

// splitAfterSlashes cuts a word after each '/': "/run/user/" is "/",
// "run/", "user/". A word without one is itself.
func splitAfterSlashes(word string) []string {
	var parts []string
	for {
		i := strings.IndexByte(word, '/')
		if i < 0 || i == len(word)-1 {
			break
		}
		parts = append(parts, word[:i+1])
		word = word[i+1:]
	}
	return append(parts, word)
}

// wrapAtMost wraps clean text like wrap, in at most n lines: the last one
// takes the rest, cut with "…" when it does not fit.
func wrapAtMost(s string, w, n int) []string {
	if s == "" || n <= 0 {
		return nil
	}
	lines := wrap(s, w)
	if len(lines) > n {
		lines = append(lines[:n-1], truncate(strings.Join(lines[n-1:], " "), w))
	}
	return lines
}

// splitKeepSpaces splits at spaces, keeping each run of spaces as its own piece.
func splitKeepSpaces(s string) []string {
	var out []string
	start := 0
	for i := 1; i <= len(s); i++ {
		if i == len(s) || (s[i] == ' ') != (s[i-1] == ' ') {
			out = append(out, s[start:i])
			start = i
		}
	}
	return out
}

// truncate shortens clean text to at most w cells, ending with "…" when cut.
func truncate(s string, w int) string {
	if width(s) <= w {
		return s
	}
	if w <= 1 {
		return strings.Repeat("…", max(w, 0))
	}
	var b strings.Builder
	used := 0
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		if used+g.Width() > w-1 {
			break
		}
		b.WriteString(g.Str())
		used += g.Width()
	}
	return b.String() + "…"
}

// seg is a run of clean text with one style.
type seg struct {
	text  string
	style tcell.Style
}

// The pane's styles, by what they mark. They are tcell styles, not tview
// tags parsed at draw time (where a typo silently falls back to the
// default), and they use only the terminal's own colours: emphasis comes
// from attributes, so the pane reads well on dark and light themes alike.
var (
	stylePlain  = tcell.StyleDefault
	styleStrong = tcell.StyleDefault.Bold(true)               // the question, notices, warnings
	styleQuiet  = tcell.StyleDefault.Dim(true)                // descriptions, markers, the hint line
	styleNote   = tcell.StyleDefault.Italic(true)             // a note under the answer
	styleFocus  = tcell.StyleDefault.Reverse(true).Bold(true) // the focused option, the current tab
	styleTitle  = tcell.StyleDefault.Reverse(true)            // the title bar
	styleInput  = tcell.StyleDefault.Underline(true)          // text being typed
	styleHint   = tcell.StyleDefault.Dim(true)                // an input's placeholder
	// A diff's lines taken out and put in: the terminal's own red and
	// green (its palette's first two colours, as its theme sets them).
	styleDel = tcell.StyleDefault.Foreground(tcell.ColorMaroon)
	styleAdd = tcell.StyleDefault.Foreground(tcell.ColorGreen)
)

// put prints segments at (x, y), clipped to w cells, and returns the cells
// used. It writes the cells itself instead of going through tview.Print:
// tview's tag parser would act on agent text, and tview.Escape leaves some
// tags working (a URL tag such as "[:::https://x]" has a '/' that Escape does
// not expect, and becomes a clickable link). Here no text is ever markup.
func put(screen tcell.Screen, x, y, w int, segs ...seg) int {
	used := 0
	for _, s := range segs {
		st := s.style
		g := uniseg.NewGraphemes(s.text)
		for g.Next() {
			cw := g.Width()
			if cw == 0 {
				continue // a lone zero-width character: nothing to place
			}
			if used+cw > w {
				return used
			}
			rs := g.Runes()
			screen.SetContent(x+used, y, rs[0], rs[1:], st)
			for i := 1; i < cw; i++ {
				screen.SetContent(x+used+i, y, ' ', nil, st) // the right half of a wide character
			}
			used += cw
		}
	}
	return used
}

// fill paints a row of cells with spaces in a style (reverse for the title).
func fill(screen tcell.Screen, x, y, w int, style tcell.Style) {
	for i := 0; i < w; i++ {
		screen.SetContent(x+i, y, ' ', nil, style)
	}
}
