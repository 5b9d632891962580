package opencode

import (
	"fmt"

	"askuser/internal/agents/agentshape"
)

// Shape is OpenCode as the rules engine reads it: its plugin marks its
// bash permissions "opencode" (askuser.ts) and shows the permission itself
// as the preview.
var Shape = agentshape.Shape{Kind: "opencode", Words: "OpenCode", ShellTool: "bash", ShellCommand: bashCommand}

// bashCommand is the command of OpenCode's bash permission as its plugin
// shows it, {"permission": "bash", "patterns": [...], "metadata": {...}}:
// one pattern, the command itself (OpenCode cuts a command that does more
// than one thing into several), and metadata that, when it names the
// command, names the same one.
func bashCommand(preview []byte) (string, error) {
	var in struct {
		Permission string         `json:"permission"`
		Patterns   []string       `json:"patterns"`
		Metadata   map[string]any `json:"metadata"`
	}
	if err := agentshape.DecodeStrict(preview, &in); err != nil {
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
