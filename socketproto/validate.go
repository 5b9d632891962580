package socketproto

import (
	"askuser/socketproto/previewform"

	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"
)

// Agent string limits: long enough for any real path or name, short enough
// that a runaway agent cannot fill the pane's title line with megabytes.
const (
	MaxAgentIDChars   = 200
	MaxAgentNameChars = 200
	MaxAgentCwdChars  = 4096
)

// profile holds the bounds one tool imposes (docs/contract.md §3, "Two tool profiles").
type profile struct {
	tool                       string
	minQuestions, maxQuestions int
	minOptions, maxOptions     int
	headerRequired             bool
	maxHeader                  int
	multiSelectRequired        bool
}

func profileFor(tool string, lim Limits) (profile, *Error) {
	def := DefaultLimits()
	maxQ, maxO := lim.MaxQuestionsHard, lim.MaxOptionsHard
	if maxQ <= 0 {
		maxQ = def.MaxQuestionsHard
	}
	if maxO <= 0 {
		maxO = def.MaxOptionsHard
	}
	switch tool {
	case "", ToolAskUser:
		return profile{tool: ToolAskUser, minQuestions: 1, maxQuestions: maxQ, minOptions: 0, maxOptions: maxO, maxHeader: FlexibleMaxHeader}, nil
	case ToolAskUserQuestion:
		return profile{
			tool: ToolAskUserQuestion, minQuestions: StrictMinQuestions, maxQuestions: StrictMaxQuestions,
			minOptions: StrictMinOptions, maxOptions: StrictMaxOptions,
			headerRequired: true, maxHeader: StrictMaxHeader, multiSelectRequired: true,
		}, nil
	}
	return profile{}, Errf(CodeInvalidRequest, "tool", "must be %q or %q, got %q", ToolAskUser, ToolAskUserQuestion, truncateForError(tool))
}

// ValidateRequest applies the rules of docs/contract.md §3 for the request's tool profile.
// It reports the first broken rule as invalid_request naming the field, so a
// request is refused as a whole and nothing of it is queued. It does not look
// at agent.subagent: CheckSubagent answers that separately, because it is a
// different refusal with its own code.
func ValidateRequest(r Request, lim Limits) *Error {
	p, err := profileFor(r.Tool, lim)
	if err != nil {
		return err
	}
	if err := checkRequestID("requestId", r.RequestID, false); err != nil {
		return err
	}
	n := len(r.Questions)
	if n < p.minQuestions || n > p.maxQuestions {
		return Errf(CodeInvalidRequest, "questions", "need %d to %d %s, got %d", p.minQuestions, p.maxQuestions, plural(p.maxQuestions, "question", "questions"), n)
	}
	seenQ := make(map[string]int, n)
	for i, q := range r.Questions {
		qf := fieldIndex("questions", i)
		if err := validateQuestion(q, qf, p); err != nil {
			return err
		}
		key := strings.TrimSpace(q.Question)
		if first, dup := seenQ[key]; dup {
			return Errf(CodeInvalidRequest, qf+".question", "duplicate of %s.question", fieldIndex("questions", first))
		}
		seenQ[key] = i
	}
	if err := validateMetadata(r.Metadata); err != nil {
		return err
	}
	return validateAgent(r.Agent)
}

func validateQuestion(q Question, qf string, p profile) *Error {
	// A typed question is checked as views show it: with its enum (or
	// Yes / No) as options.
	q = ApplyInput(q)
	if err := checkText(qf+".question", q.Question, MaxQuestionChars, true, true); err != nil {
		return err
	}
	if p.headerRequired && q.Header == "" {
		return Errf(CodeInvalidRequest, qf+".header", "missing; the %s tool needs a short header (at most %d characters)", p.tool, p.maxHeader)
	}
	if err := checkText(qf+".header", q.Header, p.maxHeader, p.headerRequired, false); err != nil {
		return err
	}
	if p.multiSelectRequired && q.MultiSelect == nil {
		return Errf(CodeInvalidRequest, qf+".multiSelect", "missing; the %s tool needs true or false", p.tool)
	}
	if err := validateOptions(q, qf, p); err != nil {
		return err
	}
	if q.Input != nil {
		return validateInput(q, qf)
	}
	return nil
}

// validateOptions checks how many options the question has for its tool,
// and each option's texts; no two labels may be the same.
func validateOptions(q Question, qf string, p profile) *Error {
	no := len(q.Options)
	if no < p.minOptions || no > p.maxOptions {
		if p.minOptions == 0 {
			return Errf(CodeInvalidRequest, qf+".options", "at most %d options, got %d", p.maxOptions, no)
		}
		return Errf(CodeInvalidRequest, qf+".options", "need %d to %d options, got %d", p.minOptions, p.maxOptions, no)
	}
	seenL := make(map[string]int, no)
	for j, o := range q.Options {
		of := fieldIndex(qf+".options", j)
		if err := validateOption(o, of, q.IsMulti()); err != nil {
			return err
		}
		// Labels are compared trimmed: "SQLite" and "SQLite " would look the
		// same in the pane and an answer could not tell them apart.
		key := strings.TrimSpace(o.Label)
		if first, dup := seenL[key]; dup {
			return Errf(CodeInvalidRequest, of+".label", "duplicate of %s.label", fieldIndex(qf+".options", first))
		}
		seenL[key] = j
	}
	return nil
}

