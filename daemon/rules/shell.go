package rules

import (
	"fmt"
	"strings"
)

// Words splits a shell command into its words, as sh would after quote
// removal, for a command that runs one program with literal arguments.
// Anything that makes the shell do more is refused with why: chaining and
// pipes (; & |), redirection (< >), substitution ($, backticks), grouping
// and subshells, globs, brace and tilde expansion, comments, a newline, and
// a leading VAR=value. What is refused is never remembered, and a prompt
// holding it is never answered by a rule.
func Words(cmd string) ([]string, error) {
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
