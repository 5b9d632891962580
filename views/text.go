package views

import (
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
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
		// A word longer than the line: break it between grapheme clusters.
		g := uniseg.NewGraphemes(word)
		for g.Next() {
			cw := g.Width()
			if lineW+cw > w && lineW > 0 {
				flush()
			}
			line.WriteString(g.Str())
			lineW += cw
		}
	}
	if lineW > 0 || len(lines) == 0 {
		flush()
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
	style string // a tview style tag such as "[::b]", or ""
}

// put prints segments at (x, y), clipped to w cells; the text is escaped, so
// only the pane's own style tags take effect. It returns the cells used.
func put(screen tcell.Screen, x, y, w int, segs ...seg) int {
	used := 0
	for _, s := range segs {
		if used >= w {
			break
		}
		tag := s.style
		if tag == "" {
			tag = "[-:-:-]"
		}
		_, n := tview.Print(screen, tag+tview.Escape(s.text), x+used, y, w-used, tview.AlignLeft, tcell.ColorDefault)
		used += n
	}
	return used
}

// fill paints a row of cells with spaces in a style (reverse for the title).
func fill(screen tcell.Screen, x, y, w int, style tcell.Style) {
	for i := 0; i < w; i++ {
		screen.SetContent(x+i, y, ' ', nil, style)
	}
}

// thousands formats n as 2,847.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
