package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"askuser/socketproto"
)

// Subject is what a permission prompt would allow, in the one form every
// agent's prompt is normalised to (docs/contract.md §13): the kind of
// agent, the tool ("Bash"), the command's words and the directory it runs
// in.
type Subject struct {
	Agent   string
	Tool    string
	Words   []string
	Command string // Join(Words)
	Cwd     string
	// Allow is the option that allows once (the question's index).
	Allow int
}

// Key names the subject for counting the same input allowed the same way.
func (s Subject) Key() string { return s.Agent + "\x00" + s.Tool + "\x00" + s.Cwd + "\x00" + s.Command }

// ShellTool is the one tool rules cover, by its normalised name.
const ShellTool = "Bash"

// SubjectOf reads what req, a permission prompt, would allow, from its
// Allow option's preview: the text the user approves, so that a rule never
// answers for input it has not matched. An error says why it is none that
// a rule may remember or answer.
func SubjectOf(req socketproto.Request) (Subject, error) {
	p := req.Permission
	if p == nil {
		return Subject{}, fmt.Errorf("not a permission prompt")
	}
	if len(req.Questions) != 1 {
		return Subject{}, fmt.Errorf("a permission prompt asks one question, got %d", len(req.Questions))
	}
	q := req.Questions[0]
	allow := slices.IndexFunc(q.Options, func(o socketproto.Option) bool { return o.Label == p.Allow && o.ApprovesPreview })
	if allow < 0 {
		return Subject{}, fmt.Errorf("permission.allow: no option %q that approves its preview", p.Allow)
	}
	if req.Agent == nil || !filepath.IsAbs(req.Agent.Cwd) {
		return Subject{}, fmt.Errorf("agent.cwd: a rule needs the directory the command runs in, absolute")
	}
	preview := []byte(q.Options[allow].Preview)
	var command string
	var err error
	switch p.Agent {
	case "claude-code", "codex":
		if p.Tool != "Bash" {
			return Subject{}, fmt.Errorf("tool %q: only shell commands are remembered", p.Tool)
		}
		command, err = bashInput(preview)
	case "opencode":
		if p.Tool != "bash" {
			return Subject{}, fmt.Errorf("tool %q: only shell commands are remembered", p.Tool)
		}
		command, err = opencodeInput(preview)
	case "acp":
		if p.Tool != "execute" {
			return Subject{}, fmt.Errorf("tool %q: only shell commands are remembered", p.Tool)
		}
		command, err = acpInput(preview)
	default:
		return Subject{}, fmt.Errorf("permission.agent %q: no rules for this kind of agent", p.Agent)
	}
	if err != nil {
		return Subject{}, err
	}
	words, err := Words(command)
	if err != nil {
		return Subject{}, fmt.Errorf("the command is not remembered: %w", err)
	}
	return Subject{Agent: p.Agent, Tool: ShellTool, Words: words, Command: Join(words), Cwd: filepath.Clean(req.Agent.Cwd), Allow: allow}, nil
}

// bashInput is the command of Claude Code's and Codex's Bash input as the
// hooks show it, {"command": …, "description": …}. A key that could change
// what runs or where (Claude Code's dangerouslyDisableSandbox, a working
// directory) makes it none a rule covers; the description is the model's
// words and the timeout a limit, neither what runs.
func bashInput(preview []byte) (string, error) {
	var in map[string]json.RawMessage
	if err := strictJSON(preview, &in); err != nil {
		return "", fmt.Errorf("the input is not a JSON object: %w", err)
	}
	for k := range in {
		if k != "command" && k != "description" && k != "timeout" {
			return "", fmt.Errorf("input.%s: only command, description and timeout may be remembered", k)
		}
	}
	var cmd string
	if err := json.Unmarshal(in["command"], &cmd); err != nil || cmd == "" {
		return "", fmt.Errorf("input.command: want the command as a string")
	}
	return cmd, nil
}

// opencodeInput is the command of OpenCode's bash permission as its plugin
// shows it, {"permission": "bash", "patterns": [...], "metadata": {...}}:
// one pattern, the command itself (OpenCode cuts a command that does more
// than one thing into several), and metadata that, when it names the
// command, names the same one.
func opencodeInput(preview []byte) (string, error) {
	var in struct {
		Permission string         `json:"permission"`
		Patterns   []string       `json:"patterns"`
		Metadata   map[string]any `json:"metadata"`
	}
	if err := strictJSON(preview, &in); err != nil {
		return "", fmt.Errorf("the permission is not one the plugin shows: %w", err)
	}
	if in.Permission != "bash" || len(in.Patterns) != 1 {
		return "", fmt.Errorf("patterns: a rule covers one bash command, got %d patterns", len(in.Patterns))
	}
	if c, ok := in.Metadata["command"]; ok && c != in.Patterns[0] {
		return "", fmt.Errorf("metadata.command is not the pattern")
	}
	return in.Patterns[0], nil
}

// acpInput is the command of an ACP agent's execute tool call as
// askuser-client acp-proxy shows it: the call's raw input when it holds one
// command and at most the model's description of it, {"command": …,
// "description": …}, both strings. Anything else (a working directory, an
// argument list, a timeout the agent may read otherwise) makes it none a
// rule covers.
func acpInput(preview []byte) (string, error) {
	var in struct {
		Command     *string `json:"command"`
		Description *string `json:"description"`
	}
	if err := strictJSON(preview, &in); err != nil {
		return "", fmt.Errorf("the input is not {\"command\", \"description\"}: %w", err)
	}
	if in.Command == nil || *in.Command == "" {
		return "", fmt.Errorf("input.command: want the command as a string")
	}
	return *in.Command, nil
}

// strictJSON decodes exactly one JSON value, refusing unknown keys where v
// is a struct.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, isMap := v.(*map[string]json.RawMessage); !isMap {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one value")
	}
	return nil
}
