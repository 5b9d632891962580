package previewform

import (
	"regexp"
	"strconv"
	"strings"

	"askuser/socketproto/agenttext"
)

// maxDiffCells bounds the table the diff of an edit is found with: past
// it (two texts of thousands of differing lines each) every old line is
// shown taken out and every new line put in, which hides nothing.
const maxDiffCells = 4 << 20

// diff draws old → new as a diff with every line of both: an edit's texts
// are what the agent sends, and each character of them is approved, so no
// line is left out as context too far from a change. Lines are numbered
// within old and new; when exactly one of them ends with a newline, the
// last lines differ by it, and the one without says so.
func (r *renderer) diff(oldS, newS string) {
	a, b := split(oldS), split(newS)
	crlf := a.crlf && b.crlf
	if a.crlf != b.crlf {
		// One side's line ends are CRLF and the other's not: show the "\r"s.
		a, b = splitKeepCR(oldS), splitKeepCR(newS)
	}
	if crlf {
		r.add(Line{Kind: Head, Text: "line endings: CRLF"})
	}
	key := func(t lined, i int) string {
		if i == len(t.lines)-1 && !t.finalNL && a.finalNL != b.finalNL {
			return t.lines[i] + "\x00no newline"
		}
		return t.lines[i]
	}
	n, m := len(a.lines), len(b.lines)
	ak, bk := make([]string, n), make([]string, m)
	for i := range ak {
		ak[i] = key(a, i)
	}
	for j := range bk {
		bk[j] = key(b, j)
	}
	note := func(t lined, i int) {
		if i == len(t.lines)-1 && !t.finalNL && a.finalNL != b.finalNL {
			r.add(Line{Kind: Note, Text: `\ No newline at end of file`})
		}
	}
	for _, op := range lcs(ak, bk) {
		switch op.kind {
		case Same:
			r.add(Line{Kind: Same, Old: op.i + 1, New: op.j + 1, Text: agenttext.Visible(a.lines[op.i])})
		case Del:
			r.add(Line{Kind: Del, Old: op.i + 1, Text: agenttext.Visible(a.lines[op.i])})
			note(a, op.i)
		case Add:
			r.add(Line{Kind: Add, New: op.j + 1, Text: agenttext.Visible(b.lines[op.j])})
			note(b, op.j)
		}
	}
}

// splitKeepCR is split without taking off CRLF's "\r".
func splitKeepCR(s string) lined {
	t := lined{}
	if s == "" {
		return t
	}
	t.lines = strings.Split(s, "\n")
	if t.lines[len(t.lines)-1] == "" {
		t.lines, t.finalNL = t.lines[:len(t.lines)-1], true
	}
	return t
}

type diffOp struct {
	kind Kind
	i, j int
}

