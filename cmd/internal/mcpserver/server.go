package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"

	"askuser/internal/agentinput"
	"askuser/socketproto"
	"askuser/socketproto/agenttool"
	"askuser/socketproto/askclient"
	"askuser/socketproto/peertrust"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// instructions tell the MCP client what the server is for; some clients
// show them to the model next to the tool descriptions.
const instructions = "askuser lets you ask the user structured questions and wait for the answer. " +
	"Use ask_user_question for 1-4 multiple-choice questions; ask_user for free-text questions, " +
	"longer option lists or more questions at once. A call blocks until the user answers; " +
	"a cancelled call means the user declined: proceed without those answers."

// Config is what one MCP server needs: where the daemon is and which rules apply.
type Config struct {
	Client   askclient.Options
	Limits   socketproto.Limits
	Subagent bool // --subagent: every call is refused
}

// server holds what the tool handlers share.
type server struct {
	cfg  Config
	base context.Context // cancelled when the process stops: calls in flight are withdrawn
	env  socketproto.Agent
	pid  string
}

// New builds the MCP server with its three tools: ask_user_question,
// ask_user and permission_prompt. Calls in flight are withdrawn when base is
// cancelled.
func New(base context.Context, cfg Config) *mcp.Server {
	s := &server{cfg: cfg, base: base, env: askclient.AgentFromEnv(), pid: strconv.Itoa(os.Getpid())}
	srv := mcp.NewServer(&mcp.Implementation{Name: "askuser", Title: "askuser", Version: socketproto.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		// Only tools, whose list never changes; no logging capability.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	for _, tool := range []string{socketproto.ToolAskUserQuestion, socketproto.ToolAskUser} {
		schema := agenttool.Schema(tool)
		// The low-level AddTool takes the schema as it is (the one
		// `askuser-client schema` prints) and leaves validation to us, so
		// that a violation is reported the way the daemon reports it.
		srv.AddTool(&mcp.Tool{
			Name:        tool,
			Title:       toolTitle(tool),
			Description: agenttool.Description(tool),
			InputSchema: schema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
		}, s.handler(tool))
	}
	srv.AddTool(&mcp.Tool{
		Name:        permissionPromptTool,
		Title:       "Ask the user for permission",
		Description: permissionPromptDescription,
		InputSchema: json.RawMessage(permissionPromptSchema),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.permissionPrompt)
	return srv
}

func ptr[T any](v T) *T { return &v }

func toolTitle(tool string) string {
	if tool == socketproto.ToolAskUserQuestion {
		return "Ask the user (multiple choice)"
	}
	return "Ask the user"
}

// handler is one tool's call: validate, ask the daemon, wait, shape the result.
func (s *server) handler(tool string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// A sub-agent hears that it may not ask before any complaint
		// about how it asked.
		agent, refused := s.asker(req)
		if refused != nil {
			return refused, nil
		}
		ask, perr := buildRequest(tool, req.Params.Arguments, s.cfg.Limits)
		if perr != nil {
			return toolError(perr.Error()), nil
		}
		resp, failed, err := s.ask(ctx, req, agent, ask)
		if failed != nil || err != nil {
			return failed, err
		}
		return toolResult(tool, resp), nil
	}
}

// asker is who asks in req (see agent), or, for a sub-agent, the tool error
// that refuses it: a sub-agent is refused whatever it asks, since its
// question belongs to its parent.
func (s *server) asker(req *mcp.CallToolRequest) (socketproto.Agent, *mcp.CallToolResult) {
	agent := s.agent(req.ClientInfo())
	if perr := socketproto.CheckSubagent(&agent); perr != nil {
		return agent, toolError(perr.Error())
	}
	return agent, nil
}

// ask asks the daemon on behalf of agent (from asker, so not a sub-agent)
// and waits for the result, with progress notifications while it waits. A
// refusal or an unreachable daemon is a tool error for the model (failed);
// a call the client cancelled is err, and its request has been withdrawn.
func (s *server) ask(ctx context.Context, req *mcp.CallToolRequest, agent socketproto.Agent, ask socketproto.AskUserRequest) (resp socketproto.Response, failed *mcp.CallToolResult, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.base, cancel)()

	ask.Agent = &agent

	prog := startProgress(ctx, req)
	resp, err = askclient.New(s.cfg.Client).Ask(ctx, ask, prog.queued)
	prog.stop()
	if err != nil {
		if s.base.Err() != nil {
			// The process was told to stop; the client may still read.
			return resp, toolError("askuser-client mcp was stopped while waiting; the question was withdrawn"), nil
		}
		if ctx.Err() != nil {
			// The MCP client cancelled the call or went away: Ask has
			// withdrawn the request, and nobody reads a result.
			return resp, nil, ctx.Err()
		}
		return resp, toolError(s.describeError(err)), nil
	}
	return resp, nil, nil
}

