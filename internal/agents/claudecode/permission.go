package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"askuser/internal/agentinput"
	"askuser/socketproto"
	"askuser/socketproto/previewform"
)

// Claude Code's permission prompts ("Allow Bash to run `npm install`?")
// become one yes/no question in the pane, whichever way they come in: the
// PermissionRequest hook (claude-hook) or the permission_prompt MCP tool of
// `claude -p`. The hook also hands over Claude Code's own "don't ask again"
// suggestions, which become further ways to say yes.

// The fixed parts of a permission question.
const (
	PermissionAllow  = "Allow"
	PermissionDeny   = "Deny"
	permissionHeader = "Permission"
	// dontAskAgain starts the label of an option that allows and keeps one
	// of Claude Code's suggested rules.
	dontAskAgain = "Allow, and don't ask again: "
	// dontAskAgainShort starts the label of such an option whose rule is
	// too long for a label.
	dontAskAgainShort = "Allow, and don't ask again "
)

// maxSuggestions bounds the "don't ask again" choices: Claude Code offers one
// or two, and each carries the whole input and its whole rule as its preview.
const maxSuggestions = 8

// Permission is one permission prompt: the tool that wants to run, its input
// as Claude Code gave it, and Claude Code's suggested permission updates
// (permission_suggestions; none from the MCP tool), each kept byte for byte
// so that the one chosen goes back exactly as offered.
type Permission struct {
	Tool        string
	Input       json.RawMessage
	Suggestions []json.RawMessage
	// Agent is the kind of agent asking, for remembered decisions
	// (docs/contract.md §13): "claude-code" when empty, "codex" for
	// Codex's hook, which asks the same question.
	Agent string
	// Form is the form the input is drawn in (socketproto/previewform):
	// for Claude Code (Agent empty) when empty, the one of its tool named
	// Tool (PreviewForm).
	Form string
}

// PreviewForm is the form Claude Code's tool's input is drawn in: a Write
// as the file's text, an Edit or MultiEdit as a diff; "" for any other.
func PreviewForm(tool string) string {
	switch tool {
	case "Write":
		return previewform.Write
	case "Edit", "MultiEdit":
		return previewform.Edit
	}
	return ""
}

// form is the form of every preview of the prompt: each begins with the
// input. Another agent asking through this question names its own.
func (p Permission) form() string {
	if p.Form != "" || p.Agent != "" {
		return p.Form
	}
	return PreviewForm(p.Tool)
}

// PermissionDecision is what the user decided. Allow with Suggestion set is
// "allow, and don't ask again" with that suggested update; a denial carries
// the message the model reads.
type PermissionDecision struct {
	Allow      bool
	Suggestion json.RawMessage
	Message    string
}

// name is the tool's name as the pane shows it.
func (p Permission) name() string {
	if n := agentinput.Printable(p.Tool, 200); n != "" {
		return n
	}
	return "a tool"
}

// inputPreview is the tool's input, indented (indentJSON).
func (p Permission) inputPreview() string { return indentJSON(p.Input) }

