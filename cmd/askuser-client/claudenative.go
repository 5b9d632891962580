package main

import (
	"encoding/json"
	"fmt"

	"askuser/socketproto"
)

// Claude Code's own AskUserQuestion tool (SPEC §11), answered from askuser
// either by the PreToolUse hook (claude-hook) or by the permission_prompt MCP
// tool: both are given the tool's input and hand back the same input with an
// "answers" object, which Claude Code then shows the model as the answers.

// claudeAskTool is the name of Claude Code's native question tool.
const claudeAskTool = "AskUserQuestion"

// claudeNativeQuestion is one question as AskUserQuestion's input has it.
// Only the fields askuser shows are read; the input is handed back as given.
type claudeNativeQuestion struct {
	Question    string `json:"question"`
	Header      string `json:"header"`
	MultiSelect bool   `json:"multiSelect"`
	Options     []struct {
		Label       string `json:"label"`
		Description string `json:"description"`
		Preview     string `json:"preview"`
	} `json:"options"`
}

// claudeNativeRequest turns AskUserQuestion's input into the request to
// ask: the strict profile first, as the model meant it; when the strict
// rules refuse it (a header over 12 characters, say) the flexible one, so
// the user is still asked rather than the question lost. The error names the
// field and the rule.
func claudeNativeRequest(input json.RawMessage, lim socketproto.Limits) (socketproto.AskUserRequest, *socketproto.Error) {
	var none socketproto.AskUserRequest
	var in struct {
		Questions json.RawMessage `json:"questions"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return none, socketproto.Errf(socketproto.CodeInvalidRequest, "input", "must be AskUserQuestion's input, a JSON object with \"questions\": %v", err)
	}
	var qs []claudeNativeQuestion
	if err := json.Unmarshal(mcpUnquoteJSON(in.Questions), &qs); err != nil || len(qs) == 0 {
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

// claudeNativeInput is AskUserQuestion's input as given, plus "answers"
// (question text → the label chosen or the text typed; several labels joined
// with ", ") and, when the user wrote notes, "annotations". A decline is
// answers that say so: Claude Code shows the model answers, and a decline
// must still tell it to go on without them.
func claudeNativeInput(input json.RawMessage, qs []socketproto.Question, resp socketproto.Response) (map[string]any, error) {
	var out map[string]any
	if err := json.Unmarshal(input, &out); err != nil {
		return nil, err
	}
	if out == nil {
		out = map[string]any{}
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
	out["answers"] = answers
	if len(annotations) > 0 {
		out["annotations"] = annotations
	} else {
		delete(out, "annotations")
	}
	return out, nil
}

// Permission prompts for every other tool become a yes/no question.
const (
	permissionAllow  = "Allow"
	permissionDeny   = "Deny"
	permissionHeader = "Permission"
)

// permissionRequest is the yes/no question for a tool that wants to run: the
// tool's input, indented, is the preview beside the choices.
func permissionRequest(toolName string, input json.RawMessage) socketproto.AskUserRequest {
	name := mcpPrintable(toolName, 200)
	if name == "" {
		name = "a tool"
	}
	// Indented JSON escapes every control character, which the rules for
	// a preview refuse.
	preview := ""
	var v any
	if json.Unmarshal(input, &v) == nil {
		if b, err := json.MarshalIndent(v, "", "  "); err == nil {
			preview = string(b)
		}
	}
	if r := []rune(preview); len(r) > socketproto.MaxPreviewChars {
		// A preview holds at most this much: cut it and say so rather
		// than refuse the prompt.
		keep := socketproto.MaxPreviewChars - 60
		preview = string(r[:keep]) + fmt.Sprintf("\n… (%d more characters not shown)", len(r)-keep)
	}
	multi := false
	return socketproto.AskUserRequest{Request: socketproto.Request{
		Tool: socketproto.ToolAskUserQuestion,
		Questions: []socketproto.Question{{
			Question:    fmt.Sprintf("Allow the agent to use %s with the input shown?", name),
			Header:      permissionHeader,
			MultiSelect: &multi,
			Options: []socketproto.Option{
				{Label: permissionAllow, Description: "Run " + name + " with this input", Preview: preview},
				{Label: permissionDeny, Description: "Do not run it; the agent is told you said no", Preview: preview},
			},
		}},
	}}
}

// permissionDecision is the permission prompt's answer for a tool other than
// AskUserQuestion: allow with the input unchanged only when the user chose
// Allow; anything else denies, with the user's own words when they typed some.
func permissionDecision(toolName string, input json.RawMessage, resp socketproto.Response) map[string]any {
	name := mcpPrintable(toolName, 200)
	if resp.Cancelled || !resp.Answered || len(resp.Answers) == 0 {
		return map[string]any{"behavior": "deny",
			"message": fmt.Sprintf("The user declined to answer the permission prompt; %s was not run.", name)}
	}
	a := resp.Answers[0]
	if a.SelectedOption == permissionAllow {
		var in any
		if json.Unmarshal(input, &in) != nil || in == nil {
			in = map[string]any{}
		}
		return map[string]any{"behavior": "allow", "updatedInput": in}
	}
	msg := fmt.Sprintf("The user denied permission to use %s.", name)
	if a.Custom != "" {
		msg = fmt.Sprintf("The user did not allow %s and said: %s", name, a.Custom)
	}
	if a.Notes != "" {
		msg += " Note: " + a.Notes
	}
	return map[string]any{"behavior": "deny", "message": msg}
}
