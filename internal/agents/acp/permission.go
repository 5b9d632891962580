package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"askuser/internal/agentinput"
	"askuser/socketproto"
)

// The kinds of a permission option (PermissionOptionKind).
const (
	KindAllowOnce    = "allow_once"
	KindAllowAlways  = "allow_always"
	KindRejectOnce   = "reject_once"
	KindRejectAlways = "reject_always"
)

// RuleAgent is the kind of agent (docs/contract.md §13 "permission.agent")
// of every prompt the proxy marks, whichever agent it runs: the prompt's
// shape is ACP's, and so is what a rule reads of it. RuleTool is the tool:
// ACP's tool kind for running a command.
const (
	RuleAgent = "acp"
	RuleTool  = "execute"
)

// PermissionParams is session/request_permission's params.
type PermissionParams struct {
	SessionID string             `json:"sessionId"`
	ToolCall  ToolCall           `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
}

// ToolCall is the tool call a permission is asked for (ToolCallUpdate).
type ToolCall struct {
	ToolCallID string            `json:"toolCallId"`
	Title      string            `json:"title"`
	Kind       string            `json:"kind"`
	Content    []ToolCallContent `json:"content"`
	Locations  []Location        `json:"locations"`
	RawInput   json.RawMessage   `json:"rawInput"`
}

// Merge is the tool call as known after update u, a ToolCallUpdate of the
// same call: what u says replaces what was known (ACP's rule for
// tool_call_update; a permission request's toolCall is one too, and
// adapters leave out what the tool_call notification already said).
func (t ToolCall) Merge(u ToolCall) ToolCall {
	if u.Title != "" {
		t.Title = u.Title
	}
	if u.Kind != "" {
		t.Kind = u.Kind
	}
	if u.Content != nil {
		t.Content = u.Content
	}
	if u.Locations != nil {
		t.Locations = u.Locations
	}
	if len(u.RawInput) > 0 && string(u.RawInput) != "null" {
		t.RawInput = u.RawInput
	}
	if u.ToolCallID != "" {
		t.ToolCallID = u.ToolCallID
	}
	return t
}

// ToolCallNote is a session/update notification about a tool call
// (sessionUpdate "tool_call" or "tool_call_update").
type ToolCallNote struct {
	SessionID string `json:"sessionId"`
	Update    struct {
		SessionUpdate string `json:"sessionUpdate"`
		Status        string `json:"status"`
		ToolCall
	} `json:"update"`
}

// Finished reports whether the call is over: no permission can be asked
// for it any more.
func (n ToolCallNote) Finished() bool {
	return n.Update.Status == "completed" || n.Update.Status == "failed"
}

// ToolCallContent is one piece of a tool call's content: a content block,
// a diff or a terminal.
type ToolCallContent struct {
	Type       string          `json:"type"`
	Content    json.RawMessage `json:"content"`
	Path       string          `json:"path"`
	OldText    *string         `json:"oldText"`
	NewText    string          `json:"newText"`
	TerminalID string          `json:"terminalId"`
}

// Location is a file a tool call reads or changes.
type Location struct {
	Path string `json:"path"`
	Line *int64 `json:"line"`
}

// PermissionOption is one of the agent's answers.
type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

// Permission is one permission request as askuser asks it: the request
// itself, and the label each of the agent's options got, in order.
type Permission struct {
	Params PermissionParams
	Labels []string
}

// Prompt is a permission request for the question built from it; who asks
// and where is the caller's (Request).
func Prompt(p PermissionParams) (Permission, error) {
	if len(p.Options) == 0 {
		return Permission{}, fmt.Errorf("options: the agent offers no answer")
	}
	seen := map[string]bool{}
	labels := make([]string, len(p.Options))
	for i, o := range p.Options {
		if o.OptionID == "" {
			return Permission{}, fmt.Errorf("options[%d].optionId: empty", i)
		}
		label := agentinput.Printable(o.Name, socketproto.MaxLabelChars-8)
		if label == "" {
			label = agentinput.Printable(o.OptionID, socketproto.MaxLabelChars-8)
		}
		if label == "" || strings.HasPrefix(label, socketproto.RememberPrefix) {
			label = fmt.Sprintf("Option %d: %s", i+1, label)
		}
		for n := 2; seen[label]; n++ {
			label = fmt.Sprintf("%s (%d)", strings.TrimSuffix(label, fmt.Sprintf(" (%d)", n-1)), n)
		}
		seen[label] = true
		labels[i] = label
	}
	return Permission{Params: p, Labels: labels}, nil
}

// Request is the question askuser asks: the tool call's title, its kind in
// the header, and the agent's options in the agent's order under their own
// names. Every option that allows (allow_once, allow_always) approves the
// preview, which holds everything the call will do, whole (Preview). A
// call that runs one command, and holds nothing but the command and the
// model's description of it, is marked for remembered decisions
// (docs/contract.md §13): its preview is then exactly that input, which the
// daemon reads the command from.
func (p Permission) Request(agentName string) socketproto.AskUserRequest {
	tc := p.Params.ToolCall
	preview, marked := p.Preview()
	opts := make([]socketproto.Option, len(p.Params.Options))
	allowOnce := ""
	for i, o := range p.Params.Options {
		opts[i] = socketproto.Option{Label: p.Labels[i], Description: describeKind(o.Kind)}
		if o.Kind == KindAllowOnce || o.Kind == KindAllowAlways {
			opts[i].Preview, opts[i].ApprovesPreview = preview, true
		}
		if o.Kind == KindAllowOnce && allowOnce == "" {
			allowOnce = p.Labels[i]
		}
	}
	title := agentinput.Printable(tc.Title, 600)
	if title == "" {
		title = "a tool call"
	}
	who := agentinput.Printable(agentName, 200)
	if who == "" {
		who = "The agent"
	}
	header := "Permission"
	if k := agentinput.Printable(tc.Kind, 20); k != "" {
		header += ": " + k
	}
	multi := false
	req := socketproto.AskUserRequest{Request: socketproto.Request{
		Tool: socketproto.ToolAskUser,
		Questions: []socketproto.Question{{
			Question:    who + " asks permission: " + title,
			Header:      header,
			MultiSelect: &multi,
			Options:     opts,
		}},
	}}
	if marked && allowOnce != "" {
		req.Permission = &socketproto.PermissionPrompt{Agent: RuleAgent, Tool: RuleTool, Allow: allowOnce}
	}
	return req
}

func describeKind(kind string) string {
	switch kind {
	case KindAllowOnce:
		return "Allow this call, this once"
	case KindAllowAlways:
		return "Allow this call, and the agent stops asking for calls like it"
	case KindRejectOnce:
		return "Do not run it this time"
	case KindRejectAlways:
		return "Do not run it, and the agent rejects calls like it from now on"
	}
	return ""
}

// Preview is what the call will do, whole: for one shell command whose input
// holds nothing else, that input ({"command", "description"?}, marked true);
// otherwise the input, each diff's old and new text, the command of a
// terminal and the files it touches, in that order.
func (p Permission) Preview() (preview string, marked bool) {
	tc := p.Params.ToolCall
	if tc.Kind == RuleTool && len(tc.Locations) == 0 {
		if in, desc, ok := commandInput(tc.RawInput); ok && onlySays(tc.Content, desc) {
			return in, true
		}
	}
	var b strings.Builder
	if t := strings.TrimSpace(tc.Title); t != "" {
		fmt.Fprintf(&b, "%s\n", visible(t))
	}
	if k := tc.Kind; k != "" {
		fmt.Fprintf(&b, "kind: %s\n", visible(k))
	}
	if in := bytes.TrimSpace(tc.RawInput); len(in) > 0 && string(in) != "null" {
		fmt.Fprintf(&b, "\ninput:\n%s\n", indentJSON(in))
	}
	for _, c := range tc.Content {
		switch c.Type {
		case "content":
			fmt.Fprintf(&b, "\n%s\n", blockText(c.Content))
		case "diff":
			fmt.Fprintf(&b, "\ndiff of %s:\n", visible(c.Path))
			if c.OldText == nil {
				b.WriteString("--- (a new file)\n")
			} else {
				fmt.Fprintf(&b, "--- before\n%s\n", visible(*c.OldText))
			}
			fmt.Fprintf(&b, "+++ after\n%s\n", visible(c.NewText))
		case "terminal":
			fmt.Fprintf(&b, "\nterminal %s\n", visible(c.TerminalID))
		}
	}
	if len(tc.Locations) > 0 {
		b.WriteString("\nfiles:\n")
		for _, l := range tc.Locations {
			if l.Line != nil {
				fmt.Fprintf(&b, "  %s:%d\n", visible(l.Path), *l.Line)
			} else {
				fmt.Fprintf(&b, "  %s\n", visible(l.Path))
			}
		}
	}
	out := strings.TrimSpace(b.String())
	if out == "" {
		out = "(the agent says nothing of what the call does)"
	}
	return out, false
}

// onlySays reports whether the call's content is at most text saying desc
// (an adapter shows the model's description of the command so): nothing the
// input does not already hold.
func onlySays(cs []ToolCallContent, desc string) bool {
	for _, c := range cs {
		var block struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if c.Type != "content" || json.Unmarshal(c.Content, &block) != nil || block.Type != "text" || strings.TrimSpace(block.Text) != strings.TrimSpace(desc) {
			return false
		}
	}
	return true
}

// blockText is a content block as the preview shows it: a text's text, and
// of anything else what it is and where it points.
func blockText(raw json.RawMessage) string {
	var block struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		URI      string `json:"uri"`
		MimeType string `json:"mimeType"`
		Resource struct {
			URI  string `json:"uri"`
			Text string `json:"text"`
		} `json:"resource"`
	}
	if json.Unmarshal(raw, &block) != nil {
		return indentJSON(raw)
	}
	switch block.Type {
	case "text":
		return visible(block.Text)
	case "resource_link":
		return "(a link to " + visible(block.URI) + ")"
	case "resource":
		return "(" + visible(block.Resource.URI) + ")\n" + visible(block.Resource.Text)
	}
	return "(" + visible(block.Type) + " " + visible(block.MimeType) + ")"
}

// commandInput is raw, indented, when it is one command as a string and at
// most the model's description of it, both strings: the form a rule reads
// (executeCommand).
func commandInput(raw json.RawMessage) (input, description string, ok bool) {
	var in map[string]json.RawMessage
	if json.Unmarshal(raw, &in) != nil || in == nil {
		return "", "", false
	}
	for k, v := range in {
		var s string
		if (k != "command" && k != "description") || json.Unmarshal(v, &s) != nil {
			return "", "", false
		}
	}
	var cmd string
	if json.Unmarshal(in["command"], &cmd) != nil || strings.TrimSpace(cmd) == "" {
		return "", "", false
	}
	_ = json.Unmarshal(in["description"], &description)
	return indentJSON(raw), description, true
}

// indentJSON is raw indented, with its numbers as written and without
// HTML escapes ("a > b" stays so); JSON escapes every control character,
// which a preview may not hold.
func indentJSON(raw json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return visible(string(raw))
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if enc.Encode(v) != nil {
		return visible(string(raw))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// visible is s as a preview may hold it: as it is when it holds no control
// character but newlines and tabs and is UTF-8; otherwise quoted as Go
// quotes a string, so that every byte is still shown.
func visible(s string) string {
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return strconv.Quote(s)
		}
	}
	return s
}

// Outcome is the agent's answer to what the user answered in askuser: the
// option chosen. A decline, or text typed instead of a choice, is the
// agent's first reject_once (else reject_always) option, so the call does
// not run; with none of those it is a cancellation. Why is for the log.
func (p Permission) Outcome(resp socketproto.Response) (o Outcome, why string) {
	if resp.Answered && len(resp.Answers) > 0 {
		chosen := resp.Answers[0].SelectedOption
		for i, l := range p.Labels {
			if chosen != "" && chosen == l {
				return Selected(p.Params.Options[i].OptionID), "chose " + strconv.Quote(l)
			}
		}
	}
	why = "declined"
	if resp.Answered {
		why = "answered with text, not an option"
	}
	for _, kind := range []string{KindRejectOnce, KindRejectAlways} {
		for _, opt := range p.Params.Options {
			if opt.Kind == kind {
				return Selected(opt.OptionID), why + "; the agent's " + strconv.Quote(opt.Name)
			}
		}
	}
	return Cancelled(), why + "; cancelled"
}

// Describe says in words what the editor's result chose, for the words a
// withdrawal carries (`"Allow once"`, "cancelled"); "" when it is no
// outcome.
func (p Permission) Describe(result json.RawMessage) string {
	var o Outcome
	if json.Unmarshal(result, &o) != nil || o.Outcome.Outcome == "" {
		return ""
	}
	if o.Outcome.Outcome != "selected" {
		return "cancelled"
	}
	for i, opt := range p.Params.Options {
		if opt.OptionID == o.Outcome.OptionID {
			return strconv.Quote(p.Labels[i])
		}
	}
	return "option " + strconv.Quote(agentinput.Printable(o.Outcome.OptionID, 60))
}
