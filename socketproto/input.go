package socketproto

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Input types of docs/contract.md §3 "Typed answers": the JSON Schema primitives an MCP
// elicitation form may ask for.
const (
	InputString  = "string"
	InputNumber  = "number"
	InputInteger = "integer"
	InputBoolean = "boolean"
	InputArray   = "array" // of string enums: a multi-select question
)

// String formats a typed question may require.
const (
	FormatEmail    = "email"
	FormatURI      = "uri"
	FormatDate     = "date"
	FormatDateTime = "date-time"
)

// Labels of a boolean question's two options: how Yes / No is shown.
const (
	LabelYes = "Yes"
	LabelNo  = "No"
)

// MaxPatternChars bounds an input's pattern: it is compiled by the daemon
// and every view, so it must stay small.
const MaxPatternChars = 1000

// Input is a question's typed answer (docs/contract.md §3): a JSON Schema primitive plus
// "required" and "default". The answer must satisfy it, and travels with its
// JSON type (the number 3, not "3"). A question without Input takes any
// answer.
//
// An enum is shown as the question's options, a boolean as the options Yes
// and No, an array of enums as a multi-select question: ApplyInput fills
// them in, so views show typed choices with the machinery they have.
type Input struct {
	Type      string      `json:"type"`
	Format    string      `json:"format,omitempty"`
	MinLength *int        `json:"minLength,omitempty"`
	MaxLength *int        `json:"maxLength,omitempty"`
	Pattern   string      `json:"pattern,omitempty"`
	Minimum   *float64    `json:"minimum,omitempty"`
	Maximum   *float64    `json:"maximum,omitempty"`
	Enum      []string    `json:"enum,omitempty"`
	Items     *InputItems `json:"items,omitempty"`
	MinItems  *int        `json:"minItems,omitempty"`
	MaxItems  *int        `json:"maxItems,omitempty"`
	// Required defaults to true: an optional question may be left empty.
	Required *bool           `json:"required,omitempty"`
	Default  json.RawMessage `json:"default,omitempty"`
}

// InputItems is the element schema of an array input: a string enum.
type InputItems struct {
	Type string   `json:"type"`
	Enum []string `json:"enum"`
}

// IsRequired reports whether the question must be answered (the default).
func (in *Input) IsRequired() bool { return in == nil || in.Required == nil || *in.Required }

// choices is the enum the answer must come from, if any.
func (in *Input) choices() []string {
	switch {
	case in.Type == InputArray && in.Items != nil:
		return in.Items.Enum
	case in.Type == InputString:
		return in.Enum
	case in.Type == InputBoolean:
		return []string{LabelYes, LabelNo}
	}
	return nil
}

// HasChoices reports whether the answer is chosen from options (an enum, a
// boolean, an array of enums) rather than typed: no "Other" is offered.
func (in *Input) HasChoices() bool { return in != nil && len(in.choices()) > 0 }

// ApplyInput returns q with what its input implies filled in: an enum's
// values (or Yes / No) as options when it gives none, and multiSelect for an
// array. A question without input comes back unchanged.
func ApplyInput(q Question) Question {
	in := q.Input
	if in == nil {
		return q
	}
	if ch := in.choices(); len(ch) > 0 && len(q.Options) == 0 {
		q.Options = make([]Option, len(ch))
		for i, c := range ch {
			q.Options[i] = Option{Label: c}
		}
	}
	if in.Type == InputArray && q.MultiSelect == nil {
		t := true
		q.MultiSelect = &t
	}
	return q
}

// validateInput checks the schema itself: a rule that could never be met,
// or that the views could not show, is refused naming its field. Each
// check below holds one part of it, in the order a reader meets them.
func validateInput(q Question, qf string) *Error {
	f := qf + ".input"
	for _, check := range []func(*Input, string) *Error{inputType, inputFormat, inputLength, inputPattern, inputRange, inputEnum, validateItems} {
		if e := check(q.Input, f); e != nil {
			return e
		}
	}
	if e := validateInputOptions(q, qf); e != nil {
		return e
	}
	if in := q.Input; len(in.Default) > 0 && !isNull(in.Default) {
		if _, e := typedDefault(q); e != nil {
			return Errf(CodeInvalidRequest, f+".default", "%v", e)
		}
	}
	return nil
}

func inputType(in *Input, f string) *Error {
	switch in.Type {
	case InputString, InputNumber, InputInteger, InputBoolean, InputArray:
		return nil
	case "":
		return Errf(CodeInvalidRequest, f+".type", "missing; one of string, number, integer, boolean, array")
	}
	return Errf(CodeInvalidRequest, f+".type", "must be one of string, number, integer, boolean, array, got %q", truncateForError(in.Type))
}

