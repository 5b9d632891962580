package didyoumean

import "testing"

func TestNearest(t *testing.T) {
	commands := []string{"ask", "answer", "cancel", "list", "status", "watch", "wait", "pending", "history", "show"}
	for _, c := range []struct {
		typed string
		known []string
		want  string
	}{
		{"sevre", []string{"serve", "stop", "web"}, "serve"},
		{"askk", commands, "ask"},
		{"lsit", commands, "list"},
		{"histroy", commands, "history"},
		{"pend", commands, "pending"}, // the only one it begins
		{"wa", commands, ""},          // begins both wait and watch
		{"xyz", commands, ""},
		{"muti", []string{"multi", "question", "option"}, "multi"},
		{"bel", []string{"bell", "editor", "input_guard"}, "bell"},
		{"input_gaurd", []string{"bell", "editor", "input_guard"}, "input_guard"},
		{"multiselect", []string{"question", "multiSelect", "options"}, "multiSelect"},
		{"OPTIONS", []string{"question", "multiSelect", "options"}, "options"},
		{"qustin", []string{"question"}, "question"}, // two edits in a long word
		{"qstn", []string{"question"}, ""},           // four: not a guess
	} {
		if got := Nearest(c.typed, c.known); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "abc", 0}, {"abc", "acb", 1}, {"abc", "ab", 1}, {"abc", "xbc", 1}, {"kitten", "sitting", 3}} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
