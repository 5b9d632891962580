package socketproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// NormalizeAnswer turns what a user gave for one question — in the pane, the
// pending file or on the command line — into an Answer (docs/contract.md §3). It is the
// only place that decides what an answer means, so the three ways of
// answering cannot drift apart.
//
// raw is a JSON string, number, list, or the object
// {"selected":[labels…],"custom":"text","notes":"…"}. null, "", whitespace
// and an object with nothing selected or typed are "not answered" (answered
// false, err nil); so is [] for a single-select or free-text question. For a
// multi-select question [] (or {"selected": []}) is the answer "none of
// these". An error says why the answer cannot stand, as a sentence without a
// field name (NormalizeAnswers adds "answers[i]").
//
// What looks like a slip is refused, not guessed (docs/contract.md §3): a bare whole
// number that is not an option's position (0, or 7 for a 4-option
// question), and a multi-select list or comma-separated string of which
// some parts name options and some do not. Text that only looks like that is
// sent on purpose in the object form ({"custom": "7"}), which askuser-client
// answer --text writes. A number that is not whole (2.5) is typed text.
//
// Choices the contract leaves open, made here once:
//   - Several typed elements in a multiSelect list, none naming an option,
//     become one typed answer, joined with ", " (an Answer carries one
//     custom text).
//   - Typed text is trimmed and its CRLFs become LFs; control characters
//     other than newline and tab are refused, because answers are shown in
//     terminals and fed back to agents.
//   - A JSON number is always a position; a string is a label first and a
//     position only if no label matches, so labels "1", "2", "3" still work.
//   - A boolean is refused rather than guessed at.
//   - When two labels differ only in case, an exact match wins, else the
//     first label in option order.
//
// A question with an input (docs/contract.md §3 "Typed answers") is read by the same
// rules, then held to its input: an answer that breaks it is refused with a
// *RuleError naming the rule, and the answer carries its JSON type. An
// optional typed question given "" (or an empty object) is answered, left
// empty ("answer": null); null stays "not answered".
func NormalizeAnswer(q Question, raw json.RawMessage) (a Answer, answered bool, err error) {
	if q.Input != nil {
		return normalizeTyped(q, raw)
	}
	return normalizeUntyped(q, raw)
}

func normalizeTyped(q Question, raw json.RawMessage) (Answer, bool, error) {
	q = ApplyInput(q)
	v, ok := decodeOne(raw)
	if q.Input.Type == InputBoolean && ok {
		if label, alias := booleanAlias(v); alias {
			raw, _ = json.Marshal(label)
		}
	}
	a, answered, err := normalizeUntyped(q, raw)
	if err != nil {
		return a, false, err
	}
	if !answered {
		if ok && !q.Input.IsRequired() && isBlankGiven(v) {
			return skipped(q), true, nil
		}
		return a, false, nil
	}
	a, err = checkTyped(q, a)
	if err != nil {
		return a, false, err
	}
	return a, true, nil
}

// decodeOne decodes raw for a look before the rules read it; ok is false
// when it is no single JSON value (the rules then say why).
func decodeOne(raw json.RawMessage) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	return v, true
}

// isBlankGiven reports whether the user gave an empty answer rather than
// none: "" or whitespace, or an object with nothing selected or typed.
func isBlankGiven(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x) == ""
	case map[string]any:
		if sel, ok := x["selected"].([]any); ok && len(sel) > 0 {
			return false
		}
		c, _ := x["custom"].(string)
		t, _ := x["typing"].(string)
		checked, _ := x["checked"].([]any)
		// Text still being typed, or boxes being checked, is not an answer
		// left empty.
		return strings.TrimSpace(c) == "" && strings.TrimSpace(t) == "" && len(checked) == 0
	}
	return false
}

