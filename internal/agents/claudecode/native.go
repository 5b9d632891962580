// Package claudecode is all askuser knows of Claude Code (docs/contract.md §11): its
// hooks (PreToolUse, PermissionRequest, Elicitation), their input and output
// and what claude-hook does with them (RunHook); the translation between its
// own prompts and askuser's questions — its AskUserQuestion tool, whose input
// comes back with an "answers" object by either way in (the hook and the
// permission_prompt MCP tool), and its permission prompts, one yes/no question
// (Permission) with one reading of the decision; the watch on its session
// record and transcript that tells a prompt settled in its own dialog; how a
// rule reads its Bash prompt (Shape); and what `askuser-client integrate
// claude` writes. The hook command is only flags around RunHook; the MCP
// server reads the permission prompts here.
package claudecode

import (
	"encoding/json"

	"askuser/internal/agentinput"
	"askuser/socketproto"
)

// AskTool is the name of Claude Code's native question tool.
const AskTool = "AskUserQuestion"

// nativeQuestion is one question as AskUserQuestion's input has it.
// Only the fields askuser shows are read; the input is handed back as given.
type nativeQuestion struct {
	Question    string `json:"question"`
	Header      string `json:"header"`
	MultiSelect bool   `json:"multiSelect"`
	Options     []struct {
		Label       string `json:"label"`
		Description string `json:"description"`
		Preview     string `json:"preview"`
	} `json:"options"`
}

// Request turns AskUserQuestion's input into the request to
// ask: the strict profile first, as the model meant it; when the strict
// rules refuse it (a header over 12 characters, say) the flexible one, so
// the user is still asked rather than the question lost. The error names the
// field and the rule.
func Request(input json.RawMessage, lim socketproto.Limits) (socketproto.AskUserRequest, *socketproto.Error) {
	var none socketproto.AskUserRequest
	var in struct {
		Questions json.RawMessage `json:"questions"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return none, socketproto.Errf(socketproto.CodeInvalidRequest, "input", "must be AskUserQuestion's input, a JSON object with \"questions\": %v", err)
	}
	var qs []nativeQuestion
	if err := json.Unmarshal(agentinput.UnquoteJSON(in.Questions), &qs); err != nil || len(qs) == 0 {
		return none, socketproto.Errf(socketproto.CodeInvalidRequest, "input.questions", "must be a list of at least one question")
	}
	questions := make([]socketproto.Question, len(qs))
	for i, q := range qs {
		multi := q.MultiSelect
		questions[i] = socketproto.Question{Question: q.Question, Header: q.Header, MultiSelect: &multi}
		for _, o := range q.Options {
			questions[i].Options = append(questions[i].Options, socketproto.Option{Label: o.Label, Description: o.Description, Preview: o.Preview})
		}
	}
	var first *socketproto.Error
	for _, tool := range []string{socketproto.ToolAskUserQuestion, socketproto.ToolAskUser} {
		r := socketproto.AskUserRequest{Request: socketproto.Request{Tool: tool, Questions: questions}}
		perr := socketproto.ValidateRequest(r.Request, lim)
		if perr == nil {
			return r, nil
		}
		if first == nil {
			first = perr
		}
	}
	return none, first
}

// UpdatedInput is AskUserQuestion's input as given, plus "answers"
// (question text → the label chosen or the text typed; several labels joined
// with ", ") and, when the user wrote notes, "annotations". A decline is
// answers that say so: Claude Code shows the model answers, and a decline
// must still tell it to go on without them.
//
// Every other field is handed back byte for byte: decoding it into Go values
// would round a large integer and refuse a number such as 1e400, and the
// user's answer would then be lost over a field the hook never reads.
func UpdatedInput(input json.RawMessage, qs []socketproto.Question, resp socketproto.Response) (map[string]json.RawMessage, error) {
	var out map[string]json.RawMessage
	if err := json.Unmarshal(input, &out); err != nil {
		return nil, err
	}
	if out == nil {
		out = map[string]json.RawMessage{}
	}
	answers := map[string]string{}
	annotations := map[string]any{}
	if resp.Cancelled || !resp.Answered {
		for _, q := range qs {
			answers[q.Question] = socketproto.DeclinedSentence
		}
	} else {
		for _, a := range resp.Answers {
			answers[a.Question] = a.Answer.Joined()
			if a.Notes != "" {
				annotations[a.Question] = map[string]string{"notes": a.Notes}
			}
		}
	}
	var err error
	if out["answers"], err = json.Marshal(answers); err != nil {
		return nil, err
	}
	if len(annotations) > 0 {
		if out["annotations"], err = json.Marshal(annotations); err != nil {
			return nil, err
		}
	} else {
		delete(out, "annotations")
	}
	return out, nil
}
