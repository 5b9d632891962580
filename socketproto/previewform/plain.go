package previewform

import (
	"fmt"
	"strings"
)

// Gutter is a line's numbers as the faces draw them before its text, each
// number right-aligned in digits columns (blank when it has none) and the
// diff's mark: "  3   4   ", " 12     - ", "     7 + ". A file's text has
// one column; Head, Hunk, Note and Rest lines have none ("").
func Gutter(l Line, digits int, diff bool) string {
	num := func(n int) string {
		if n == 0 {
			return strings.Repeat(" ", digits)
		}
		return fmt.Sprintf("%*d", digits, n)
	}
	switch l.Kind {
	case Text:
		return num(l.New) + "  "
	case Same:
		return num(l.Old) + " " + num(l.New) + "   "
	case Del:
		return num(l.Old) + " " + num(0) + " - "
	case Add:
		return num(0) + " " + num(l.New) + " + "
	}
	return ""
}

// Digits is how many digits the widest line number of lines takes, and
// whether they are a diff's (two columns).
func Digits(lines []Line) (digits int, diff bool) {
	most := 0
	for _, l := range lines {
		most = max(most, l.Old, l.New)
		diff = diff || l.Kind == Same || l.Kind == Del || l.Kind == Add
	}
	return len(fmt.Sprint(most)), diff
}

// Plain is the lines as text, one a line, each after its gutter: what
// askuser-client show prints and the pending file holds under "approves".
func Plain(lines []Line) string {
	digits, diff := Digits(lines)
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimRight(Gutter(l, digits, diff)+l.Text, " "))
		b.WriteByte('\n')
	}
	return b.String()
}
