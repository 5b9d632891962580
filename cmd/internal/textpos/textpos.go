// Package textpos says where a byte offset falls in a text the way editors
// count: lines and columns from 1, columns in characters, not bytes.
package textpos

import "bytes"

// LineCol is the line and column of byte offset off in data; an offset past
// the end is the end.
func LineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, len([]rune(string(before[start:]))) + 1
}