// indentJSON is raw indented: indented JSON escapes every control
// character, which the rules for a preview refuse. HTML is not escaped: the
// user must read "echo hi > f && cat f", not "\u003e". Numbers keep their
// text: a float64 would show 2^63+1 as 2^63.
func indentJSON(raw json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return "{}"
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if enc.Encode(v) != nil {
		return "{}"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// suggestions are the suggestions offered as choices.
func (p Permission) suggestions() []json.RawMessage {
	if len(p.Suggestions) > maxSuggestions {
		return p.Suggestions[:maxSuggestions]
	}
	return p.Suggestions
}

// Request is the question: Allow, Deny, and one "Allow, and don't ask
// again: …" per suggestion. Every way to say yes approves the tool's whole
// input, so that input is its preview, whole, and the views take such an
// option only once all of it has been on screen (approvesPreview; docs/contract.md §6
// "Allow means seen"). An input too big for a message is refused by the
// daemon and the prompt then fails: it is never cut to fit. Up to four
// choices it is an AskUserQuestion-shaped question; more take the flexible
// profile.
func (p Permission) Request() socketproto.AskUserRequest {
	name, preview := p.name(), p.inputPreview()
	opts := []socketproto.Option{
		{Label: PermissionAllow, Description: "Run " + name + " with this input", Preview: preview, ApprovesPreview: true, PreviewForm: p.form()},
		{Label: PermissionDeny, Description: "Do not run it; the agent is told you said no"},
	}
	for _, s := range p.suggestionOptions() {
		opts = append(opts, socketproto.Option{
			Label:           s.label,
			Description:     s.description(name),
			Preview:         preview + "\n\nand from now on: " + s.rule + "\n\nthe permission update Claude Code keeps:\n" + indentJSON(s.raw),
			ApprovesPreview: true,
			PreviewForm:     p.form(),
		})
	}
	tool := socketproto.ToolAskUserQuestion
	if len(opts) > socketproto.StrictMaxOptions {
		tool = socketproto.ToolAskUser
	}
	multi := false
	agent := p.Agent
	if agent == "" {
		agent = Kind
	}
	return socketproto.AskUserRequest{Request: socketproto.Request{
		Tool: tool,
		// The mark that lets the daemon offer "Allow, and remember" and
		// answer by a rule; the rule is read from Allow's preview.
		Permission: &socketproto.PermissionPrompt{Agent: agent, Tool: p.Tool, Allow: PermissionAllow},
		Questions: []socketproto.Question{{
			Question:    fmt.Sprintf("Allow the agent to use %s with the input shown?", name),
			Header:      permissionHeader,
			MultiSelect: &multi,
			Options:     opts,
		}},
	}}
}

// suggestionOption is one "don't ask again" choice.
type suggestionOption struct {
	label string          // unique among the options
	rule  string          // what it changes, in words
	raw   json.RawMessage // the update as Claude Code offered it
}

// description says what the choice does, with the rule when it fits whole;
// a longer rule is named only as "shown": the preview holds it, never a
// piece of it cut to a limit.
func (s suggestionOption) description(name string) string {
	d := "Run " + name + " with this input, and from now on " + s.rule
	if utf8.RuneCountInString(d) <= socketproto.MaxDescriptionChars && d == agentinput.Printable(d, socketproto.MaxDescriptionChars) {
		return d
	}
	return "Run " + name + " with this input, and keep the permission update shown"
}

// suggestionOptions are the choices for the suggestions, in order. A label
// holds the rule when it fits whole; a longer rule is left to the preview
// (a label holds no piece of it cut to the limit), and the label is
// numbered. Labels that would read the same are numbered too, so an answer
// always names exactly one.
func (p Permission) suggestionOptions() []suggestionOption {
	seen := map[string]bool{PermissionAllow: true, PermissionDeny: true}
	var out []suggestionOption
	for i, raw := range p.suggestions() {
		rule := DescribeSuggestion(raw)
		label := dontAskAgain + rule
		if seen[label] {
			label += fmt.Sprintf(" (%d)", i+1)
		}
		if utf8.RuneCountInString(label) > socketproto.MaxLabelChars {
			label = fmt.Sprintf("%s(rule %d, shown in full)", dontAskAgainShort, i+1)
		}
		seen[label] = true
		out = append(out, suggestionOption{label, rule, raw})
	}
	return out
}

// Decide reads the user's answer to Request's question: allow only when the
// user chose Allow or one of the suggestions; anything else denies, with the
// user's own words when they typed some or wrote a note.
func (p Permission) Decide(resp socketproto.Response) PermissionDecision {
	name := p.name()
	if resp.Cancelled || !resp.Answered || len(resp.Answers) == 0 {
		return PermissionDecision{Message: fmt.Sprintf("The user declined to answer the permission prompt; %s was not run.", name)}
	}
	a := resp.Answers[0]
	if a.SelectedOption == PermissionAllow {
		return PermissionDecision{Allow: true}
	}
	for i, s := range p.suggestionOptions() {
		if a.SelectedOption == s.label {
			return PermissionDecision{Allow: true, Suggestion: p.Suggestions[i]}
		}
	}
	msg := fmt.Sprintf("The user denied permission to use %s.", name)
	if a.Custom != "" {
		msg = fmt.Sprintf("The user did not allow %s and said: %s", name, a.Custom)
	}
	if a.Notes != "" {
		msg += " Note: " + a.Notes
	}
	return PermissionDecision{Message: msg}
}

// permissionUpdate is the part of a suggestion (Claude Code's
// PermissionUpdate) that DescribeSuggestion reads.
type permissionUpdate struct {
	Type  string `json:"type"`
	Rules []struct {
		ToolName    string `json:"toolName"`
		RuleContent string `json:"ruleContent"`
	} `json:"rules"`
	Behavior    string   `json:"behavior"`
	Mode        string   `json:"mode"`
	Directories []string `json:"directories"`
	Destination string   `json:"destination"`
}

// DescribeSuggestion says in words what a suggested permission update does
// and where it is kept: "allow Bash(npm test:*) in this project's local
// settings". A kind it does not know is shown as its JSON, so the user still
// sees what they would agree to. Nothing is cut.
func DescribeSuggestion(raw json.RawMessage) string {
	var u permissionUpdate
	if json.Unmarshal(raw, &u) != nil {
		return compactJSON(raw)
	}
	var what string
	switch u.Type {
	case "addRules":
		what = behaviorVerb(u.Behavior) + " " + u.rules()
	case "replaceRules":
		what = "make the " + u.Behavior + " rules exactly " + u.rules()
	case "removeRules":
		what = "remove the " + u.Behavior + " rules " + u.rules()
	case "setMode":
		what = modeWords(u.Mode)
	case "addDirectories":
		what = "allow access to " + strings.Join(u.Directories, ", ")
	case "removeDirectories":
		what = "remove access to " + strings.Join(u.Directories, ", ")
	default:
		return compactJSON(raw)
	}
	if where := destinationWords(u.Destination); where != "" {
		what += " " + where
	}
	return printable(what)
}

// rules reads a rule list as Claude Code writes rules: Tool or Tool(content).
func (u permissionUpdate) rules() string {
	parts := make([]string, len(u.Rules))
	for i, r := range u.Rules {
		parts[i] = r.ToolName
		if r.RuleContent != "" {
			parts[i] += "(" + r.RuleContent + ")"
		}
	}
	return strings.Join(parts, ", ")
}

func behaviorVerb(b string) string {
	switch b {
	case "allow":
		return "allow"
	case "deny":
		return "deny"
	case "ask":
		return "always ask for"
	}
	return b
}

func modeWords(mode string) string {
	switch mode {
	case "acceptEdits":
		return "accept file edits without asking (acceptEdits mode)"
	case "bypassPermissions":
		return "allow everything without asking (bypassPermissions mode)"
	case "plan":
		return "switch to plan mode"
	case "default":
		return "ask as usual (default mode)"
	}
	return "switch to " + mode + " mode"
}

func destinationWords(d string) string {
	switch d {
	case "":
		return ""
	case "session":
		return "for this session"
	case "cliArg":
		return "for this run"
	case "localSettings":
		return "in this project's local settings (.claude/settings.local.json)"
	case "projectSettings":
		return "in this project's settings (.claude/settings.json)"
	case "userSettings":
		return "in your user settings (~/.claude/settings.json)"
	}
	return "in " + d
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			return string(b)
		}
	}
	return printable(string(raw))
}

// printable is s without control characters, and never cut: the words of a
// rule are part of what a "don't ask again" choice approves.
func printable(s string) string { return agentinput.Printable(s, math.MaxInt) }
