package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"askuser/socketproto"
)

const answerSynopsis = `answer ID ANSWER... [flags]
       answer ID --text TEXT...
       answer ID --answers '["PostgreSQL (Recommended)", "order-processor"]'

One ANSWER per question, in order: an option's label, its number, or your own
text; for a multiSelect question, labels joined with commas, or [] in
--answers for "none of these". What looks like a slip is refused, not
guessed: a number with no option there, or a list of which some parts are
labels and some not. --text sends every ANSWER as your own text, exactly as
typed (a "7" that is not option 7). Put -- before answers that start with
"-". --answers takes a JSON list whose elements may also be lists or
{"selected":[…],"custom":"…","notes":"…"}.`

func runAnswer(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var cf connFlags
	fs := newFlags("answer", answerSynopsis, stderr)
	cf.Register(fs, false)
	answersJSON := fs.String("answers", "", "the answers as a JSON list, one element per question")
	asText := fs.Bool("text", false, "send each ANSWER as typed text, never as an option's label or number")
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
	case *answersJSON != "" && *asText:
		return usageError(fs, stderr, "--text sends ANSWER arguments as text; give them as arguments, not with --answers")
	case *answersJSON != "":
		if err := json.Unmarshal([]byte(*answersJSON), &answers); err != nil {
			return usageError(fs, stderr, "--answers: %v", jsonPosError([]byte(*answersJSON), err))
		}
	case len(given) == 0:
		return usageError(fs, stderr, "no answers: give one ANSWER per question, or --answers")
	default:
		for _, a := range given {
			var b []byte
			if *asText {
				b, _ = json.Marshal(map[string]string{"custom": a})
			} else {
				b, _ = json.Marshal(a)
			}
			answers = append(answers, b)
		}
	}
	r, err := cf.Resolve(false, stderr, "askuser-client answer")
	if err != nil {
		return failure(stderr, "answer", err)
	}
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
		shown := a.Answer.Joined()
		if a.Answer.IsList && len(a.Answer.List) == 0 {
			shown = "(none of these)"
		}
		fmt.Fprintf(&b, "  “%s” → %s\n", clip(flatText(qs[i].Question), 60), clip(flatText(shown), 120))
		if a.Notes != "" {
			fmt.Fprintf(&b, "    note: %s\n", clip(flatText(a.Notes), 120))
		}
	}
	return b.String()
}
