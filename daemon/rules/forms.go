package rules

import (
	"path/filepath"
	"strings"
)

// A form is one entry of rules.destructive or rules.runs_programs
// (config.example.toml): a program and the words its arguments must all
// include, each word a set of spellings. It is matched as the program reads
// its arguments, so that the spellings a program accepts for one flag are
// one form: a short flag also inside a bundle ("-fd"), a long option also
// with a value ("--force=x") and abbreviated as getopt_long takes any
// unambiguous prefix ("--forc"), a one-dash long option also with two dashes
// (Go's flag package). It errs towards matching: a form that matches a
// harmless command only means that command is asked, never remembered.
type form struct {
	program string     // a base name; a trailing * matches any name it begins
	words   [][]string // each: spellings, one of which some argument must be
}

func parseForm(entry string) (form, bool) {
	f := strings.Fields(entry)
	if len(f) == 0 {
		return form{}, false
	}
	out := form{program: f[0]}
	for _, w := range f[1:] {
		out.words = append(out.words, strings.Split(w, "|"))
	}
	return out, true
}

// matchForms is the first entry that words (a command, program first)
// match, or "".
func matchForms(words []string, entries []string) string {
	for _, e := range entries {
		if f, ok := parseForm(e); ok && f.matches(words) {
			return e
		}
	}
	return ""
}

func (f form) matches(words []string) bool {
	if !nameMatches(f.program, filepath.Base(words[0])) {
		return false
	}
	for _, spellings := range f.words {
		found := false
		for _, arg := range words[1:] {
			for _, s := range spellings {
				if argIs(arg, s) {
					found = true
				}
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func nameMatches(pattern, name string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return name == pattern
}

// argIs says whether arg, one argument as the program receives it, may be
// the spelling s of a form.
func argIs(arg, s string) bool {
	switch {
	case s == "--":
		return arg == "--"
	case strings.HasSuffix(s, "*"):
		return strings.HasPrefix(arg, strings.TrimSuffix(s, "*"))
	case strings.HasPrefix(s, "--"):
		return longOption(arg, s)
	case len(s) == 2 && s[0] == '-':
		// A short flag: alone, in a bundle of flags, or with its value
		// attached ("-Ocmd"). Any letter of a one-dash word counts, so a
		// value that happens to hold the letter matches too (asked).
		return len(arg) >= 2 && arg[0] == '-' && arg[1] != '-' && strings.Contains(arg[1:], s[1:])
	case len(s) > 2 && s[0] == '-':
		// A one-dash long option (find's -exec, go's -toolexec): exactly,
		// with a value, or with two dashes as Go's flags take it.
		name, _, _ := strings.Cut(arg, "=")
		return name == s || name == "-"+s
	}
	return arg == s
}

// longOption: arg is the long option s, with or without "=value", or an
// abbreviation of it ("--forc"), or a longer option s begins
// ("--force-with-lease" for "--force"): which of the program's options an
// abbreviation means depends on the program, so any that could mean s does.
func longOption(arg, s string) bool {
	if !strings.HasPrefix(arg, "--") || len(arg) < 3 {
		return false
	}
	name, _, _ := strings.Cut(arg, "=")
	return strings.HasPrefix(s, name) || strings.HasPrefix(name, s)
}