func normalizeUntyped(q Question, raw json.RawMessage) (a Answer, answered bool, err error) {
	a = Answer{Question: q.Question}
	sel, none, err := readSelection(q, raw)
	if none || err != nil {
		return a, false, err
	}
	if sel.custom != "" {
		if msg := textProblem(sel.custom, true); msg != "" {
			return a, false, fmt.Errorf("typed answer: %s", msg)
		}
	}
	if sel.notes != "" {
		if msg := textProblem(sel.notes, true); msg != "" {
			return a, false, fmt.Errorf("notes: %s", msg)
		}
	}
	return sel.answer(q)
}

// readSelection reads raw by the rules of docs/contract.md §3 into the
// options it chooses and the text it types; none is true when raw is no
// answer at all (empty or null).
func readSelection(q Question, raw json.RawMessage) (sel selection, none bool, err error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return sel, true, nil
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return sel, false, fmt.Errorf("not valid JSON: %v", err)
	}
	if dec.More() {
		return sel, false, errors.New("not valid JSON: more than one value")
	}
	switch x := v.(type) {
	case nil:
		return sel, true, nil
	case string:
		sel, err = fromString(q, x)
	case json.Number:
		sel, err = fromNumber(q, x)
	case []any:
		sel, err = fromList(q, x)
	case map[string]any:
		sel, err = fromObject(q, x)
	case bool:
		return sel, false, fmt.Errorf("must be a string, a number, a list or an object, got %t", x)
	default:
		return sel, false, fmt.Errorf("must be a string, a number, a list or an object")
	}
	return sel, false, err
}

// selection is an answer being built: chosen option indices plus typed text.
type selection struct {
	chosen []bool // by option index
	custom string
	typed  int // pieces of typed text joined into custom
	notes  string
	digest string // "previewDigest": the approved preview's PreviewDigest
	// noneOfThese: the user gave an empty selection on purpose ([] or
	// {"selected": []}), which a multi-select question takes as its answer.
	noneOfThese bool
}

func newSelection(q Question) selection { return selection{chosen: make([]bool, len(q.Options))} }

func (s *selection) count() int {
	n := 0
	for _, c := range s.chosen {
		if c {
			n++
		}
	}
	return n + s.typed
}

func (s *selection) addCustom(text string) {
	text = cleanTyped(text)
	if text == "" {
		return
	}
	s.typed++
	if s.custom == "" {
		s.custom = text
	} else {
		s.custom += ", " + text
	}
}

// answer renders the selection in the shape of docs/contract.md §3.
func (s selection) answer(q Question) (Answer, bool, error) {
	a := Answer{Question: q.Question, Notes: s.notes}
	n := s.count()
	if n == 0 {
		if s.noneOfThese && q.IsMulti() && len(q.Options) > 0 {
			a.SelectedOptions = []string{}
			a.Answer = AnswerValue{List: []string{}, IsList: true}
			return a, true, nil
		}
		return a, false, nil
	}
	var labels []string
	for i, c := range s.chosen {
		if c {
			labels = append(labels, q.Options[i].Label)
		}
	}
	a.Custom = s.custom
	a.WasCustom = s.custom != ""
	if q.IsMulti() {
		a.SelectedOptions = labels
		list := append([]string(nil), labels...)
		if s.custom != "" {
			list = append(list, s.custom)
		}
		a.Answer = AnswerValue{List: list, IsList: true}
		return a, true, nil
	}
	if n > 1 {
		return Answer{Question: q.Question}, false, fmt.Errorf("a single-select question takes one answer, got %d", n)
	}
	if len(labels) == 1 {
		a.SelectedOption = labels[0]
		a.Answer = AnswerValue{Text: labels[0]}
	} else {
		a.Answer = AnswerValue{Text: s.custom}
	}
	return a, true, nil
}

// cleanTyped trims typed text and turns CRLF into LF, so that an answer
// written in an editor does not end in a stray newline.
func cleanTyped(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.TrimSpace(s)
}

// matchLabel finds the option a string names: exact label, else the label
// equal ignoring case after trimming. -1 if none.
func matchLabel(q Question, s string) int {
	for i, o := range q.Options {
		if o.Label == s {
			return i
		}
	}
	t := strings.TrimSpace(s)
	if t == "" {
		return -1
	}
	for i, o := range q.Options {
		if strings.EqualFold(strings.TrimSpace(o.Label), t) {
			return i
		}
	}
	return -1
}

