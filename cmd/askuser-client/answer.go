package main

import (
	"encoding/json"
	"io"

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
	cf.register(fs, false)
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
	r, err := cf.resolve(false)
	if err != nil {
		return failure(stderr, "answer", err)
	}
	if _, err := callOnce(r, socketproto.AnswerRequest{RequestID: id, Answers: answers, Via: socketproto.ViaCLI}); err != nil {
		return failure(stderr, "answer", err)
	}
	return exitOK
}
