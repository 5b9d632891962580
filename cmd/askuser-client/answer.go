package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"askuser/socketproto"
)

const answerSynopsis = `answer ID ANSWER... [flags]
       answer ID --answers '["PostgreSQL (Recommended)", "order-processor"]'

One ANSWER per question, in order: an option's label, its number, or your own
text; for a multiSelect question, labels joined with commas. Put -- before
answers that start with "-". --answers takes a JSON list whose elements may
also be lists or {"selected":[…],"custom":"…","notes":"…"}.`

func runAnswer(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var cf connFlags
	fs := newFlags("answer", answerSynopsis, stderr)
	cf.Register(fs, false)
	answersJSON := fs.String("answers", "", "the answers as a JSON list, one element per question")
	pos, code := parseArgs(fs, args, stdout)
	if code != nil {
		return *code
	}
	if len(pos) == 0 {
		return usageError(fs, stderr, "want a request ID")
	}
	id, given := pos[0], pos[1:]
	var answers []json.RawMessage
	switch {
	case *answersJSON != "" && len(given) > 0:
		return usageError(fs, stderr, "give the answers as arguments or with --answers, not both")
	case *answersJSON != "":
		if err := json.Unmarshal([]byte(*answersJSON), &answers); err != nil {
			return usageError(fs, stderr, "--answers: %v", jsonPosError([]byte(*answersJSON), err))
		}
	case len(given) == 0:
		return usageError(fs, stderr, "no answers: give one ANSWER per question, or --answers")
	default:
		for _, a := range given {
			b, _ := json.Marshal(a)
			answers = append(answers, b)
		}
	}
	r, err := cf.Resolve(false)
	if err != nil {
		return failure(stderr, "answer", err)
	}
	notes := numbersTakenAsText(r, id, answers)
	// Someone answering by hand sees what was sent; a script's stderr
	// stays quiet. The questions are fetched before sending, since an
	// answered request leaves the queue.
	var sent string
	if isTerminal(stderr) {
		sent = answerSummary(r, id, answers)
	}
	if _, err := callOnce(r, socketproto.AnswerRequest{RequestID: id, Answers: answers, Via: socketproto.ViaCLI}); err != nil {
		return failure(stderr, "answer", err)
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "askuser-client answer: %s\n", n)
	}
	if sent != "" {
		fmt.Fprint(stderr, sent)
	}
	return exitOK
}

// answerSummary says what answering request id with answers sends, one line
// per question ("Sent to req-1: “Which database?” → SQLite"), or "" when
// the request's questions cannot be had.
func answerSummary(r resolved, id string, answers []json.RawMessage) string {
	pending, err := fetchPending(r)
	if err != nil {
		return ""
	}
	i := slices.IndexFunc(pending, func(p socketproto.Pending) bool { return p.RequestID == id })
	if i < 0 {
		return ""
	}
	qs := pending[i].Questions
	if len(qs) != len(answers) {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Sent to %s:\n", id)
	for i, raw := range answers {
		a, answered, err := socketproto.NormalizeAnswer(qs[i], raw)
		if err != nil || !answered {
			return ""
		}
		fmt.Fprintf(&b, "  “%s” → %s\n", clip(flatText(qs[i].Question), 60), clip(flatText(a.Answer.Joined()), 120))
		if a.Notes != "" {
			fmt.Fprintf(&b, "    note: %s\n", clip(flatText(a.Notes), 120))
		}
	}
	return b.String()
}

// numbersTakenAsText says which answers look like an option number but are
// none of their question's, and so were sent as typed text (SPEC §3): "5" for
// a question with two options is most likely a slip the user should see. The
// request's questions are asked for only when some answer is a whole number;
// when they cannot be had, nothing is said and the answer goes as given.
func numbersTakenAsText(r resolved, id string, answers []json.RawMessage) []string {
	if !slices.ContainsFunc(answers, isWholeNumber) {
		return nil
	}
	pending, err := fetchPending(r)
	if err != nil {
		return nil
	}
	i := slices.IndexFunc(pending, func(p socketproto.Pending) bool { return p.RequestID == id })
	if i < 0 {
		return nil
	}
	qs := pending[i].Questions
	var notes []string
	for i, raw := range answers {
		if i >= len(qs) || len(qs[i].Options) == 0 || !isWholeNumber(raw) {
			continue
		}
		a, answered, err := socketproto.NormalizeAnswer(qs[i], raw)
		if err != nil || !answered || !a.WasCustom {
			continue
		}
		notes = append(notes, fmt.Sprintf("%s is not an option number of question %d (%q has options 1 to %d); it was sent as typed text",
			a.Custom, i+1, clip(qs[i].Question, 60), len(qs[i].Options)))
	}
	return notes
}

// isWholeNumber reports whether an answer is a whole number, as a JSON number
// or as text.
func isWholeNumber(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	var s string
	switch v := v.(type) {
	case float64:
		s = string(bytes.TrimSpace(raw))
	case string:
		s = strings.TrimSpace(v)
	default:
		return false
	}
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0
}
