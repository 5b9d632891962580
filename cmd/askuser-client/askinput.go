package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"askuser/internal/jsonerr"
	"askuser/socketproto"
)

// parseRequestInput reads what `ask` was given: a request object, its
// "questions" list, or (for convenience) a single question object. Errors
// read "line 3, column 14: …" for bad JSON; otherwise they are the
// protocol's own (socketproto.DecodeRequest), naming the field with its
// index ("questions[1].multiSelect") exactly as the daemon would, a
// miscased or unknown key included.
func parseRequestInput(data []byte) (socketproto.AskUserRequest, error) {
	var none socketproto.AskUserRequest
	var top json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&top); err != nil {
		return none, jsonPosError(data, err)
	}
	if dec.More() {
		return none, fmt.Errorf("%s: more than one JSON value; give one request", jsonerr.Where(data, int(dec.InputOffset())))
	}
	var req socketproto.AskUserRequest
	var perr *socketproto.Error
	switch first := top[0]; {
	case first == '[':
		req.Questions, perr = socketproto.DecodeQuestions(top)
	case first == '{' && isSingleQuestion(top):
		var q socketproto.Question
		q, perr = socketproto.DecodeQuestion(top, "questions[0]")
		req.Questions = []socketproto.Question{q}
	case first == '{':
		req, perr = socketproto.DecodeRequest(top)
	default:
		return none, fmt.Errorf("want a request object or a list of questions, got %s", jsonerr.KindAt(first))
	}
	if perr != nil {
		return none, perr
	}
	return req, nil
}

// isSingleQuestion reports whether the object obj is one question rather
// than a request: it has "question" and no "questions".
func isSingleQuestion(obj json.RawMessage) bool {
	var keys map[string]json.RawMessage
	if json.Unmarshal(obj, &keys) != nil {
		return false
	}
	_, question := keys["question"]
	_, questions := keys["questions"]
	return question && !questions
}

// jsonPosError turns encoding/json's byte offsets into line and column.
func jsonPosError(data []byte, err error) error {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		// Offset counts the bytes read, the offending one included.
		off = max(e.Offset-1, 0)
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("empty input; give a request object or a list of questions")
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: unexpected end of input", jsonerr.Where(data, len(data)))
	}
	if off < 0 {
		return err
	}
	return fmt.Errorf("%s: %v", jsonerr.Where(data, int(off)), err)
}
