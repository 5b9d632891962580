package claudecode

import (
	"encoding/json"
	"fmt"

	"askuser/internal/agentinput"
	"askuser/internal/agents/hookio"
	"askuser/internal/elicit"
	"askuser/socketproto"
)

// runElicitationHook answers an MCP server's elicitation in askuser (docs/contract.md
// §11): the form's fields as typed questions, or a URL shown (never opened)
// with the question whether the user finished there. Accepted, the content
// goes back with each field's JSON type; declined in askuser, a decline.
// Ended by a signal (Claude Code's timeout for the hook, or the elicitation
// abandoned), the question is withdrawn and the answer is a cancel.
//
// A form askuser cannot ask (a field of a kind it has no question for), or
// no daemon, prints nothing: Claude Code then does what it does without a
// hook (its own dialog; a cancel in claude -p).
func runElicitationHook(env hookio.Env, in HookInput) int {
	form, req, ok := elicitationRequest(env, in)
	if !ok {
		return hookio.ExitOK
	}
	resp, code, ok := hookAsk(env, in, req, nil)
	if !ok {
		if code != hookio.ExitOK {
			// Withdrawn: whoever still reads the output learns the
			// user never answered.
			hook.WriteOutput(env, ElicitationOutput(elicit.Cancel()))
		}
		return code
	}
	return hook.WriteOutput(env, ElicitationOutput(form.Result(resp)))
}

// elicitationRequest is the elicitation as askuser questions, checked as
// the daemon will check them; ok false (said on stderr) means askuser cannot
// ask it.
func elicitationRequest(env hookio.Env, in HookInput) (*elicit.Form, socketproto.AskUserRequest, bool) {
	fail := func(format string, args ...any) (*elicit.Form, socketproto.AskUserRequest, bool) {
		fmt.Fprintf(env.Stderr, "askuser-client claude-hook: "+format+"; Claude Code asks in its own dialog\n", args...)
		return nil, socketproto.AskUserRequest{}, false
	}
	cfg, err := env.Config()
	if err != nil {
		return fail("%v", err)
	}
	form, err := elicit.Build(elicit.Params{
		Mode:            in.Mode,
		Message:         in.Message,
		RequestedSchema: in.RequestedSchema,
		URL:             in.URL,
		ElicitationID:   in.ElicitationID,
	})
	if err != nil {
		return fail("cannot ask %s's form in askuser: %v", in.MCPServerName, err)
	}
	// The server is named beside the questions: the user should know who
	// asks before typing anything into a form.
	md, _ := json.Marshal(map[string]string{"MCP server": agentinput.Printable(in.MCPServerName, 200)})
	req := socketproto.AskUserRequest{Request: socketproto.Request{
		Tool:      socketproto.ToolAskUser,
		Questions: form.Questions,
		Metadata:  md,
	}}
	if perr := socketproto.ValidateRequest(req.Request, cfg.Limits); perr != nil {
		return fail("cannot ask %s's form in askuser: %v", in.MCPServerName, perr)
	}
	return form, req, true
}