// lcs is the shortest edit script from a to b by longest common
// subsequence: common ends first, then a table over the middle; taken-out
// lines come before the lines put in their place.
func lcs(a, b []string) []diffOp {
	var ops []diffOp
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		ops = append(ops, diffOp{Same, pre, pre})
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	n, m := len(ma), len(mb)
	if n*m > maxDiffCells {
		for i := range ma {
			ops = append(ops, diffOp{Del, pre + i, 0})
		}
		for j := range mb {
			ops = append(ops, diffOp{Add, 0, pre + j})
		}
	} else {
		// t[i][j]: the longest common subsequence of ma[i:] and mb[j:].
		t := make([][]int32, n+1)
		for i := range t {
			t[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					t[i][j] = t[i+1][j+1] + 1
				} else {
					t[i][j] = max(t[i+1][j], t[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && ma[i] == mb[j]:
				ops = append(ops, diffOp{Same, pre + i, pre + j})
				i++
				j++
			case j == m || (i < n && t[i+1][j] >= t[i][j+1]):
				ops = append(ops, diffOp{Del, pre + i, 0})
				i++
			default:
				ops = append(ops, diffOp{Add, 0, pre + j})
				j++
			}
		}
	}
	for k := suf; k > 0; k-- {
		ops = append(ops, diffOp{Same, len(a) - k, len(b) - k})
	}
	return ops
}

// hunkHeader reads a unified diff's "@@ -3,4 +3,6 @@".
var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@`)

// patch draws a patch: Codex's ("*** Begin Patch", "*** Update File:",
// "@@ context", " ", "-", "+" lines) or a unified diff ("--- a", "+++ b",
// "@@ -3,4 +3,6 @@"). Lines are numbered where the patch says where they
// stand: a unified diff's hunks, and a file the patch adds whole; a Codex
// update hunk finds its place by its context, so its lines have no number.
// A line that is none of these is shown as it is.
func (r *renderer) patch(s string) {
	t := split(s)
	if t.crlf {
		r.add(Line{Kind: Head, Text: "line endings: CRLF"})
	}
	p := patchPlace{header: true}
	for _, l := range t.lines {
		r.add(p.line(l))
	}
}

// patchPlace is where a patch's next line stands while it is read.
type patchPlace struct {
	old, nw int  // the next numbers, 0 when unknown
	addFile bool // inside a Codex "*** Add File:"
	header  bool // before a unified diff's first hunk
}

// line reads one line of a patch: how it is drawn, and where the next one
// stands.
func (p *patchPlace) line(l string) Line {
	v := agenttext.Visible
	switch {
	case strings.HasPrefix(l, "*** "):
		return p.codexFile(l)
	case strings.HasPrefix(l, "@@"):
		p.header = false
		p.old, p.nw = 0, 0
		if m := hunkHeader.FindStringSubmatch(l); m != nil {
			p.old, _ = strconv.Atoi(m[1])
			p.nw, _ = strconv.Atoi(m[2])
		}
		return Line{Kind: Hunk, Text: v(l)}
	case p.header && isDiffHeader(l):
		return Line{Kind: Head, Text: v(l)}
	case strings.HasPrefix(l, "--- ") && !p.addFile && p.old == 0 && p.nw == 0:
		p.header = true
		return Line{Kind: Head, Text: v(l)}
	case strings.HasPrefix(l, `\`):
		return Line{Kind: Note, Text: v(l)}
	}
	return p.body(l)
}

// codexFile reads a Codex patch's "*** " line: a file begins (an added
// one numbered from 1) or ends.
func (p *patchPlace) codexFile(l string) Line {
	p.addFile = strings.HasPrefix(l, "*** Add File:")
	p.old, p.nw = 0, 0
	if p.addFile {
		p.nw = 1
	}
	p.header = false
	if strings.HasPrefix(l, "*** End of File") {
		return Line{Kind: Note, Text: agenttext.Visible(l)}
	}
	return Line{Kind: Head, Text: agenttext.Visible(l)}
}

// body reads a line added, removed or kept, numbering it where the place
// is known; any other line is shown as it is.
func (p *patchPlace) body(l string) Line {
	v := agenttext.Visible
	switch {
	case strings.HasPrefix(l, "+"):
		out := Line{Kind: Add, New: p.nw, Text: v(l[1:])}
		p.nw = following(p.nw)
		return out
	case strings.HasPrefix(l, "-"):
		out := Line{Kind: Del, Old: p.old, Text: v(l[1:])}
		p.old = following(p.old)
		return out
	case strings.HasPrefix(l, " ") || l == "":
		out := Line{Kind: Same, Old: p.old, New: p.nw, Text: v(strings.TrimPrefix(l, " "))}
		p.old, p.nw = following(p.old), following(p.nw)
		return out
	}
	return Line{Kind: Rest, Text: v(l)}
}

// following is the number after n, or 0 (unknown) when n is.
func following(n int) int {
	if n > 0 {
		return n + 1
	}
	return 0
}

// isDiffHeader says whether l is a line of a unified diff's header.
func isDiffHeader(l string) bool {
	for _, p := range []string{"--- ", "+++ ", "Index: ", "diff ", "==="} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}
