package acp

import (
	"fmt"

	"askuser/internal/agents/agentshape"
)

// Shape is every agent behind acp-proxy as the rules engine reads it: the
// prompt's shape is ACP's, whichever agent runs.
var Shape = agentshape.Shape{Kind: RuleAgent, Words: "ACP agents", ShellTool: RuleTool, ShellCommand: executeCommand}

// executeCommand is the command of an ACP agent's execute tool call as
// acp-proxy shows it (commandInput): the call's raw input when it holds one
// command and at most the model's description of it, {"command": …,
// "description": …}, both strings. Anything else (a working directory, an
// argument list, a timeout the agent may read otherwise) makes it none a
// rule covers.
func executeCommand(preview []byte) (string, error) {
	var in struct {
		Command     *string `json:"command"`
		Description *string `json:"description"`
	}
	if err := agentshape.DecodeStrict(preview, &in); err != nil {
		return "", fmt.Errorf("the input is not {\"command\", \"description\"}: %w", err)
	}
	if in.Command == nil || *in.Command == "" {
		return "", fmt.Errorf("input.command: want the command as a string")
	}
	return *in.Command, nil
}
