package mcpserver

import (
	"context"
	"encoding/json"

	"askuser/internal/agentinput"
	"askuser/internal/agents/claudecode"
	"askuser/socketproto"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The permission_prompt tool (docs/contract.md §8, §11) serves Claude Code's
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

	var (
		decision map[string]any
		failed   *mcp.CallToolResult
		err      error
	)
	if args.ToolName == claudecode.AskTool {
		decision, failed, err = s.askUserQuestion(ctx, req, args.Input)
	} else {
		decision, failed, err = s.askPermission(ctx, req, args)
	}
	if failed != nil || err != nil {
		return failed, err
	}
	text, err := json.Marshal(decision)
	if err != nil {
		return toolError("askuser: encoding the decision: " + err.Error()), nil
	}
	// Text only: Claude Code reads the decision from the text.
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil
}

// askUserQuestion asks Claude Code's AskUserQuestion in askuser and
// allows it with the answers in its input.
func (s *server) askUserQuestion(ctx context.Context, req *mcp.CallToolRequest, input json.RawMessage) (map[string]any, *mcp.CallToolResult, error) {
	ask, perr := claudecode.Request(input, s.cfg.Limits)
	if perr != nil {
		return nil, toolError(perr.Error()), nil
	}
	resp, failed, err := s.askFor(ctx, req, ask)
	if failed != nil || err != nil {
		return nil, failed, err
	}
	updated, err := claudecode.UpdatedInput(input, ask.Questions, resp)
	if err != nil {
		return nil, toolError("input: " + err.Error()), nil
	}
	return map[string]any{"behavior": "allow", "updatedInput": updated}, nil, nil
}

// askPermission asks whether another tool may run, and decides as the
// user answered.
func (s *server) askPermission(ctx context.Context, req *mcp.CallToolRequest, args permissionPromptArgs) (map[string]any, *mcp.CallToolResult, error) {
	perm := claudecode.Permission{Tool: args.ToolName, Input: args.Input}
	ask := perm.Request()
	if perr := socketproto.ValidateRequest(ask.Request, s.cfg.Limits); perr != nil {
		return nil, toolError(perr.Error()), nil
	}
	resp, failed, err := s.askFor(ctx, req, ask)
	if failed != nil || err != nil {
		return nil, failed, err
	}
	return permissionDecision(args.Input, perm.Decide(resp)), nil, nil
}

// askFor asks in askuser for the agent that made req.
func (s *server) askFor(ctx context.Context, req *mcp.CallToolRequest, ask socketproto.AskUserRequest) (socketproto.Response, *mcp.CallToolResult, error) {
	agent, refused := s.asker(req)
	if refused != nil {
		return socketproto.Response{}, refused, nil
	}
	return s.ask(ctx, req, agent, ask)
}

// permissionDecision is the result for a tool other than AskUserQuestion:
// allow with the input unchanged, or deny with the message the model reads.
func permissionDecision(input json.RawMessage, d claudecode.PermissionDecision) map[string]any {
	if !d.Allow {
		return map[string]any{"behavior": "deny", "message": d.Message}
	}
	var in any
	if json.Unmarshal(input, &in) != nil || in == nil {
		in = map[string]any{}
	}
	return map[string]any{"behavior": "allow", "updatedInput": in}
}
