package agenttext

import "testing"

func TestVisibleShowsWhatCleanRemoves(t *testing.T) {
	for in, want := range map[string]string{
		"plain":              "plain",
		"a\tb":               "a    b",
		"end\r":              `end\r`,
		"\x1b[31mred\x1b[0m": `\u001b[31mred\u001b[0m`,
		"bell\a":             `bell\u0007`,
		"del\x7f":            `del\u007f`,
		"c1\u009b":           `c1\u009b`,
		"rtl\u202eevil":      `rtl\u202eevil`,
		"two\nlines":         `two\nlines`,
		"bad\xffutf8":        "bad\uFFFDutf8",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
		if got := Visible(in); Clean(got, false) != got {
			t.Errorf("Visible(%q) = %q still holds what Clean changes", in, got)
		}
	}
}
