package socketproto

import (
	"strings"
	"time"
)

// DeclinedSentence is what an agent reads when the user declined a request.
const DeclinedSentence = "The user declined to answer; proceed without these answers."

// BuildResponse assembles the result of an answered request (docs/contract.md §3).
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
	case a.Answer.IsSkipped():
		b.WriteString("left it empty")
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
