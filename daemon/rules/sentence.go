package rules

import (
	"askuser/internal/agents"
	"askuser/socketproto"
)

// Sentence is r in words, whole, as the option that makes it shows it:
// `Bash: go test ./... (and with more arguments) in ~/src/shop, for
// Claude Code`. home, when set, is written as ~. The kind of agent is
// named as its folder names it (agents.Words).
func Sentence(r socketproto.Rule, home string) string {
	how := "(and with more arguments)"
	if r.Match == socketproto.MatchExact {
		how = "(exactly)"
	}
	return r.Tool + ": " + r.Command + " " + how + " in " + socketproto.HomeShort(r.Dir, home) + ", for " + agents.Words(r.Agents)
}
