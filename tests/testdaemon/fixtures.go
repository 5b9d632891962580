package testdaemon

import (
	"strings"

	"askuser/socketproto"
)

// DBQuestions is the questions field of the request most tests ask: one
// single-select question with two options.
const DBQuestions = `"questions":[{"question":"Which database?","options":[{"label":"PostgreSQL"},{"label":"SQLite"}]}]`

// AskLine is an ask_user_request for DBQuestions with id; extra is inserted
// before the questions as given (e.g. `"wait":false,`).
func AskLine(id, extra string) string {
	return `{"type":"ask_user_request","requestId":"` + id + `",` + extra + DBQuestions + "}\n"
}

// AnswerLine answers the single question of request id with answer.
func AnswerLine(id, answer string) string {
	return `{"type":"answer","requestId":"` + id + `","answers":["` + answer + `"]}` + "\n"
}

// StrictAskLine is an ask_user_question request with the given questions list.
func StrictAskLine(questions string) string {
	return `{"type":"ask_user_request","tool":"ask_user_question","questions":` + questions + "}\n"
}

// StrictQuestion is one valid ask_user_question question with the given options.
func StrictQuestion(text, options string) string {
	return `{"question":"` + text + `","header":"H","multiSelect":false,"options":[` + options + `]}`
}

// Remembers is the labels of the daemon's own "Allow, and remember"
// options on a permission prompt, in order.
func Remembers(p socketproto.Pending) []string {
	var out []string
	for _, o := range p.Questions[0].Options {
		if strings.HasPrefix(o.Label, socketproto.RememberPrefix) {
			out = append(out, o.Label)
		}
	}
	return out
}

// InputKinds is each question's typed input, in order and space-separated:
// its type, "?" after an optional one, "untyped" for a question without one
// ("string integer string?").
func InputKinds(qs []socketproto.Question) string {
	kinds := make([]string, len(qs))
	for i, q := range qs {
		kinds[i] = "untyped"
		if q.Input != nil {
			kinds[i] = q.Input.Type
			if !q.Input.IsRequired() {
				kinds[i] += "?"
			}
		}
	}
	return strings.Join(kinds, " ")
}
