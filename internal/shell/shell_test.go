package shell

import "testing"

func TestQuote(t *testing.T) {
	cases := map[string]string{
		"SQLite":                   "SQLite",
		"PostgreSQL (Recommended)": "'PostgreSQL (Recommended)'",
		"it's":                     `'it'\''s'`,
		"":                         "''",
		"a=b,c":                    "a=b,c",
		"$HOME":                    "'$HOME'",
	}
	for in, want := range cases {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}
