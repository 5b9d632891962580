package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"unicode/utf8"

	"askuser/socketproto"
)

// Tree is the directory tree a rule made in cwd covers: the repository or
// worktree holding cwd (the nearest directory above it with a .git, a
// directory or a worktree's file), else cwd itself.
func Tree(cwd string) string {
	for d := filepath.Clean(cwd); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return filepath.Clean(cwd)
		}
	}
}

// Proposal is an option that allows once and saves Rule.
type Proposal struct {
	Option socketproto.Option
	Rule   socketproto.Rule
}

// Propose is the options that remember s: for this kind of agent, and for
// all agents, each "the command, and with more arguments" in tree. Each
// option's label holds its rule whole, and its preview is Allow's (what
// it allows now) and the rule, so choosing it is an approval like Allow.
// None when s may not be remembered (narrow.go) or a rule does not fit a
// label: a rule is never shown cut.
func Propose(s Subject, allowPreview, tree, home string, lists Lists) ([]Proposal, error) {
	if err := Narrow(s.Words, s.Cwd, tree, lists); err != nil {
		return nil, fmt.Errorf("the command is not remembered: %w", err)
	}
	if n := utf8.RuneCountInString(allowPreview); n > socketproto.MaxPreviewChars {
		// Each offer repeats the input: one this large would triple a
		// message that may already be near its limit. A plain command
		// worth remembering is never this long.
		return nil, fmt.Errorf("the input is too long to remember (%d characters)", n)
	}
	var out []Proposal
	for _, agents := range []string{s.Agent, socketproto.AllAgents} {
		r := socketproto.Rule{Tool: s.Tool, Command: s.Command, Match: socketproto.MatchPrefix, Dir: tree, Agents: agents}
		sentence := Sentence(r, home)
		label := socketproto.RememberPrefix + sentence
		if err := visible(label); err != nil {
			// The directory is the agent's word: a label is never
			// sent with a character that does not show as itself.
			return nil, fmt.Errorf("the rule cannot be shown as it is: %w", err)
		}
		if utf8.RuneCountInString(label) > socketproto.MaxLabelChars {
			return nil, fmt.Errorf("the rule does not fit a label (%d characters)", utf8.RuneCountInString(label))
		}
		out = append(out, Proposal{Rule: r, Option: socketproto.Option{
			Label:       label,
			Description: "Run it now, and from now on let this rule answer without asking (askuser-client rules lists and revokes rules)",
			Preview: allowPreview + "\n\nand from now on, without asking you: " + sentence +
				"\n(covered too: the same command followed by further plain words — names, numbers and paths inside " + socketproto.HomeShort(tree, home) +
				"; never one with further options, quotes, =, ~, or a path outside it, nor one that chains, pipes or redirects)",
			ApprovesPreview: true,
		}})
	}
	return out, nil
}
