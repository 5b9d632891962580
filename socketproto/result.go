package socketproto

import (
	"strings"
	"time"
)

// DeclinedSentence is what an agent reads when the user declined a request.
const DeclinedSentence = "The user declined to answer; proceed without these answers."

// BuildResponse assembles the result of an answered request (SPEC §3).
// answers are in question order, as NormalizeAnswers returns them.
func BuildResponse(requestID string, qs []Question, answers []Answer, via Via, at time.Time) Response {
	r := Response{
		RequestID:         requestID,
		Answered:          true,
		Answers:           make([]Answer, len(answers)),
		AnswersByQuestion: make(map[string]string, len(answers)),
		AnsweredVia:       via,
		AnsweredAt:        at.UTC().Truncate(time.Second),
	}
	copy(r.Answers, answers)
	sentences := make([]string, 0, len(answers))
	for i, a := range answers {
		text := a.Question
		if i < len(qs) {
			text = qs[i].Question
			r.Answers[i].Question = text
		}
		r.AnswersByQuestion[text] = a.Answer.Joined()
		sentences = append(sentences, summarize(text, a))
	}
	r.Summary = strings.Join(sentences, " ")
	return r
}

// CancelledResponse is the result of a request the user declined. Answers and
// AnswersByQuestion are empty, not null, so agents can index them blindly.
func CancelledResponse(requestID string, at time.Time) Response {
	return Response{
		RequestID:         requestID,
		Cancelled:         true,
		Answers:           []Answer{},
		AnswersByQuestion: map[string]string{},
		AnsweredAt:        at.UTC().Truncate(time.Second),
		Summary:           DeclinedSentence,
	}
}

// summarize is one plain sentence for one question, for agents that compact
// their history and keep only the summary:
// `Asked "Which features?"; the user chose Authentication, and answered "Use Redis too".`
func summarize(question string, a Answer) string {
	var chosen []string
	if a.Answer.IsList {
		chosen = a.SelectedOptions
	} else if a.SelectedOption != "" {
		chosen = []string{a.SelectedOption}
	}
	var b strings.Builder
	b.WriteString(`Asked "`)
	b.WriteString(oneLine(question))
	b.WriteString(`"; the user `)
	switch {
	case len(chosen) > 0 && a.Custom != "":
		b.WriteString("chose " + andList(chosen) + `, and answered "` + oneLine(a.Custom) + `"`)
	case len(chosen) > 0:
		b.WriteString("chose " + andList(chosen))
	case a.Custom != "":
		b.WriteString(`answered "` + oneLine(a.Custom) + `"`)
	default:
		b.WriteString(`answered "` + oneLine(a.Answer.Joined()) + `"`)
	}
	b.WriteString(".")
	if a.Notes != "" {
		b.WriteString(" Note: " + oneLine(a.Notes))
		if !strings.HasSuffix(a.Notes, ".") {
			b.WriteString(".")
		}
	}
	return b.String()
}

// andList joins "A", "A and B", "A, B and C".
func andList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// oneLine folds newlines and tabs into single spaces: a summary is prose.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// ClaudeShape is the result as the ask_user_question tool returns it:
// {"answers": {question: answer}}, plus "annotations" with the user's notes
// and "cancelled": true when the user declined.
func ClaudeShape(r Response) map[string]any {
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
func PiShape(r Response) map[string]any {
	answers := r.Answers
	if answers == nil {
		answers = []Answer{}
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
// for the next question; notes follow in parentheses.
func TextShape(r Response) string {
	if r.Cancelled {
		return DeclinedSentence + "\n"
	}
	if !r.Answered {
		if r.ConnectionLost {
			return "The connection to askuserd was lost before the user answered.\n"
		}
		return "The question was not answered.\n"
	}
	var b strings.Builder
	for _, a := range r.Answers {
		b.WriteString(oneLine(a.Question))
		b.WriteString(": ")
		b.WriteString(strings.ReplaceAll(a.Answer.Joined(), "\n", "\n  "))
		if a.Notes != "" {
			b.WriteString(" (note: " + oneLine(a.Notes) + ")")
		}
		b.WriteString("\n")
	}
	return b.String()
}
