package mcpserver

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"askuser/cmd/internal/agentinput"
	"askuser/socketproto"
)

// buildRequest turns a tool call's arguments into the request the daemon
// would accept, or the error the daemon would give, naming the field. The
// checks run here so that a model gets its mistake back at once, without a
// daemon, and with the same words as every other way of asking. schema is
// the tool's schema as parseSchema returns it.
func buildRequest(tool string, schema map[string]any, args json.RawMessage, lim socketproto.Limits) (socketproto.AskUserRequest, *socketproto.Error) {
	var none socketproto.AskUserRequest
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		return none, socketproto.Errf(socketproto.CodeInvalidRequest, "questions", "missing; give at least one question")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(args, &top); err != nil {
		return none, socketproto.Errf(socketproto.CodeInvalidRequest, "", "the arguments must be a JSON object with \"questions\" (and optionally \"metadata\")")
	}
	// Some clients pass nested arguments as JSON text ("questions": "[{…}]");
	// what the text holds is what the model meant.
	for _, k := range []string{"questions", "metadata"} {
		if v, ok := top[k]; ok {
			top[k] = agentinput.UnquoteJSON(v)
		}
	}
	if perr := checkFields(schema, top); perr != nil {
		return none, perr
	}

	line, err := json.Marshal(map[string]any{
		"type":      "ask_user_request",
		"tool":      tool,
		"questions": rawOrNull(top["questions"]),
		"metadata":  rawOrNull(top["metadata"]),
	})
	if err != nil {
		return none, socketproto.Errf(socketproto.CodeBadJSON, "", "%v", err)
	}
	msg, perr := socketproto.DecodeFromClient(line)
	if perr != nil {
		return none, perr
	}
	ask, ok := msg.(socketproto.AskUserRequest)
	if !ok {
		return none, socketproto.Errf(socketproto.CodeInvalidRequest, "", "not a question request")
	}
	if perr := socketproto.ValidateRequest(ask.Request, lim); perr != nil {
		return none, perr
	}
	return ask, nil
}

func rawOrNull(v json.RawMessage) json.RawMessage {
	if len(v) == 0 {
		return json.RawMessage("null")
	}
	return v
}

// parseSchema is a tool's schema as checkFields reads it, parsed once for
// every call of the tool; nil when it does not parse.
func parseSchema(schema json.RawMessage) map[string]any {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil
	}
	return root
}

// checkFields reports a property the tool's schema (from parseSchema) does
// not allow (additionalProperties: false), naming it the way the other rules
// name fields. The schema is the one source of which fields exist; the rest
// of its rules are ValidateRequest's, which says more than a schema
// validator. It is only read, so calls may share it.
func checkFields(root map[string]any, top map[string]json.RawMessage) *socketproto.Error {
	if root == nil {
		return nil // a broken schema is caught by the tests, not by the model
	}
	var value any
	raw, _ := json.Marshal(top)
	if err := json.Unmarshal(raw, &value); err != nil {
		return nil
	}
	return walkFields(root, root, value, "")
}

func walkFields(root, node map[string]any, value any, path string) *socketproto.Error {
	node = resolveRef(root, node)
	switch v := value.(type) {
	case map[string]any:
		props, _ := node["properties"].(map[string]any)
		closed := node["additionalProperties"] == false
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			field := k
			if path != "" {
				field = path + "." + k
			}
			sub, known := props[k].(map[string]any)
			if !known {
				if closed {
					return unknownField(field, k, props)
				}
				continue
			}
			if perr := walkFields(root, sub, v[k], field); perr != nil {
				return perr
			}
		}
	case []any:
		items, ok := node["items"].(map[string]any)
		if !ok {
			return nil
		}
		for i, elem := range v {
			if perr := walkFields(root, items, elem, path+"["+strconv.Itoa(i)+"]"); perr != nil {
				return perr
			}
		}
	}
	return nil
}

// resolveRef follows local references ("#/$defs/question") within the schema.
func resolveRef(root, node map[string]any) map[string]any {
	for range 8 { // a bound, in case of a reference cycle
		ref, ok := node["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#/") {
			return node
		}
		var cur any = root
		for _, part := range strings.Split(ref[2:], "/") {
			m, ok := cur.(map[string]any)
			if !ok {
				return node
			}
			cur = m[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")]
		}
		next, ok := cur.(map[string]any)
		if !ok {
			return node
		}
		node = next
	}
	return node
}

func unknownField(field, key string, props map[string]any) *socketproto.Error {
	names := make([]string, 0, len(props))
	for p := range props {
		if strings.EqualFold(p, key) {
			return socketproto.Errf(socketproto.CodeInvalidRequest, field, "unknown field; did you mean %q?", p)
		}
		names = append(names, strconv.Quote(p))
	}
	sort.Strings(names)
	return socketproto.Errf(socketproto.CodeInvalidRequest, field, "unknown field; allowed: %s", strings.Join(names, ", "))
}
