package textpos

import "testing"

func TestLineCol(t *testing.T) {
	data := []byte("ab\ncdé\nf")
	cases := []struct{ off, line, col int }{
		{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {5, 2, 3}, {7, 2, 4}, {8, 3, 1}, {99, 3, 2},
	}
	for _, c := range cases {
		if l, col := LineCol(data, c.off); l != c.line || col != c.col {
			t.Errorf("offset %d: line %d column %d, want %d %d", c.off, l, col, c.line, c.col)
		}
	}
}