func inputFormat(in *Input, f string) *Error {
	if in.Format == "" {
		return nil
	}
	if in.Type != InputString {
		return Errf(CodeInvalidRequest, f+".format", "only for type string")
	}
	switch in.Format {
	case FormatEmail, FormatURI, FormatDate, FormatDateTime:
		return nil
	}
	return Errf(CodeInvalidRequest, f+".format", "must be one of email, uri, date, date-time, got %q", truncateForError(in.Format))
}

func inputLength(in *Input, f string) *Error {
	return checkBounds(f, "minLength", "maxLength", in.MinLength, in.MaxLength, in.Type == InputString)
}

func inputPattern(in *Input, f string) *Error {
	if in.Pattern == "" {
		return nil
	}
	if in.Type != InputString {
		return Errf(CodeInvalidRequest, f+".pattern", "only for type string")
	}
	if n := utf8.RuneCountInString(in.Pattern); n > MaxPatternChars {
		return Errf(CodeInvalidRequest, f+".pattern", "at most %d characters, got %d", MaxPatternChars, n)
	}
	if _, err := regexp.Compile(in.Pattern); err != nil {
		return Errf(CodeInvalidRequest, f+".pattern", "not a valid regular expression: %v", err)
	}
	return nil
}

func inputRange(in *Input, f string) *Error {
	isNumber := in.Type == InputNumber || in.Type == InputInteger
	for _, b := range []struct {
		name string
		v    *float64
	}{{"minimum", in.Minimum}, {"maximum", in.Maximum}} {
		if b.v != nil && !isNumber {
			return Errf(CodeInvalidRequest, f+"."+b.name, "only for type number or integer")
		}
		if b.v != nil && (math.IsNaN(*b.v) || math.IsInf(*b.v, 0)) {
			return Errf(CodeInvalidRequest, f+"."+b.name, "must be a finite number")
		}
	}
	if in.Minimum != nil && in.Maximum != nil && *in.Minimum > *in.Maximum {
		return Errf(CodeInvalidRequest, f+".minimum", "greater than maximum (%s > %s)", fmtNum(*in.Minimum), fmtNum(*in.Maximum))
	}
	return nil
}

func inputEnum(in *Input, f string) *Error {
	switch {
	case in.Enum != nil && in.Type != InputString:
		return Errf(CodeInvalidRequest, f+".enum", "only for type string (an array takes items.enum)")
	case in.Enum != nil && len(in.Enum) == 0:
		return Errf(CodeInvalidRequest, f+".enum", "must list at least one value")
	}
	return nil
}

// checkBounds checks a min/max pair of counts: allowed for this type, not
// negative, min ≤ max.
func checkBounds(f, minName, maxName string, lo, hi *int, allowed bool) *Error {
	for _, b := range []struct {
		name string
		v    *int
	}{{minName, lo}, {maxName, hi}} {
		if b.v == nil {
			continue
		}
		if !allowed {
			return Errf(CodeInvalidRequest, f+"."+b.name, "not for this input type")
		}
		if *b.v < 0 {
			return Errf(CodeInvalidRequest, f+"."+b.name, "must not be negative, got %d", *b.v)
		}
	}
	if lo != nil && hi != nil && *lo > *hi {
		return Errf(CodeInvalidRequest, f+"."+minName, "greater than %s (%d > %d)", maxName, *lo, *hi)
	}
	return nil
}

func validateItems(in *Input, f string) *Error {
	if in.Type != InputArray {
		if in.Items != nil {
			return Errf(CodeInvalidRequest, f+".items", "only for type array")
		}
		return checkBounds(f, "minItems", "maxItems", in.MinItems, in.MaxItems, false)
	}
	switch {
	case in.Items == nil:
		return Errf(CodeInvalidRequest, f+".items", `missing; an array input is {"type":"array","items":{"type":"string","enum":[…]}}`)
	case in.Items.Type != InputString:
		return Errf(CodeInvalidRequest, f+".items.type", `must be "string", got %q`, truncateForError(in.Items.Type))
	case len(in.Items.Enum) == 0:
		return Errf(CodeInvalidRequest, f+".items.enum", "must list at least one value")
	}
	return checkBounds(f, "minItems", "maxItems", in.MinItems, in.MaxItems, true)
}

