package rules

import (
	"fmt"
	"path/filepath"
	"slices"

	"askuser/internal/agents"
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
// answers for input it has not matched. The agent's folder says how its
// preview reads (agents.Shape). An error says why it is none that a rule
// may remember or answer.
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
	shape, ok := agents.Shape(p.Agent)
	if !ok {
		return Subject{}, fmt.Errorf("permission.agent %q: no rules for this kind of agent", p.Agent)
	}
	if p.Tool != shape.ShellTool {
		return Subject{}, fmt.Errorf("tool %q: only shell commands are remembered", p.Tool)
	}
	command, err := shape.ShellCommand(preview)
	if err != nil {
		return Subject{}, err
	}
	words, err := Words(command)
	if err != nil {
		return Subject{}, fmt.Errorf("the command is not remembered: %w", err)
	}
	return Subject{Agent: p.Agent, Tool: ShellTool, Words: words, Command: Join(words), Cwd: filepath.Clean(req.Agent.Cwd), Allow: allow}, nil
}
