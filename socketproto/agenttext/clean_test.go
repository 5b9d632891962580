package agenttext

import (
	"testing"
	"unicode"
)

func TestClean(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in, want string
		keepNL         bool
	}{
		{"plain", "PostgreSQL (Recommended)", "PostgreSQL (Recommended)", false},
		{"csi colour", "\x1b[31mred\x1b[0m text", "red text", false},
		{"csi clear screen", "a\x1b[2Jb\x1b[H", "ab", false},
		{"csi private mode", "x\x1b[?1049hy", "xy", false},
		{"osc title bel", "\x1b]0;pwned\x07ok", "ok", false},
		{"osc hyperlink st", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "click", false},
		{"dcs", "\x1bPq#0;2;0;0;0\x1b\\after", "after", false},
		{"apc", "\x1b_Gf=100;AAAA\x1b\\x", "x", false},
		{"unterminated osc", "before\x1b]52;c;aGVsbG8=", "before", false},
		{"charset select", "\x1b(Bplain", "plain", false},
		{"reset", "\x1bcfoo", "foo", false},
		{"8-bit csi", "a\u009b31mb", "ab", false},
		{"8-bit osc", "a\u009d0;title\u009cb", "ab", false},
		{"c1 control", "a\u0085b", "ab", false},
		{"bell and backspace", "ding\a\b\b\bdong", "dingdong", false},
		{"carriage return overwrite", "safe\rEVIL", "safeEVIL", false},
		{"crlf", "one\r\ntwo", "one two", false},
		{"newline kept", "one\ntwo", "one\ntwo", true},
		{"newline flattened", "one\ntwo", "one two", false},
		{"tab", "a\tb", "a    b", false},
		{"del", "a\x7fb", "ab", false},
		{"nul", "a\x00b", "ab", false},
		// Bidi controls are shown, not obeyed and not hidden: the escape says
		// the text holds something that reorders it.
		{"bidi override", "user\u202Egnp.exe", `user\u202egnp.exe`, false},
		{"bidi isolates", "\u2066a\u2067b\u2068c\u2069", `\u2066a\u2067b\u2068c\u2069`, false},
		{"bidi embeddings", "\u202Aa\u202Bb\u202Cc\u202Dd", `\u202aa\u202bb\u202cc\u202dd`, false},
		{"direction marks", "a\u200Eb\u200Fc\u061Cd", `a\u200eb\u200fc\u061cd`, false},
		{"trojan source", "rm -rf ./tmp \u2067;\u2066 # safe", `rm -rf ./tmp \u2067;\u2066 # safe`, false},
		{"arabic and hebrew kept", "مرحبا שלום", "مرحبا שלום", false},
		{"zero width joiner kept", "👩\u200d💻", "👩\u200d💻", false},
		{"invalid utf8", "a\xffb", "a\uFFFDb", false},
		{"tview tags untouched by Clean", "[red]x[-]", "[red]x[-]", false},
		{"emoji and cjk", "データ 🚀", "データ 🚀", false},
		{"esc at end", "abc\x1b", "abc", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Clean(c.in, c.keepNL)
			if got != c.want {
				t.Fatalf("Clean(%q) = %q, want %q", c.in, got, c.want)
			}
			for _, r := range got {
				if r == '\n' && c.keepNL {
					continue
				}
				if unicode.IsControl(r) {
					t.Fatalf("control character %U left in %q", r, got)
				}
			}
		})
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"\x1b[31mx", "\x1b]0;t\x07", "\u202Eabc", "a\xffb", "\x1bP", "\u009b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Clean(s, true)
		for _, r := range got {
			if r != '\n' && unicode.IsControl(r) {
				t.Fatalf("control %U survived in %q", r, got)
			}
			if IsBidiControl(r) {
				t.Fatalf("bidi %U survived in %q", r, got)
			}
		}
	})
}

func TestTyped(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"plain answer", "plain answer"},
		{"line one\r\nline two\r\n", "line one\nline two\n"},
		{"tab\there", "tab\there"},
		{"pasted \x1b[31mred\x1b[0m", "pasted red"},
		{"bell\a and nul\x00", "bell and nul"},
		{"[red]kept[-]", "[red]kept[-]"},
	} {
		if got := Typed(c.in); got != c.want {
			t.Errorf("Typed(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
