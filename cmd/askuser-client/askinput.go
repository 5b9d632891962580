package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"askuser/cmd/internal/textpos"
	"askuser/socketproto"
)

// Keys a request file may hold at each level. The daemon ignores unknown
// keys, so the client catches typos ("multiselect") before they silently
// change a question.
var (
	requestKeys  = keySet("type", "requestId", "tool", "questions", "metadata", "agent", "wait")
	questionKeys = keySet("question", "header", "multiSelect", "options")
	optionKeys   = keySet("label", "description", "preview", "approvesPreview")
	agentKeys    = keySet("id", "name", "cwd", "parentId", "subagent")
)

func keySet(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// parseRequestInput reads what `ask` was given: a request object, its
// "questions" list, or (for convenience) a single question object. Errors
// read "line 3, column 14: …" for bad JSON, or name the field.
func parseRequestInput(data []byte) (socketproto.AskUserRequest, error) {
	var top any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return socketproto.AskUserRequest{}, jsonPosError(data, err)
	}
	if dec.More() {
		off := dec.InputOffset()
		l, c := textpos.LineCol(data, int(off))
		return socketproto.AskUserRequest{}, fmt.Errorf("line %d, column %d: more than one JSON value; give one request", l, c)
	}
	var obj map[string]any
	switch v := top.(type) {
	case []any:
		obj = map[string]any{"questions": v}
	case map[string]any:
		obj = v
		if _, ok := v["questions"]; !ok {
			if _, ok := v["question"]; ok {
				obj = map[string]any{"questions": []any{v}}
			}
		}
	default:
		return socketproto.AskUserRequest{}, fmt.Errorf("want a request object or a list of questions, got %s", jsonKindOf(top))
	}
	if err := checkKeys(obj); err != nil {
		return socketproto.AskUserRequest{}, err
	}
	if t, ok := obj["type"]; ok && t != "ask_user_request" {
		return socketproto.AskUserRequest{}, fmt.Errorf("type: must be \"ask_user_request\" when given, got %v", t)
	}
	obj["type"] = "ask_user_request"
	line, err := json.Marshal(obj)
	if err != nil {
		return socketproto.AskUserRequest{}, err
	}
	// The protocol's own decoder names wrongly typed fields with their
	// index ("questions[1].multiSelect"), exactly as the daemon would.
	m, perr := socketproto.DecodeFromClient(line)
	if perr != nil {
		return socketproto.AskUserRequest{}, perr
	}
	return m.(socketproto.AskUserRequest), nil
}

func checkKeys(obj map[string]any) error {
	if err := unknownKeys("", obj, requestKeys); err != nil {
		return err
	}
	if a, ok := obj["agent"].(map[string]any); ok {
		if err := unknownKeys("agent", a, agentKeys); err != nil {
			return err
		}
	}
	qs, _ := obj["questions"].([]any)
	for i, q := range qs {
		qm, ok := q.(map[string]any)
		if !ok {
			continue // the decoder names it
		}
		qf := fmt.Sprintf("questions[%d]", i)
		if err := unknownKeys(qf, qm, questionKeys); err != nil {
			return err
		}
		opts, _ := qm["options"].([]any)
		for j, o := range opts {
			if om, ok := o.(map[string]any); ok {
				if err := unknownKeys(fmt.Sprintf("%s.options[%d]", qf, j), om, optionKeys); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func unknownKeys(field string, obj map[string]any, allowed map[string]bool) error {
	var bad []string
	for k := range obj {
		if !allowed[k] {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	var known []string
	for k := range allowed {
		if k != "type" {
			known = append(known, k)
		}
	}
	sort.Strings(known)
	where := field
	if where == "" {
		where = "request"
	}
	return fmt.Errorf("%s: unknown field %q (known: %s)", where, bad[0], strings.Join(known, ", "))
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
		l, c := textpos.LineCol(data, len(data))
		return fmt.Errorf("line %d, column %d: unexpected end of input", l, c)
	}
	if off < 0 {
		return err
	}
	l, c := textpos.LineCol(data, int(off))
	return fmt.Errorf("line %d, column %d: %v", l, c, err)
}

func jsonKindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
