package socketproto

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxExactInteger is the largest whole number a JSON number carries
// exactly to every reader: 2^53 − 1. Most readers (JavaScript's, Python's
// float, Go's float64 and any other that reads a number as an IEEE-754
// double) round a larger one to a neighbour, so an integer answer beyond
// ±MaxExactInteger would reach the agent as another number.
const MaxExactInteger = 1<<53 - 1

// decimal is the exact value of a number written in JSON: digits × 10^exp,
// with digits free of leading and trailing zeros ("" for zero, whose sign
// is dropped: -0 and 0 are one value to a reader that compares them).
type decimal struct {
	neg    bool
	digits string
	exp    int
}

// parseJSONNumber reads s as JSON writes a number
// (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?) and returns its exact
// value; ok is false when s is not written so ("+5", ".5", "5.", "007",
// "1_000", "0x10", "Inf").
func parseJSONNumber(s string) (d decimal, ok bool) {
	sc := numberScanner{s: s}
	d.neg = sc.skip('-')
	intPart := sc.digits()
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return d, false
	}
	var frac string
	if sc.skip('.') {
		if frac = sc.digits(); frac == "" {
			return d, false
		}
	}
	exp, ok := sc.exponent()
	if !ok || sc.i != len(s) {
		return d, false
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	if trimmed == "" {
		return decimal{}, true
	}
	d.digits, d.exp = trimmed, exp
	return d, true
}

// numberScanner reads a JSON number from left to right.
type numberScanner struct {
	s string
	i int // the next byte to read
}

// skip consumes c if it is next, and reports whether it was.
func (sc *numberScanner) skip(c byte) bool {
	if sc.i < len(sc.s) && sc.s[sc.i] == c {
		sc.i++
		return true
	}
	return false
}

// digits consumes the run of digits that is next, maybe none.
func (sc *numberScanner) digits() string {
	start := sc.i
	for sc.i < len(sc.s) && sc.s[sc.i] >= '0' && sc.s[sc.i] <= '9' {
		sc.i++
	}
	return sc.s[start:sc.i]
}

// exponent consumes an exponent ("e-5", "E+10", "e3") if one is next and
// returns its value, 0 without one; ok is false when it has no digits.
func (sc *numberScanner) exponent() (exp int, ok bool) {
	if !sc.skip('e') && !sc.skip('E') {
		return 0, true
	}
	sign := 1
	if sc.skip('-') {
		sign = -1
	} else {
		sc.skip('+')
	}
	e := sc.digits()
	if e == "" {
		return 0, false
	}
	n, err := strconv.Atoi(e)
	if err != nil || n > 1e9 {
		// Far beyond any double: kept large, never expanded.
		n = 1e9
	}
	return sign * n, true
}

// isWhole reports whether the value has no fractional part.
func (d decimal) isWhole() bool { return d.exp >= 0 }

// intDigits is how many digits the value has before the point.
func (d decimal) intDigits() int { return len(d.digits) + d.exp }

// typedNumber holds a number answer to its rule and carries it exactly as
// the user wrote it (docs/contract.md §3 "Typed answers"): the text, trimmed,
// is the answer's JSON, so 1.50 reaches the agent as 1.50. What a JSON
// reader would take as another number is refused instead, naming why: text
// not written as a JSON number; for an integer, a value with a fractional
// part, one written with a point or an exponent (Go's and Rust's readers
// refuse 3.0 for an integer field), or one beyond ±MaxExactInteger; for a
// number, a value the nearest double does not hold (more digits than a
// double keeps, or beyond its range).
func typedNumber(q Question, a Answer, fail func(string, ...any) (Answer, error)) (Answer, error) {
	text := strings.TrimSpace(a.Answer.Text)
	if a.Answer.IsList {
		return fail("%q is not a number", truncateForError(text))
	}
	if msg := numberProblem(q.Input, text); msg != "" {
		return fail("%s", msg)
	}
	a.Custom = text
	a.Answer = AnswerValue{Text: text, JSON: []byte(text)}
	return a, nil
}

// numberProblem is what is wrong with text under a number or integer
// input's rule, "" if nothing.
func numberProblem(in *Input, text string) string {
	f, perr := strconv.ParseFloat(text, 64)
	if math.IsNaN(f) || (perr != nil && !math.IsInf(f, 0)) || (perr == nil && math.IsInf(f, 0)) {
		return fmt.Sprintf("%q is not a number", truncateForError(text))
	}
	d, ok := parseJSONNumber(text)
	if !ok {
		if math.IsInf(f, 0) {
			return fmt.Sprintf("%q is not a number", truncateForError(text))
		}
		return fmt.Sprintf("%s is not written as JSON writes a number; write %s", truncateForError(text), plainNum(f))
	}
	carried := doubleProblem
	if in.Type == InputInteger {
		carried = integerProblem
	}
	if msg := carried(text, d, f); msg != "" {
		return msg
	}
	return rangeProblem(in, text, f)
}

// integerProblem is why text, whose exact value is d and nearest double f,
// would not reach an integer's reader as that integer, "" if it would.
func integerProblem(text string, d decimal, f float64) string {
	switch {
	case !d.isWhole():
		return fmt.Sprintf("%s is not a whole number", truncateForError(text))
	case d.intDigits() > 16 || math.Abs(f) > MaxExactInteger:
		return fmt.Sprintf("%s: an integer beyond ±%d is not carried exactly by JSON numbers", truncateForError(text), MaxExactInteger)
	case strings.ContainsAny(text, ".eE"):
		return fmt.Sprintf("%s is a whole number written with a point or an exponent, which an integer's reader may refuse; write %s", truncateForError(text), strconv.FormatInt(int64(f), 10))
	}
	return ""
}

// doubleProblem is why text, whose exact value is d and nearest double f,
// would not reach a number's reader as that number, "" if it would.
func doubleProblem(text string, d decimal, f float64) string {
	if math.IsInf(f, 0) {
		return fmt.Sprintf("%s is beyond what a JSON number holds (about ±1.8e308)", truncateForError(text))
	}
	if held, _ := parseJSONNumber(strconv.FormatFloat(f, 'e', -1, 64)); held != d {
		return fmt.Sprintf("%s has more digits than a JSON number carries (a reader takes it as %s)", truncateForError(text), plainNum(f))
	}
	return ""
}

// rangeProblem is how f, written text, falls outside the input's minimum
// and maximum, "" if it does not.
func rangeProblem(in *Input, text string, f float64) string {
	if in.Minimum != nil && f < *in.Minimum {
		return fmt.Sprintf("%s is less than %s", truncateForError(text), fmtNum(*in.Minimum))
	}
	if in.Maximum != nil && f > *in.Maximum {
		return fmt.Sprintf("%s is more than %s", truncateForError(text), fmtNum(*in.Maximum))
	}
	return ""
}

// plainNum writes f as a person reads it, as JavaScript prints a number:
// without an exponent from 1e-6 to 1e21, the shortest digits that read back
// as f.
func plainNum(f float64) string {
	if a := math.Abs(f); a == 0 || (a >= 1e-6 && a < 1e21) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