// element resolves one string or number against the options: an option
// index, or typed text (idx -1).
func element(q Question, v any) (idx int, text string, err error) {
	switch x := v.(type) {
	case string:
		if i := matchLabel(q, x); i >= 0 {
			return i, "", nil
		}
		if n, ok := digits(x); ok {
			return byNumber(q, n, strings.TrimSpace(x))
		}
		return -1, x, nil
	case json.Number:
		if n, ok := wholeNumber(x); ok {
			return byNumber(q, n, x.String())
		}
		return -1, x.String(), nil
	case nil:
		return -1, "", nil
	case bool:
		return -1, "", fmt.Errorf("must be a string or a number, got %t", x)
	case []any:
		return -1, "", errors.New("must be a string or a number, got a list")
	case map[string]any:
		return -1, "", errors.New("must be a string or a number, got an object")
	}
	return -1, "", errors.New("must be a string or a number")
}

// isNumber reports whether a decoded JSON value is a number or a string of
// digits: in "selected", one that names no option is refused as such.
func isNumber(v any) bool {
	switch x := v.(type) {
	case json.Number:
		return true
	case string:
		_, ok := digits(x)
		return ok
	}
	return false
}

// byNumber resolves a whole number: the option at that position. A number
// with no option there is refused when the question has options (it is
// most likely a slip); a free-text question takes it as the answer.
func byNumber(q Question, n int64, text string) (int, string, error) {
	if i, ok := optionIndex(q, n); ok {
		return i, "", nil
	}
	if len(q.Options) == 0 {
		return -1, text, nil
	}
	return -1, "", fmt.Errorf("%s is not an option number: this question has options 1 to %d; "+
		"to send %q as your own answer, use askuser-client answer --text, or {\"custom\": %q} in the pending file",
		truncateForError(text), len(q.Options), truncateForError(text), truncateForError(text))
}

// optionIndex is the index of option number n (1-based), if there is one.
func optionIndex(q Question, n int64) (int, bool) {
	if n < 1 || n > int64(len(q.Options)) {
		return -1, false
	}
	return int(n - 1), true
}

// digits reports whether s (trimmed) is a run of ASCII digits, and its value.
// Values too large for int64 are still "digits": they are out of range.
func digits(s string) (int64, bool) {
	t := strings.TrimSpace(s)
	if t == "" || len(t) > 30 {
		return 0, false
	}
	for _, c := range t {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return math.MaxInt64, true
	}
	return n, true
}

// wholeNumber accepts 3, 3.0 and 3e0 alike.
func wholeNumber(x json.Number) (int64, bool) {
	if n, err := x.Int64(); err == nil {
		return n, true
	}
	f, err := x.Float64()
	if err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
		return 0, false
	}
	if f > math.MaxInt64/2 || f < math.MinInt64/2 {
		return math.MaxInt64, true
	}
	return int64(f), true
}

func fromString(q Question, s string) (selection, error) {
	sel := newSelection(q)
	if strings.TrimSpace(s) == "" {
		return sel, nil
	}
	idx, text, err := element(q, s)
	if err != nil {
		return sel, err
	}
	if idx >= 0 {
		sel.chosen[idx] = true
		return sel, nil
	}
	if q.IsMulti() && len(q.Options) > 0 && strings.Contains(s, ",") {
		if split, ok, err := splitSelection(q, s); err != nil || ok {
			return split, err
		}
	}
	sel.addCustom(text)
	return sel, nil
}

