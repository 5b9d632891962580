package rules

import (
	"fmt"
	"slices"

	"askuser/socketproto"
)

// covers says whether a rule's words cover cmd, a command run in cwd, for
// the tree the rule is for (docs/contract.md §13, "What a rule covers"): an
// exact rule only its own words; a prefix rule its own words followed by
// plain operands. Whatever else could change what runs (an option, a
// value, a path leaving the tree) is covered only when it is among the
// rule's own words, which the user saw whole.
func covers(match string, rule, cmd []string, cwd, tree string) bool {
	if len(cmd) < len(rule) || !slices.Equal(rule, cmd[:len(rule)]) {
		return false
	}
	if match == socketproto.MatchExact {
		return len(cmd) == len(rule)
	}
	for _, w := range cmd[len(rule):] {
		if PlainOperand(w, cwd, tree) != nil {
			return false
		}
	}
	return true
}

// PlainOperand says why w, a further word after a rule's own, is not a
// plain operand: nil when it is. A plain operand is made only of
// A–Z a–z 0–9 . _ / @ % , - (so no "=", no "~", no quoting, nothing the
// shell or a program reads as more than a name), does not begin with "-"
// (an option), "+" or ":" (refspecs that force or delete), and names no
// path that leaves the tree. This is an allow-list: a word is plain by
// what it is made of, never by not looking dangerous.
func PlainOperand(w, cwd, tree string) error {
	if w == "" {
		return fmt.Errorf("an empty word is not a plain operand")
	}
	for _, r := range w {
		if !plainChar(r) {
			return fmt.Errorf("%q holds %q, which no plain operand does", w, r)
		}
	}
	switch w[0] {
	case '-', '+', ':':
		return fmt.Errorf("%q begins with %c: an option, not a plain operand", w, w[0])
	}
	if (w[0] == '/' || climbs(w)) && !Within(resolve(w, cwd), tree) {
		return fmt.Errorf("%q is outside %s", w, tree)
	}
	return nil
}

func plainChar(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return true
	}
	switch r {
	case '.', '_', '/', '@', '%', ',', '-':
		return true
	}
	return false
}