// validateOption checks one option's label, description and preview.
func validateOption(o Option, of string, multi bool) *Error {
	if err := checkText(of+".label", o.Label, MaxLabelChars, true, false); err != nil {
		return err
	}
	if err := checkText(of+".description", o.Description, MaxDescriptionChars, false, true); err != nil {
		return err
	}
	return checkPreview(of, o, multi)
}

// checkText enforces the text rules shared by every string an agent sends:
// valid UTF-8, no control characters (newline and tab only where multiline is
// true), at most max characters (runes, not bytes), and non-blank if required.
// checkPreview applies the preview rules. A preview that an option approves
// (approvesPreview) is what the user consents to, so it is never cut to a
// limit (only the message size bounds it) and must be there to be seen; a
// multi-select list shows no previews, so no option there may approve one.
func checkPreview(of string, o Option, multi bool) *Error {
	if o.PreviewForm != "" && !previewform.Known(o.PreviewForm) {
		return Errf(CodeInvalidRequest, of+".previewForm", "must be \"write\", \"edit\" or \"patch\", got %q", truncateForError(o.PreviewForm))
	}
	if !o.ApprovesPreview {
		return checkText(of+".preview", o.Preview, MaxPreviewChars, false, true)
	}
	if multi {
		return Errf(CodeInvalidRequest, of+".approvesPreview", "only on a single-select question (a multi-select list shows no previews)")
	}
	if strings.TrimSpace(o.Preview) == "" {
		return Errf(CodeInvalidRequest, of+".preview", "must not be empty when approvesPreview is true (the preview is what choosing the option approves)")
	}
	return checkText(of+".preview", o.Preview, math.MaxInt, true, true)
}

func checkText(field, s string, max int, required, multiline bool) *Error {
	if required && strings.TrimSpace(s) == "" {
		return Errf(CodeInvalidRequest, field, "must not be empty")
	}
	if s == "" {
		return nil
	}
	if msg := textProblem(s, multiline); msg != "" {
		return Errf(CodeInvalidRequest, field, "%s", msg)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return Errf(CodeInvalidRequest, field, "at most %d characters, got %d", max, n)
	}
	return nil
}

// textProblem describes the first invalid byte or control character of s, or
// returns "". C0 controls, DEL and the C1 range U+0080–U+009F are refused:
// the pane prints agent text in a terminal, where ESC or CSI starts a control
// sequence the agent should not be able to send.
func textProblem(s string, multiline bool) string {
	pos := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		pos++
		if r == utf8.RuneError && size <= 1 {
			return fmt.Sprintf("not valid UTF-8 (at byte %d)", i)
		}
		if isControl(r) && !(multiline && (r == '\n' || r == '\t')) {
			return fmt.Sprintf("control character U+%04X at character %d", r, pos)
		}
		i += size
	}
	return ""
}

func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f)
}

func validateMetadata(m json.RawMessage) *Error {
	if len(m) == 0 {
		return nil
	}
	if len(m) > MaxMetadataBytes {
		return Errf(CodeInvalidRequest, "metadata", "at most %d bytes, got %d", MaxMetadataBytes, len(m))
	}
	t := bytes.TrimSpace(m)
	if bytes.Equal(t, []byte("null")) {
		return nil
	}
	var v any
	if len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &v) != nil {
		return Errf(CodeInvalidRequest, "metadata", "must be a JSON object")
	}
	return checkMetadataValue("metadata", v)
}

// checkMetadataValue walks metadata so that its strings obey the same text
// rules as everything else an agent sends: the pane shows them too.
func checkMetadataValue(field string, v any) *Error {
	switch x := v.(type) {
	case string:
		if msg := textProblem(x, false); msg != "" {
			return Errf(CodeInvalidRequest, field, "%s", msg)
		}
	case []any:
		for i, e := range x {
			if err := checkMetadataValue(fieldIndex(field, i), e); err != nil {
				return err
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the first error reported must not depend on map order
		for _, k := range keys {
			e := x[k]
			if msg := textProblem(k, false); msg != "" {
				return Errf(CodeInvalidRequest, field, "key %q: %s", truncateForError(k), msg)
			}
			if err := checkMetadataValue(field+"."+k, e); err != nil {
				return err
			}
		}
	}
	return nil
}

func validateAgent(a *Agent) *Error {
	if a == nil {
		return nil
	}
	checks := []struct {
		field string
		s     string
		max   int
	}{
		{"agent.id", a.ID, MaxAgentIDChars},
		{"agent.name", a.Name, MaxAgentNameChars},
		{"agent.cwd", a.Cwd, MaxAgentCwdChars},
		{"agent.parentId", a.ParentID, MaxAgentIDChars},
	}
	for _, c := range checks {
		if err := checkText(c.field, c.s, c.max, false, false); err != nil {
			return err
		}
	}
	return nil
}

// CheckSubagent refuses a sub-agent (docs/contract.md §4): only the parent conversation
// talks to the user, so a sub-agent's question goes back to its parent.
func CheckSubagent(a *Agent) *Error {
	if a == nil || (!a.Subagent && a.ParentID == "") {
		return nil
	}
	return &Error{Code: CodeSubagentNotAllowed, Field: "agent", Message: SubagentMessage}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