// splitSelection reads "Authentication, 3" as a list when every part names
// an option. ok is false when no part does: then the whole string is the
// user's own answer (a sentence with commas in it). Some parts naming
// options and some not is most likely a misspelt label ("Red, Bleu"), and
// is refused rather than sent as text with Red unselected.
func splitSelection(q Question, s string) (selection, bool, error) {
	sel := newSelection(q)
	var matched, unmatched []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		idx, _, err := element(q, p)
		if err != nil {
			// A number out of range among labels: a slip like any other.
			unmatched = append(unmatched, p)
			continue
		}
		if idx < 0 {
			unmatched = append(unmatched, p)
			continue
		}
		matched = append(matched, p)
		sel.chosen[idx] = true
	}
	switch {
	case len(matched) == 0:
		return sel, false, nil
	case len(unmatched) > 0:
		return sel, false, mixedError(matched, unmatched)
	}
	return sel, true, nil
}

// mixedError refuses a multi-select answer of which some parts name options
// and some do not, naming both and the way to send text on purpose.
func mixedError(matched, unmatched []string) error {
	quote := func(parts []string) string {
		q := make([]string, len(parts))
		for i, p := range parts {
			q[i] = strconv.Quote(truncateForError(p))
		}
		return strings.Join(q, ", ")
	}
	return fmt.Errorf("%s %s no option of this question, while %s %s: check the spelling; "+
		"to send your own text beside the options, use {\"selected\": [labels…], \"custom\": \"text\"}",
		quote(unmatched), plural(len(unmatched), "names", "name"), quote(matched), plural(len(matched), "does", "do"))
}

func fromNumber(q Question, x json.Number) (selection, error) {
	sel := newSelection(q)
	idx, text, err := element(q, x)
	if err != nil {
		return sel, err
	}
	if idx >= 0 {
		sel.chosen[idx] = true
	} else {
		sel.addCustom(text)
	}
	return sel, nil
}

// fromList reads a list: each element selects an option or is typed text.
// A single-select question takes a list of exactly one answer.
func fromList(q Question, list []any) (selection, error) {
	sel := newSelection(q)
	sel.noneOfThese = len(list) == 0
	var matched, unmatched []string
	for i, e := range list {
		if s, ok := e.(string); ok && strings.TrimSpace(s) == "" {
			continue
		}
		idx, text, err := element(q, e)
		if err != nil {
			return sel, fmt.Errorf("element %d: %v", i+1, err)
		}
		if idx >= 0 {
			sel.chosen[idx] = true
			matched = append(matched, fmt.Sprint(e))
		} else {
			sel.addCustom(text)
			unmatched = append(unmatched, text)
		}
	}
	if q.IsMulti() && len(matched) > 0 && len(unmatched) > 0 {
		return sel, mixedError(matched, unmatched)
	}
	return sel, nil
}

// DraftTyping is the "typing" of a draft in the object form: text typed in
// a pane and not yet accepted, which a draft keeps beside the answer and
// which is never part of it. "" when there is none.
func DraftTyping(raw json.RawMessage) string {
	var obj struct {
		Typing string `json:"typing"`
	}
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &obj) != nil {
		return ""
	}
	return obj.Typing
}

// DraftChecked is the "checked" of a draft in the object form: the boxes of
// a multi-select question a pane checked and the user has not confirmed,
// by label (any other text is Other's). Like "typing", a draft keeps them
// beside the answer so that every surface shows the same boxes, and they
// are never part of the answer: unconfirmed boxes are no answer. nil when
// there are none.
func DraftChecked(raw json.RawMessage) []string {
	var obj struct {
		Checked []string `json:"checked"`
	}
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &obj) != nil || len(obj.Checked) == 0 {
		return nil
	}
	return obj.Checked
}

// fromObject reads {"selected":[…],"custom":"…","notes":"…"}: the form the
// pane sends, where typed text is explicit and never matched to a label.
func fromObject(q Question, obj map[string]any) (selection, error) {
	sel := newSelection(q)
	for k, v := range obj {
		if err := checkObjectKey(k, v); err != nil {
			return sel, err
		}
	}
	if err := sel.chooseFromObject(q, obj["selected"]); err != nil {
		return sel, err
	}
	switch x := obj["custom"].(type) {
	case nil:
	case string:
		sel.addCustom(x)
	default:
		return sel, errors.New("custom: must be a string")
	}
	switch x := obj["notes"].(type) {
	case nil:
	case string:
		sel.notes = cleanTyped(x)
	default:
		return sel, errors.New("notes: must be a string")
	}
	sel.digest, _ = obj["previewDigest"].(string)
	return sel, nil
}

