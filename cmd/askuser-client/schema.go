package main

import (
	"io"

	"askuser/socketproto"
	"askuser/socketproto/agenttool"
)

func runSchema(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("schema", "schema [ask_user|ask_user_question]\n\nThe tool's input JSON Schema, for registering it with a model (default ask_user).", stderr)
	pos, code := parseArgs(fs, args, stdout)
	if code != nil {
		return *code
	}
	tool := socketproto.ToolAskUser
	switch len(pos) {
	case 0:
	case 1:
		tool = pos[0]
	default:
		return usageError(fs, stderr, "want at most one tool name, got %d arguments", len(pos))
	}
	if tool != socketproto.ToolAskUser && tool != socketproto.ToolAskUserQuestion {
		return usageError(fs, stderr, "unknown tool %q; want ask_user or ask_user_question", tool)
	}
	// Schema is indented already, two spaces as printed here.
	if _, err := stdout.Write(append(agenttool.Schema(tool), '\n')); err != nil {
		return exitFailed
	}
	return exitOK
}
