package views

import (
	"strings"
	"testing"
)

func TestWrapKeepsEveryCharacter(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "short", "a much longer line that has to wrap somewhere", "supercalifragilisticexpialidocious", "データベースを選んでください。データベース", "tab\tand\nnewline"} {
		for w := 2; w < 20; w++ { // from 2: a wide character needs two cells
			joined := ""
			for _, l := range wrap(Clean(s, true), w) {
				if width(l) > w {
					t.Fatalf("wrap(%q, %d): line %q is %d wide", s, w, l, width(l))
				}
				joined += l
			}
			want := strings.NewReplacer(" ", "", "\n", "").Replace(Clean(s, true))
			if strings.ReplaceAll(joined, " ", "") != want {
				t.Fatalf("wrap(%q, %d) lost text: %q", s, w, joined)
			}
		}
	}
}