// validateInputOptions checks that the options and multiSelect agree with
// the input: an enum's options are its values in order (descriptions may be
// added), a typed value has no options to pick from.
func validateInputOptions(q Question, qf string) *Error {
	in := q.Input
	ch := in.choices()
	if in.Type == InputArray && !q.IsMulti() {
		return Errf(CodeInvalidRequest, qf+".multiSelect", "must be true for an input of type array")
	}
	if in.Type != InputArray && q.IsMulti() {
		return Errf(CodeInvalidRequest, qf+".multiSelect", "only for an input of type array")
	}
	if len(ch) == 0 {
		if len(q.Options) > 0 {
			return Errf(CodeInvalidRequest, qf+".options", "not with an input of type %s (the answer is typed); use input.enum for choices", in.Type)
		}
		return nil
	}
	if len(q.Options) != len(ch) {
		return Errf(CodeInvalidRequest, qf+".options", "must be the input's %d values, got %d options", len(ch), len(q.Options))
	}
	for i, o := range q.Options {
		if o.Label != ch[i] {
			return Errf(CodeInvalidRequest, fieldIndex(qf+".options", i)+".label", "must be %q, the input's value %d", truncateForError(ch[i]), i+1)
		}
	}
	return nil
}

// typedDefault normalises the input's default as an answer, so a default
// that breaks the rule is refused with the request.
func typedDefault(q Question) (Answer, error) {
	a, _, err := NormalizeAnswer(ApplyInput(q), q.Input.Default)
	return a, err
}

// DefaultText is the input's default as a view pre-fills it: the text for a
// typed value, the label of an option. "" when none.
func DefaultText(q Question) string {
	if q.Input == nil || isNull(q.Input.Default) {
		return ""
	}
	a, err := typedDefault(q)
	if err != nil {
		return ""
	}
	return a.Answer.Text
}

// DefaultLabels is the input's default as labels of q's options: one for an
// enum or boolean, several for an array. nil when none.
func DefaultLabels(q Question) []string {
	if q.Input == nil || isNull(q.Input.Default) {
		return nil
	}
	a, err := typedDefault(q)
	if err != nil {
		return nil
	}
	if a.Answer.IsList {
		return a.SelectedOptions
	}
	if a.SelectedOption != "" {
		return []string{a.SelectedOption}
	}
	return nil
}

// RuleError is an answer that breaks its question's input rule: shaped well
// enough to keep as a draft, but not to send.
type RuleError struct {
	Rule    string // the whole rule, as views show it
	Problem string // what is wrong with this answer
}

func (e *RuleError) Error() string { return e.Problem + " (rule: " + e.Rule + ")" }

// Rule describes the input's rule in words, for every surface to show:
// "a whole number from 1 to 10", "an email address, at most 80 characters".
func (in *Input) Rule() string {
	if in == nil {
		return ""
	}
	var parts []string
	switch in.Type {
	case InputString:
		parts = stringRule(in)
	case InputNumber, InputInteger:
		parts = []string{numberRule(in)}
	case InputBoolean:
		parts = []string{"Yes or No"}
	case InputArray:
		parts = arrayRule(in)
	}
	if !in.IsRequired() {
		parts = append(parts, "optional (may be left empty)")
	}
	return strings.Join(parts, "; ")
}

// stringRule is a string input's rule in words, one part per constraint.
func stringRule(in *Input) []string {
	if len(in.Enum) > 0 {
		return []string{"one of: " + strings.Join(in.Enum, ", ")}
	}
	parts := []string{formatNoun(in.Format)}
	if s := countRange(in.MinLength, in.MaxLength, "character", "characters"); s != "" {
		parts = append(parts, s)
	}
	if in.Pattern != "" {
		parts = append(parts, "matching /"+in.Pattern+"/")
	}
	return parts
}

// numberRule is a number or integer input's rule in words.
func numberRule(in *Input) string {
	noun := "a number"
	if in.Type == InputInteger {
		noun = "a whole number"
	}
	switch {
	case in.Minimum != nil && in.Maximum != nil:
		return noun + " from " + fmtNum(*in.Minimum) + " to " + fmtNum(*in.Maximum)
	case in.Minimum != nil:
		return noun + " ≥ " + fmtNum(*in.Minimum)
	case in.Maximum != nil:
		return noun + " ≤ " + fmtNum(*in.Maximum)
	}
	return noun
}

// arrayRule is an array input's rule in words, one part per constraint.
func arrayRule(in *Input) []string {
	var enum []string
	if in.Items != nil {
		enum = in.Items.Enum
	}
	parts := []string{"any of: " + strings.Join(enum, ", ")}
	if s := countRange(in.MinItems, in.MaxItems, "choice", "choices"); s != "" {
		parts = append(parts, s)
	}
	return parts
}

