package mcpserver

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/socketproto/agenttool"
)

// TestSchemaKeysAreDecoded pins the tools' schemas to the protocol's
// decoder: every property a schema offers a model is a key the decoder
// takes, spelled the same, so a model that follows the schema is never told
// "unknown field"; and a miscased one is refused, as by the daemon.
func TestSchemaKeysAreDecoded(t *testing.T) {
	for _, tool := range []string{socketproto.ToolAskUser, socketproto.ToolAskUserQuestion} {
		var root map[string]any
		if err := json.Unmarshal(agenttool.Schema(tool), &root); err != nil {
			t.Fatal(err)
		}
		top := sortedKeys(schemaAt(t, root, root, "properties"))
		if !slices.Equal(top, argumentKeys) {
			t.Errorf("%s: schema's arguments %v, buildRequest takes %v", tool, top, argumentKeys)
		}
		question := schemaAt(t, root, root, "properties", "questions", "items")
		option := schemaAt(t, root, question, "properties", "options", "items")
		for _, k := range sortedKeys(schemaAt(t, root, question, "properties")) {
			if _, perr := socketproto.DecodeQuestion([]byte(`{"question":"Why?","`+k+`":null}`), "q"); perr != nil && strings.Contains(perr.Message, "unknown field") {
				t.Errorf("%s: question key %q: %v", tool, k, perr)
			}
		}
		for _, k := range sortedKeys(schemaAt(t, root, option, "properties")) {
			if _, perr := socketproto.DecodeQuestion([]byte(`{"question":"Why?","options":[{"label":"A","`+k+`":null}]}`), "q"); perr != nil && strings.Contains(perr.Message, "unknown field") {
				t.Errorf("%s: option key %q: %v", tool, k, perr)
			}
		}
	}
	args := json.RawMessage(`{"questions":[{"question":"Which?","OPTIONS":[{"label":"A"},{"label":"B"}]}]}`)
	_, perr := buildRequest(socketproto.ToolAskUser, args, socketproto.DefaultLimits())
	if perr == nil || !strings.HasPrefix(perr.Message, `questions[0].OPTIONS: unknown field; did you mean "options"?`) {
		t.Errorf("miscased key: %v", perr)
	}
	// Questions sent as JSON text are what the model meant.
	args = json.RawMessage(`{"questions":"[{\"question\":\"Why?\"}]","metadata":"{\"source\":\"x\"}"}`)
	ask, perr := buildRequest(socketproto.ToolAskUser, args, socketproto.DefaultLimits())
	if perr != nil || len(ask.Questions) != 1 || string(ask.Metadata) != `{"source":"x"}` {
		t.Errorf("quoted arguments: %+v, %v", ask, perr)
	}
}