// agent is who asks: named after the MCP client, with an id that adds this
// process's id, so that two sessions of the same agent are two agents to the
// daemon. ASKUSER_AGENT_ID, when set, is the id instead.
func (s *server) agent(client *mcp.Implementation) socketproto.Agent {
	a := s.env
	name := ""
	if client != nil {
		name = agentinput.Printable(client.Name, socketproto.MaxAgentNameChars)
	}
	if name == "" {
		name = "mcp"
	}
	if len(a.Cwd) > socketproto.MaxAgentCwdChars {
		a.Cwd = "" // rather than refuse every call over where it runs
	}
	if a.ID == "" {
		a.ID = agentinput.Slug(name) + "-" + s.pid
	}
	if a.Name == "" {
		a.Name = name
	}
	if s.cfg.Subagent {
		a.Subagent = true
	}
	return a
}

func (s *server) describeError(err error) string {
	var perr *socketproto.Error
	switch {
	case errors.Is(err, askclient.ErrConnectionLost):
		// Checked first: a lost connection wraps the cause (a daemon that
		// could not be re-dialled, or no longer knew the request), but what
		// matters to the model is that the question is gone.
		return "the question was lost: " + err.Error() +
			"; ask again once askuserd runs ('askuserd' in a terminal, or 'askuserd serve')"
	case errors.As(err, &perr):
		return perr.Error()
	case peertrust.IsRefusal(err):
		// Someone else's socket: starting askuserd would not help.
		return "the question was not asked: " + err.Error()
	case errors.Is(err, askclient.ErrUnreachable):
		// err says where it dialled and, with autostart, why starting failed.
		hint := "run 'askuserd' in a terminal, or 'askuserd serve'"
		if !s.cfg.Client.Autostart {
			hint += " (this server does not start it: --no-autostart)"
		}
		return err.Error() + "; " + hint
	}
	return "askuser: " + err.Error()
}

// toolResult is the claude shape (ask_user_question) or the pi shape
// (ask_user), as JSON text for the model and as structured content for
// clients that read it. A cancel is a normal result, not an error: the
// model is told to carry on without the answers.
//
// Claude Code and Codex hand the model the structured content alone when a
// result has one (docs/contract.md §8), so everything the model must read is in it too:
// the summary, and for a decline the sentence that says what to do.
func toolResult(tool string, resp socketproto.Response) *mcp.CallToolResult {
	var shape map[string]any
	if tool == socketproto.ToolAskUserQuestion {
		shape = agenttool.ClaudeShape(resp)
	} else {
		shape = agenttool.PiShape(resp)
	}
	summary := resp.Summary
	if resp.Cancelled {
		summary = socketproto.DeclinedSentence
	}
	if summary != "" {
		shape["summary"] = summary
	}
	text, err := json.Marshal(shape)
	if err != nil {
		return toolError("askuser: encoding the result: " + err.Error())
	}
	content := []mcp.Content{&mcp.TextContent{Text: string(text)}}
	if resp.Cancelled {
		content = append(content, &mcp.TextContent{Text: socketproto.DeclinedSentence})
	}
	return &mcp.CallToolResult{Content: content, StructuredContent: shape}
}

// toolError is a tool error: the model sees it and can correct its call.
func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true}
}
