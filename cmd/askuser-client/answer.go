package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"askuser/internal/shell"
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
{"selected":[…],"custom":"…","notes":"…"}.

A typed question (one with a rule: a number, a date, an email, yes/no …)
takes only an answer that keeps its rule; one that does not is refused
with the rule. "" leaves an optional typed question empty.

An option that approves its preview (a permission prompt's Allow approves
the tool's whole input) is taken only with the input seen: on a terminal,
answer prints the whole input and asks "Approve all of the above? [y/N]";
otherwise pass --digest D, the digest askuser-client show ID prints after
the input (or "previewDigest" in an --answers object).`

var answerCommand = command{
	name:     "answer",
	summary:  "answer a waiting request as the user",
	synopsis: answerSynopsis,
	daemon:   reachDaemon,
	args:     argCount{1, -1, "request ID"},
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		answersJSON := fs.String("answers", "", "the answers as a JSON list, one element per question")
		asText := fs.Bool("text", false, "send each ANSWER as typed text, never as an option's label or number")
		var digests listFlag
		fs.Var(&digests, "digest", "`D`, the digest askuser-client show ID printed after the input an approving option approves (repeatable)")
		return func(x *invocation) error {
			id, given := x.args[0], x.args[1:]
			var answers []json.RawMessage
			switch {
			case *answersJSON != "" && len(given) > 0:
				return usagef("give the answers as arguments or with --answers, not both")
			case *answersJSON != "" && *asText:
				return usagef("--text sends ANSWER arguments as text; give them as arguments, not with --answers")
			case *answersJSON != "":
				if err := json.Unmarshal([]byte(*answersJSON), &answers); err != nil {
					return usagef("--answers: %v", jsonPosError([]byte(*answersJSON), err))
				}
			case len(given) == 0:
				return usagef("no answers: give one ANSWER per question, or --answers")
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
			c, err := x.client()
			if err != nil {
				return err
			}
			// The questions are fetched before sending: an approval needs
			// them, the summary too, and an answered request leaves the
			// queue. One that is not waiting is left to the daemon to
			// refuse, in its words.
			p, err := findPending(c, id)
			waiting := err == nil
			if !waiting && !errors.As(err, new(notWaiting)) {
				return err
			}
			if waiting && len(given) > len(p.Questions) {
				// `answer ID Use Redis`: the shell made two answers of one.
				n := len(p.Questions)
				meant := []string{"askuser-client answer", shell.Quote(id)}
				for _, a := range given[:n-1] {
					meant = append(meant, shell.Quote(a))
				}
				meant = append(meant, shell.Quote(strings.Join(given[n-1:], " ")))
				return fmt.Errorf("%s has %d %s, and %d answers were given: an answer with spaces goes in quotes (%s)",
					id, n, plural(n, "question", "questions"), len(given), strings.Join(meant, " "))
			}
			if waiting && len(p.Questions) == len(answers) {
				var confirm confirmFunc
				if isTerminal(x.stdin) && isTerminal(x.stderr) {
					confirm = terminalConfirm(x.stdin, x.stderr)
				}
				if answers, err = approveAnswers(p, answers, digests, confirm); err != nil {
					return err
				}
			}
			// Someone answering by hand sees what was sent; a script's
			// stderr stays quiet.
			var sent string
			if waiting && isTerminal(x.stderr) {
				sent = answerSummary(p, answers)
			}
			if err := c.Answer(context.Background(), id, answers, socketproto.ViaCLI); err != nil {
				return err
			}
			fmt.Fprint(x.stderr, sent)
			return nil
		}
	},
}

// answerSummary says what answering request p with answers sends, one line
// per question ("Sent to req-1: “Which database?” → SQLite"), or "" when
// the request's questions cannot be had.
func answerSummary(p socketproto.Pending, answers []json.RawMessage) string {
	qs := p.Questions
	if len(qs) != len(answers) {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Sent to %s:\n", p.RequestID)
	for i, raw := range answers {
		a, answered, err := socketproto.NormalizeAnswer(qs[i], raw)
		if err != nil || !answered {
			return ""
		}
		shown := a.Answer.Joined()
		switch {
		case a.Answer.IsList && len(a.Answer.List) == 0:
			shown = "(none of these)"
		case a.Answer.IsSkipped():
			shown = "(left empty)"
		}
		fmt.Fprintf(&b, "  “%s” → %s\n", clip(flatText(qs[i].Question), 60), clip(flatText(shown), 120))
		if a.Notes != "" {
			fmt.Fprintf(&b, "    note: %s\n", clip(flatText(a.Notes), 120))
		}
	}
	return b.String()
}
