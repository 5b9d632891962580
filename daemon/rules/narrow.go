package rules

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Lists are the configured forms (forms.go) that no rule is offered for or
// answers: rules.destructive and rules.runs_programs.
type Lists struct {
	Destructive  []string
	RunsPrograms []string
}

// Narrow says why words (a command run in cwd) may not be remembered or
// answered by a rule for the tree: nil when it may. It is checked on the
// words of the command a rule is offered for, which the user sees whole,
// and again on every command before a rule answers it, whatever the rule
// says. Which further words a rule covers is decided by covers (cover.go),
// by what they are, never by this list of what they must not be.
func Narrow(words []string, cwd, tree string, lists Lists) error {
	if e := matchForms(words, lists.RunsPrograms); e != "" {
		return fmt.Errorf("it runs another program (rules.runs_programs: %s)", e)
	}
	if e := matchForms(words, lists.Destructive); e != "" {
		return fmt.Errorf("it is on the destructive list (rules.destructive: %s)", e)
	}
	for _, w := range words[1:] {
		for _, p := range pathsIn(w) {
			if !Within(resolve(p, cwd), tree) {
				return fmt.Errorf("%s is outside %s", p, tree)
			}
		}
	}
	return nil
}

// pathsIn is what in a word may name a file outside the tree: the word,
// the value of --flag=value or of a short option written -ovalue, and each
// part after a ":" (a search path), when it is absolute or climbs with "..".
func pathsIn(w string) []string {
	cands := []string{w}
	if _, v, ok := strings.Cut(w, "="); ok {
		cands = append(cands, v)
	}
	if len(w) > 2 && w[0] == '-' && w[1] != '-' {
		cands = append(cands, w[2:])
	}
	cands = append(cands, strings.Split(w, ":")...)
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, "/") || climbs(c) {
			out = append(out, c)
		}
	}
	return out
}

// climbs: p has a ".." part.
func climbs(p string) bool {
	for part := range strings.SplitSeq(p, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

func resolve(p, cwd string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// Within reports whether path is dir or below it.
func Within(path, dir string) bool {
	path, dir = filepath.Clean(path), filepath.Clean(dir)
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}
