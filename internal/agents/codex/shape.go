package codex

import (
	"askuser/internal/agents/agentshape"
	"askuser/internal/agents/claudecode"
)

// Kind is Codex's kind of agent in its permission prompts
// (docs/contract.md §13 "permission.agent").
const Kind = "codex"

// Shape is Codex as the rules engine reads it. Its hook hands over its
// shell command as Claude Code's does, {"command", "description"} under
// the tool "Bash", and is read the same way.
var Shape = agentshape.Shape{Kind: Kind, Words: "Codex", ShellTool: "Bash", ShellCommand: claudecode.BashCommand}
