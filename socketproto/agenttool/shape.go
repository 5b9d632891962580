package agenttool

import (
	"strings"

	"askuser/socketproto"
)

// ClaudeShape is the result as the ask_user_question tool returns it:
// {"answers": {question: answer}}, plus "annotations" with the user's notes
// and "cancelled": true when the user declined.
func ClaudeShape(r socketproto.Response) map[string]any {
	answers := make(map[string]string, len(r.Answers))
	annotations := map[string]any{}
	for _, a := range r.Answers {
		answers[a.Question] = a.Answer.Joined()
		if a.Notes != "" {
			annotations[a.Question] = map[string]string{"notes": a.Notes}
		}
	}
	out := map[string]any{"answers": answers}
	if len(annotations) > 0 {
		out["annotations"] = annotations
	}
	if r.Cancelled {
		out["cancelled"] = true
	}
	if r.ConnectionLost {
		out["connectionLost"] = true
	}
	return out
}

// PiShape is the result as the ask_user tool returns it:
// {"answered": …, "answers": [Answer…]}.
func PiShape(r socketproto.Response) map[string]any {
	answers := r.Answers
	if answers == nil {
		answers = []socketproto.Answer{}
	}
	out := map[string]any{"answered": r.Answered, "answers": answers}
	if r.Cancelled {
		out["cancelled"] = true
	}
	if r.ConnectionLost {
		out["connectionLost"] = true
	}
	return out
}

// TextShape is the result for people and shell scripts: one
// "question: answer" line per question, ending in a newline. A multi-line
// answer keeps its lines, indented by two spaces so it cannot be mistaken
// for the next question; a note follows on its own line, "  note: …"
// (docs/contract.md §7), so the answer line stays exactly the answer.
func TextShape(r socketproto.Response) string {
	if r.Cancelled {
		return socketproto.DeclinedSentence + "\n"
	}
	if !r.Answered {
		if r.ConnectionLost {
			// The summary tells a daemon never reached from one lost
			// while waiting.
			if r.Summary != "" {
				return oneLine(r.Summary) + "\n"
			}
			return "The connection to askuserd was lost before the user answered.\n"
		}
		return "The question was not answered.\n"
	}
	var b strings.Builder
	for _, a := range r.Answers {
		b.WriteString(oneLine(a.Question))
		b.WriteString(": ")
		b.WriteString(strings.ReplaceAll(a.Answer.Joined(), "\n", "\n  "))
		b.WriteString("\n")
		// The note goes on a line of its own, indented like a
		// continuation, so that a script comparing the answer line
		// still sees exactly the answer the user chose.
		if a.Notes != "" {
			b.WriteString("  note: " + oneLine(a.Notes) + "\n")
		}
	}
	return b.String()
}

// oneLine folds newlines and tabs into single spaces: a question is one line
// of the text shape.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
