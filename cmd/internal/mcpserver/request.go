package mcpserver

import (
	"bytes"
	"encoding/json"
	"slices"

	"askuser/internal/agentinput"
	"askuser/socketproto"
)

// argumentKeys are what a question tool takes: its schema's properties
// (agenttool.Schema). What each question holds is the protocol's to say.
var argumentKeys = []string{"metadata", "questions"}

// buildRequest turns a tool call's arguments into the request the daemon
// would accept, or the error the daemon would give, naming the field. The
// checks run here so that a model gets its mistake back at once, without a
// daemon, and with the same words as every other way of asking: the
// questions are decoded by the protocol's own decoder, keys matched exactly.
func buildRequest(tool string, args json.RawMessage, lim socketproto.Limits) (socketproto.AskUserRequest, *socketproto.Error) {
	var none socketproto.AskUserRequest
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		return none, socketproto.Errf(socketproto.CodeInvalidRequest, "questions", "missing; give at least one question")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(args, &top); err != nil {
		return none, socketproto.Errf(socketproto.CodeInvalidRequest, "", "the arguments must be a JSON object with \"questions\" (and optionally \"metadata\")")
	}
	if perr := checkArgumentKeys(top); perr != nil {
		return none, perr
	}
	// Some clients pass nested arguments as JSON text ("questions": "[{…}]");
	// what the text holds is what the model meant.
	qs, perr := socketproto.DecodeQuestions(agentinput.UnquoteJSON(top["questions"]))
	if perr != nil {
		return none, perr
	}
	md, perr := socketproto.DecodeMetadata(agentinput.UnquoteJSON(top["metadata"]))
	if perr != nil {
		return none, perr
	}
	ask := socketproto.AskUserRequest{Request: socketproto.Request{Tool: tool, Questions: qs, Metadata: md}}
	if perr := socketproto.ValidateRequest(ask.Request, lim); perr != nil {
		return none, perr
	}
	return ask, nil
}

// checkArgumentKeys refuses an argument the tools do not take, naming the
// first in sorted order so that the same call is always told the same.
func checkArgumentKeys(top map[string]json.RawMessage) *socketproto.Error {
	var bad string
	for k := range top {
		if !slices.Contains(argumentKeys, k) && (bad == "" || k < bad) {
			bad = k
		}
	}
	if bad != "" {
		return socketproto.UnknownFieldError("", bad, argumentKeys)
	}
	return nil
}
