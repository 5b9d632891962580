package rules

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words splits a shell command into its words, as sh would after quote
// removal, for a command that runs one program with literal arguments.
// Anything that makes the shell do more is refused with why: chaining and
// pipes (; & |), redirection (< >), substitution ($, backticks), grouping
// and subshells, globs, brace and tilde expansion, comments, a leading
// VAR=value, and any control or invisible formatting character, quoted or
// not (a newline, a carriage return, an escape, a bidi override): what the
// user reads must be what runs. What is refused is never remembered, and a
// prompt holding it is never answered by a rule.
func Words(cmd string) ([]string, error) {
	if err := visible(cmd); err != nil {
		return nil, err
	}
	l := &lexer{rs: []rune(cmd)}
	for ; l.i < len(l.rs); l.i++ {
		if err := l.step(); err != nil {
			return nil, err
		}
	}
	l.end()
	if len(l.words) == 0 {
		return nil, fmt.Errorf("it is empty")
	}
	if strings.Contains(l.words[0], "=") {
		return nil, fmt.Errorf("it sets a variable for the command (%s)", l.words[0])
	}
	return l.words, nil
}

// specials are the characters that, unquoted, make sh do more than run one
// program with literal words, and why each is refused.
var specials = map[rune]string{
	';': "it chains or pipes commands (;)", '&': "it chains or pipes commands (&)", '|': "it chains or pipes commands (|)",
	'<': "it redirects (<)", '>': "it redirects (>)",
	'$': "it substitutes ($)", '`': "it substitutes (`)",
	'(': "it groups or expands (()", ')': "it groups or expands ())", '{': "it groups or expands ({)", '}': "it groups or expands (})",
	'*': "it expands a pattern (*)", '?': "it expands a pattern (?)", '[': "it expands a pattern ([)", ']': "it expands a pattern (])",
	'!': "it holds ! (negation or history)",
}

// lexer reads a command's words as sh does after quote removal; visible
// has refused every control character before it runs.
type lexer struct {
	rs     []rune
	i      int // the rune being read
	words  []string
	cur    strings.Builder
	inWord bool
}

// end closes the word being read, if any.
func (l *lexer) end() {
	if l.inWord {
		l.words = append(l.words, l.cur.String())
		l.cur.Reset()
		l.inWord = false
	}
}

// step reads the rune at l.i, and what it begins.
func (l *lexer) step() error {
	r := l.rs[l.i]
	switch r {
	case ' ':
		l.end()
		return nil
	case '\'':
		return l.singleQuoted()
	case '"':
		return l.doubleQuoted()
	case '\\':
		if l.i+1 == len(l.rs) {
			return fmt.Errorf("it ends in a backslash or continues a line")
		}
		l.i++
		l.add(l.rs[l.i])
		return nil
	}
	if why, special := specials[r]; special {
		return errors.New(why)
	}
	switch {
	case (r == '~' || r == '#') && !l.inWord:
		return fmt.Errorf("a word begins with %c", r)
	case r == '~' && !alnum(l.rs[l.i-1]):
		// bash expands a ~ after = or : too (a=~/x), and in a word that
		// only looks like an assignment.
		return fmt.Errorf("it holds ~ after %q (tilde expansion)", l.rs[l.i-1])
	}
	l.add(r)
	return nil
}

func (l *lexer) add(r rune) {
	l.cur.WriteRune(r)
	l.inWord = true
}

// singleQuoted reads '…': everything in it is literal.
func (l *lexer) singleQuoted() error {
	j := l.i + 1
	for j < len(l.rs) && l.rs[j] != '\'' {
		j++
	}
	if j == len(l.rs) {
		return fmt.Errorf("a quote (') is not closed")
	}
	l.cur.WriteString(string(l.rs[l.i+1 : j]))
	l.inWord, l.i = true, j
	return nil
}

// doubleQuoted reads "…": literal but for \" \\ \$ \` escapes, and a $ or
// a backtick in it substitutes.
func (l *lexer) doubleQuoted() error {
	j := l.i + 1
	for ; j < len(l.rs) && l.rs[j] != '"'; j++ {
		switch l.rs[j] {
		case '$', '`':
			return fmt.Errorf("it substitutes (%c inside double quotes)", l.rs[j])
		case '\\':
			if j+1 < len(l.rs) && strings.ContainsRune("\"\\$`", l.rs[j+1]) {
				j++
			}
		}
		l.cur.WriteRune(l.rs[j])
	}
	if j == len(l.rs) {
		return fmt.Errorf("a quote (\") is not closed")
	}
	l.inWord, l.i = true, j
	return nil
}

// visible refuses a command holding a character that does not show as
// itself: control characters (tab, newline, carriage return, escape, DEL,
// the C1 range), invisible formatting (bidi controls, zero-width joiners,
// soft hyphens), spaces other than U+0020 and bytes that are not UTF-8.
func visible(cmd string) error {
	for i, r := range cmd {
		switch {
		case r == utf8.RuneError && invalidAt(cmd, i):
			return fmt.Errorf("it holds a byte that is not UTF-8 (at byte %d)", i)
		case r == '\n' || r == '\r':
			return fmt.Errorf("it spans lines")
		case unicode.IsControl(r):
			return fmt.Errorf("it holds a control character (%U)", r)
		case r != ' ' && unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp):
			// Shown as a space or a line break, read by sh as part of a word.
			return fmt.Errorf("it holds a space that is not the plain one (%U)", r)
		case unicode.Is(unicode.Cf, r):
			return fmt.Errorf("it holds an invisible formatting character (%U)", r)
		}
	}
	return nil
}

func invalidAt(s string, i int) bool {
	_, n := utf8.DecodeRuneInString(s[i:])
	return n <= 1
}

func alnum(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// Join writes words back as one command in the one form every agent's
// command is normalised to: words separated by one space, a word quoted
// with ' only when it holds something the shell would read.
func Join(words []string) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = quote(w)
	}
	return strings.Join(parts, " ")
}

func quote(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\n'\"\\;&|<>$`(){}*?[]~#!") {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