// checkObjectKey refuses a key the object form does not have, and the keys
// that are never part of the answer when they have the wrong type.
func checkObjectKey(k string, v any) error {
	switch k {
	case "selected", "custom", "notes":
	case "previewDigest":
		if _, ok := v.(string); !ok {
			return errors.New("previewDigest: must be a string (the PreviewDigest of the preview the chosen option approves)")
		}
	case "typing":
		// Text typed in a pane and not yet accepted (a draft keeps it
		// so that closing the pane loses nothing): never part of the
		// answer.
		if _, ok := v.(string); !ok && v != nil {
			return errors.New("typing: must be a string")
		}
	case "checked":
		// Boxes checked in a pane and not confirmed: never part of
		// the answer either (DraftChecked).
		if !isLabelList(v) {
			return errors.New("checked: must be a list of option labels")
		}
	default:
		return fmt.Errorf("unknown key %q (use \"selected\", \"custom\", \"notes\" and \"previewDigest\")", truncateForError(k))
	}
	return nil
}

// isLabelList reports whether v is absent or a list of strings.
func isLabelList(v any) bool {
	if v == nil {
		return true
	}
	l, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range l {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

// chooseFromObject checks the options named by the object form's
// "selected"; an empty list is "none of these", and blank or null entries
// are skipped.
func (sel *selection) chooseFromObject(q Question, selected any) error {
	switch x := selected.(type) {
	case nil:
		return nil
	case []any:
		sel.noneOfThese = len(x) == 0
		for i, e := range x {
			if err := sel.chooseElement(q, i, e); err != nil {
				return err
			}
		}
		return nil
	default:
		return errors.New("selected: must be a list of option labels")
	}
}

// chooseElement checks the option "selected"[i] names.
func (sel *selection) chooseElement(q Question, i int, e any) error {
	if s, ok := e.(string); (ok && strings.TrimSpace(s) == "") || e == nil {
		return nil
	}
	if len(q.Options) == 0 {
		return errors.New(`selected: this question has no options; give the answer as "custom"`)
	}
	idx, _, err := element(q, e)
	if err != nil && !isNumber(e) {
		return fmt.Errorf("selected[%d]: %v", i, err)
	}
	if idx < 0 {
		return fmt.Errorf("selected[%d]: %q is not an option of this question", i, truncateForError(fmt.Sprint(e)))
	}
	sel.chosen[idx] = true
	return nil
}

// NormalizeAnswers normalises a whole answer message: one answer per
// question, every one answered (a request is answered atomically). It is
// the daemon taking a submission, so it also holds every choice of an
// option that approves its preview to that preview's digest (CheckApproval,
// docs/contract.md §6 "Allow means seen"); NormalizeAnswer alone, which
// surfaces use to read drafts, does not.
func NormalizeAnswers(qs []Question, raws []json.RawMessage) ([]Answer, *Error) {
	if len(raws) != len(qs) {
		return nil, Errf(CodeInvalidAnswer, "answers", "need %d %s, one per question, got %d", len(qs), plural(len(qs), "answer", "answers"), len(raws))
	}
	out := make([]Answer, len(qs))
	for i, q := range qs {
		f := fieldIndex("answers", i)
		a, ok, err := NormalizeAnswer(q, raws[i])
		if err != nil {
			return nil, Errf(CodeInvalidAnswer, f, "%s", err.Error())
		}
		if err := CheckApproval(q, raws[i]); err != nil {
			return nil, Errf(CodeInvalidAnswer, f+".previewDigest", "%s", err.Error())
		}
		if !ok && !q.Input.IsRequired() {
			a = skipped(q) // optional, left empty
		} else if !ok {
			return nil, Errf(CodeInvalidAnswer, f, "not answered; every question needs an answer")
		}
		out[i] = a
	}
	return out, nil
}
