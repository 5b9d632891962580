package main

import (
	"bytes"
	"encoding/json"
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
	var b bytes.Buffer
	if err := json.Indent(&b, agenttool.Schema(tool), "", "  "); err != nil {
		return failure(stderr, "schema", err)
	}
	b.WriteByte('\n')
	if _, err := stdout.Write(b.Bytes()); err != nil {
		return exitFailed
	}
	return exitOK
}