func formatNoun(format string) string {
	switch format {
	case FormatEmail:
		return "an email address"
	case FormatURI:
		return "a URI such as https://example.com/"
	case FormatDate:
		return "a date, YYYY-MM-DD"
	case FormatDateTime:
		return "a date and time, RFC 3339 (2026-11-21T21:00:00Z)"
	}
	return "text"
}

func countRange(lo, hi *int, one, many string) string {
	switch {
	case lo != nil && hi != nil && *lo == *hi:
		return fmt.Sprintf("exactly %d %s", *lo, plural(*lo, one, many))
	case lo != nil && hi != nil:
		return fmt.Sprintf("%d to %d %s", *lo, *hi, many)
	case lo != nil && *lo > 0:
		return fmt.Sprintf("at least %d %s", *lo, plural(*lo, one, many))
	case hi != nil:
		return fmt.Sprintf("at most %d %s", *hi, plural(*hi, one, many))
	}
	return ""
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// checkTyped holds a normalised answer to its question's input rule and
// gives it its JSON type. a is what the untyped rules made of the answer.
func checkTyped(q Question, a Answer) (Answer, error) {
	in := q.Input
	fail := func(format string, args ...any) (Answer, error) {
		return Answer{Question: q.Question}, &RuleError{Rule: in.Rule(), Problem: fmt.Sprintf(format, args...)}
	}
	switch in.Type {
	case InputString:
		if len(in.Enum) > 0 {
			if a.WasCustom {
				return fail("%q is not one of the choices", truncateForError(a.Custom))
			}
			return a, nil
		}
		if msg := stringProblem(in, a.Answer.Text); msg != "" {
			return fail("%s", msg)
		}
		return a, nil
	case InputNumber, InputInteger:
		return typedNumber(q, a, fail)
	case InputBoolean:
		if a.WasCustom {
			return fail("%q is neither Yes nor No", truncateForError(a.Custom))
		}
		v := "false"
		if a.SelectedOption == LabelYes {
			v = "true"
		}
		a.Answer = AnswerValue{Text: a.SelectedOption, JSON: json.RawMessage(v)}
		return a, nil
	case InputArray:
		if a.WasCustom {
			return fail("%q is not one of the choices", truncateForError(a.Custom))
		}
		n := len(a.SelectedOptions)
		if (in.MinItems != nil && n < *in.MinItems) || (in.MaxItems != nil && n > *in.MaxItems) {
			return fail("%d %s chosen", n, plural(n, "choice", "choices"))
		}
		return a, nil
	}
	return a, nil
}

// stringProblem is what is wrong with s under a string input's rule, "" if
// nothing.
func stringProblem(in *Input, s string) string {
	n := utf8.RuneCountInString(s)
	if in.MinLength != nil && n < *in.MinLength {
		return fmt.Sprintf("too short (%d %s)", n, plural(n, "character", "characters"))
	}
	if in.MaxLength != nil && n > *in.MaxLength {
		return fmt.Sprintf("too long (%d characters)", n)
	}
	if in.Pattern != "" {
		// Validated with the request; a pattern that no longer compiles
		// (a journal written by another version) fails closed.
		re, err := regexp.Compile(in.Pattern)
		if err != nil || !re.MatchString(s) {
			return "does not match the pattern"
		}
	}
	return formatProblem(in.Format, s)
}

// formatProblem is why s is not written in the format, "" if it is or
// there is none.
func formatProblem(format, s string) string {
	switch format {
	case FormatEmail:
		if !isEmailAddress(s) {
			return "not an email address"
		}
	case FormatURI:
		if u, err := url.Parse(s); err != nil || u.Scheme == "" || strings.ContainsAny(s, " \n\t") {
			return "not a URI with a scheme (https://…)"
		}
	case FormatDate:
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return "not a date YYYY-MM-DD"
		}
	case FormatDateTime:
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return "not an RFC 3339 date and time"
		}
	}
	return ""
}

// booleanAlias turns the ways to say yes or no that are not option labels
// (true, false, "true", "false", "y", "n") into the label, for a boolean
// question. ok is false when raw is none of them.
func booleanAlias(v any) (label string, ok bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return LabelYes, true
		}
		return LabelNo, true
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "y":
			return LabelYes, true
		case "false", "n":
			return LabelNo, true
		}
	}
	return "", false
}

// skipped is the answer to an optional question left empty: "answer": null.
func skipped(q Question) Answer {
	return Answer{Question: q.Question, Answer: AnswerValue{JSON: json.RawMessage("null")}}
}

// IsSkipped reports whether the answer is an optional question left empty.
func (v AnswerValue) IsSkipped() bool { return string(v.JSON) == "null" }
