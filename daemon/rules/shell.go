package rules

import (
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
	var words []string
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	rs := []rune(cmd)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t':
			end()
		case r == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("a quote (') is not closed")
			}
			cur.WriteString(string(rs[i+1 : j]))
			inWord, i = true, j
		case r == '"':
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				switch rs[j] {
				case '$', '`':
					return nil, fmt.Errorf("it substitutes (%c inside double quotes)", rs[j])
				case '\\':
					if j+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[j+1]) {
						j++
					}
				case '\n':
					return nil, fmt.Errorf("it spans lines")
				}
				cur.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, fmt.Errorf("a quote (\") is not closed")
			}
			inWord, i = true, j
		case r == '\\':
			if i+1 == len(rs) || rs[i+1] == '\n' {
				return nil, fmt.Errorf("it ends in a backslash or continues a line")
			}
			i++
			cur.WriteRune(rs[i])
			inWord = true
		case r == '\n' || r == '\r':
			return nil, fmt.Errorf("it spans lines")
		case strings.ContainsRune(";&|", r):
			return nil, fmt.Errorf("it chains or pipes commands (%c)", r)
		case r == '<' || r == '>':
			return nil, fmt.Errorf("it redirects (%c)", r)
		case r == '$' || r == '`':
			return nil, fmt.Errorf("it substitutes (%c)", r)
		case strings.ContainsRune("(){}", r):
			return nil, fmt.Errorf("it groups or expands (%c)", r)
		case strings.ContainsRune("*?[]", r):
			return nil, fmt.Errorf("it expands a pattern (%c)", r)
		case (r == '~' || r == '#') && !inWord:
			return nil, fmt.Errorf("a word begins with %c", r)
		case r == '~' && !alnum(rs[i-1]):
			// bash expands a ~ after = or : too (a=~/x), and in a
			// word that only looks like an assignment.
			return nil, fmt.Errorf("it holds ~ after %q (tilde expansion)", rs[i-1])
		case r == '!':
			return nil, fmt.Errorf("it holds ! (negation or history)")
		case r < ' ' || r == 0x7f:
			return nil, fmt.Errorf("it holds a control character")
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	end()
	if len(words) == 0 {
		return nil, fmt.Errorf("it is empty")
	}
	if strings.Contains(words[0], "=") {
		return nil, fmt.Errorf("it sets a variable for the command (%s)", words[0])
	}
	return words, nil
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
