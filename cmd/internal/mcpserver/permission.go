package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"askuser/cmd/internal/agentinput"
	"askuser/cmd/internal/claudecode"
	"askuser/socketproto"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The permission_prompt tool (SPEC §8, §11) serves Claude Code's
// --permission-prompt-tool in headless runs (claude -p): Claude Code calls it
// instead of showing a permission dialog. AskUserQuestion's questions are
// asked as they are and its call is allowed with the answers; any other
// tool becomes a yes/no question in the pane.

const permissionPromptTool = "permission_prompt"

const permissionPromptDescription = "Claude Code's permission prompt, answered by the user in askuser. " +
	"Use with: claude -p --permission-prompt-tool mcp__askuser__permission_prompt. " +
	"AskUserQuestion's questions are asked as they are; any other tool is a yes/no question (Allow / Deny) with its input shown. " +
	`The result text is {"behavior":"allow","updatedInput":{…}} or {"behavior":"deny","message":"…"}.`

const permissionPromptSchema = `{
  "type": "object",
  "properties": {
    "tool_name": {"type": "string", "description": "The tool that asks for permission"},
    "input": {"type": "object", "description": "The tool's input", "additionalProperties": true},
    "tool_use_id": {"type": "string", "description": "The tool call's id"}
  },
  "required": ["tool_name", "input"],
  "additionalProperties": true
}`

// permissionPromptArgs is what Claude Code passes.
type permissionPromptArgs struct {
	ToolName  string          `json:"tool_name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
}

func (s *server) permissionPrompt(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args permissionPromptArgs
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
		return toolError("the arguments must be a JSON object with \"tool_name\" and \"input\": " + err.Error()), nil
	}
	if args.ToolName == "" {
		return toolError("tool_name: missing; give the name of the tool that asks for permission"), nil
	}
	args.Input = agentinput.UnquoteJSON(args.Input)
	if len(args.Input) == 0 || string(args.Input) == "null" {
		args.Input = json.RawMessage("{}")
	}

	var decision map[string]any
	if args.ToolName == claudecode.AskTool {
		ask, perr := claudecode.Request(args.Input, s.cfg.Limits)
		if perr != nil {
			return toolError(perr.Error()), nil
		}
		agent, refused := s.asker(req)
		if refused != nil {
			return refused, nil
		}
		resp, failed, err := s.ask(ctx, req, agent, ask)
		if failed != nil || err != nil {
			return failed, err
		}
		updated, err := claudecode.UpdatedInput(args.Input, ask.Questions, resp)
		if err != nil {
			return toolError("input: " + err.Error()), nil
		}
		decision = map[string]any{"behavior": "allow", "updatedInput": updated}
	} else {
		ask := permissionRequest(args.ToolName, args.Input)
		if perr := socketproto.ValidateRequest(ask.Request, s.cfg.Limits); perr != nil {
			return toolError(perr.Error()), nil
		}
		agent, refused := s.asker(req)
		if refused != nil {
			return refused, nil
		}
		resp, failed, err := s.ask(ctx, req, agent, ask)
		if failed != nil || err != nil {
			return failed, err
		}
		decision = permissionDecision(args.ToolName, args.Input, resp)
	}
	text, err := json.Marshal(decision)
	if err != nil {
		return toolError("askuser: encoding the decision: " + err.Error()), nil
	}
	// Text only: Claude Code reads the decision from the text.
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil
}

// Permission prompts for every other tool become a yes/no question.
const (
	permissionAllow  = "Allow"
	permissionDeny   = "Deny"
	permissionHeader = "Permission"
)

// permissionRequest is the yes/no question for a tool that wants to run: the
// tool's input, indented, is Allow's preview, whole — Allow approves exactly
// that, so the views take Allow only once all of it has been on screen
// (approvesPreview; SPEC §6 "Allow means seen"). An input too big for a
// message is refused by the daemon, and the prompt then fails: it is never
// cut to fit.
func permissionRequest(toolName string, input json.RawMessage) socketproto.AskUserRequest {
	name := agentinput.Printable(toolName, 200)
	if name == "" {
		name = "a tool"
	}
	// Indented JSON escapes every control character, which the rules for
	// a preview refuse.
	preview := "{}"
	var v any
	if json.Unmarshal(input, &v) == nil {
		if b, err := json.MarshalIndent(v, "", "  "); err == nil {
			preview = string(b)
		}
	}
	multi := false
	return socketproto.AskUserRequest{Request: socketproto.Request{
		Tool: socketproto.ToolAskUserQuestion,
		Questions: []socketproto.Question{{
			Question:    fmt.Sprintf("Allow the agent to use %s with the input shown?", name),
			Header:      permissionHeader,
			MultiSelect: &multi,
			Options: []socketproto.Option{
				{Label: permissionAllow, Description: "Run " + name + " with this input", Preview: preview, ApprovesPreview: true},
				{Label: permissionDeny, Description: "Do not run it; the agent is told you said no"},
			},
		}},
	}}
}

// permissionDecision is the permission prompt's answer for a tool other than
// AskUserQuestion: allow with the input unchanged only when the user chose
// Allow; anything else denies, with the user's own words when they typed some.
func permissionDecision(toolName string, input json.RawMessage, resp socketproto.Response) map[string]any {
	name := agentinput.Printable(toolName, 200)
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
