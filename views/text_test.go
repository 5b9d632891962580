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

// A path longer than the line breaks between directories, never inside a
// name: the empty pane's "Agents ask on …" in a 40-column split.
func TestWrapBreaksAPathAtSlashes(t *testing.T) {
	got := wrap("Agents ask on /tmp/askuser-test-1234567/runtime/askuser/askuserd.sock", 30)
	want := []string{"Agents ask on", "/tmp/askuser-test-1234567/", "runtime/askuser/askuserd.sock"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrap = %q, want %q", got, want)
	}
}
