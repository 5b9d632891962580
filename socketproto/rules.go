package socketproto

import (
	"path/filepath"
	"strings"
	"time"
)

// Remembered decisions (docs/contract.md §13): a rule answers an agent's
// permission prompt as the user's Allow would have, without asking. A rule
// exists only because the user chose an option the daemon itself added to a
// permission prompt ("Allow, and remember: …", showing the rule whole), or
// wrote it into the rules file; nothing an agent sends makes one.

// RememberPrefix begins the label of every option that allows and saves a
// rule. Only the daemon adds such options: a request from an agent that
// holds one is refused.
const RememberPrefix = "Allow, and remember: "

// ViaRule is the answeredVia of a permission prompt a rule answered.
const ViaRule Via = "rule"

// PermissionPrompt marks a request as an agent's permission prompt, so that
// the daemon can offer to remember the decision and answer it by a rule.
// The integrations set it (docs/contract.md §11). It names no rule and no
// command: the daemon reads what would run from Allow's own preview, the
// text the user approves.
type PermissionPrompt struct {
	// Agent is the kind of agent: "claude-code", "codex", "opencode", or
	// "acp" for any agent behind askuser-client acp-proxy.
	Agent string `json:"agent"`
	// Tool is the agent's name for the tool asking ("Bash", "bash").
	Tool string `json:"tool"`
	// Allow is the label of the option that allows this once; a rule's
	// answer chooses it.
	Allow string `json:"allow"`
}

// The ways a rule matches a command (Rule.Match).
const (
	MatchPrefix = "prefix" // the command, and the same with further arguments
	MatchExact  = "exact"  // the command word for word
)

// AllAgents is Rule.Agents for a rule that answers every kind of agent.
const AllAgents = "all"

// Rule is one remembered decision: allow Tool to run Command (word for word,
// or followed by further arguments) in the directory tree Dir, for one kind
// of agent or all of them, until Expires.
type Rule struct {
	ID      int    `json:"id"`
	Tool    string `json:"tool"`
	Command string `json:"command"`
	Match   string `json:"match"`
	Dir     string `json:"dir"`
	Agents  string `json:"agents"`
	// Made is when; MadeVia the surface the user chose it on (pane, file,
	// cli), or "hand" for a rule written into the rules file;
	// MadeFrom the request whose prompt offered it.
	Made     time.Time  `json:"made"`
	MadeVia  string     `json:"madeVia"`
	MadeFrom string     `json:"madeFrom,omitempty"`
	Expires  *time.Time `json:"expires,omitempty"`
}

// RuleUse is how often a rule has answered, and when last (from history).
type RuleUse struct {
	Answered     int        `json:"answered"`
	LastAnswered *time.Time `json:"lastAnswered,omitempty"`
}

// ListedRule is a rule as `rules` lists it: the rule, its sentence and its use.
type ListedRule struct {
	Rule
	Sentence string `json:"sentence"`
	RuleUse
}

// HomeShort writes dir under home as ~/…; other paths as they are.
func HomeShort(dir, home string) string {
	if home == "" || home == "/" {
		return dir
	}
	home = filepath.Clean(home)
	if dir == home {
		return "~"
	}
	if strings.HasPrefix(dir, home+"/") {
		return "~" + dir[len(home):]
	}
	return dir
}

// RulesRequest asks for the rules (a client sends {"type":"rules"}).
type RulesRequest struct{}

func (RulesRequest) MessageType() string { return "rules" }

// Rules is the daemon's reply: every rule with its use, the file's
// revision, where it is, and why it was last refused ("" when it was not).
type Rules struct {
	Revision int          `json:"revision"`
	Path     string       `json:"path"`
	Rules    []ListedRule `json:"rules"`
	Problem  string       `json:"problem,omitempty"`
}

func (Rules) MessageType() string { return "rules" }

// RevokeRule removes rule ID; the daemon answers ok or not_found.
type RevokeRule struct {
	ID  int `json:"id"`
	Via Via `json:"via,omitempty"`
}

func (RevokeRule) MessageType() string { return "revoke_rule" }

// RuleAnswered tells subscribers that a rule answered a permission prompt
// that therefore never waited: the pane shows one line about it.
type RuleAnswered struct {
	RequestID string `json:"requestId"`
	RuleID    int    `json:"ruleId"`
	Sentence  string `json:"sentence"`
	Agent     *Agent `json:"agent,omitempty"`
}

func (RuleAnswered) MessageType() string { return "rule_answered" }

// RuleNotSaved tells subscribers that the user chose an "Allow, and
// remember" option and the agent was allowed, but the rule was not saved:
// the surfaces say so, so that nobody counts on a rule that is not there.
type RuleNotSaved struct {
	RequestID string `json:"requestId"`
	Sentence  string `json:"sentence"`
	Reason    string `json:"reason"`
}

func (RuleNotSaved) MessageType() string { return "rule_not_saved" }
