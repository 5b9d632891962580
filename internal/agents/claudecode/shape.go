package claudecode

import (
	"encoding/json"
	"fmt"

	"askuser/internal/agents/agentshape"
)

// Kind is Claude Code's kind of agent in its permission prompts
// (docs/contract.md §13 "permission.agent").
const Kind = "claude-code"

// Shape is Claude Code as the rules engine reads it: its Bash tool's
// preview is the hook's input.
var Shape = agentshape.Shape{Kind: Kind, Words: "Claude Code", ShellTool: "Bash", ShellCommand: BashCommand}

// BashCommand is the command of Claude Code's Bash input as its hooks show
// it, {"command": …, "description": …}. A key that could change what runs
// or where (Claude Code's dangerouslyDisableSandbox, a working directory)
// makes it none a rule covers; the description is the model's words and
// the timeout a limit, neither what runs.
func BashCommand(preview []byte) (string, error) {
	var in map[string]json.RawMessage
	if err := agentshape.DecodeStrict(preview, &in); err != nil {
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
