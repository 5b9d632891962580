package main

import (
	"flag"

	"askuser/socketproto"
	"askuser/socketproto/agenttool"
)

var schemaCommand = command{
	name:     "schema",
	summary:  "print a tool's input JSON Schema",
	synopsis: "schema [ask_user|ask_user_question]\n\nThe tool's input JSON Schema, for registering it with a model (default ask_user).",
	args:     argCount{0, 1, "tool name"},
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		return func(x *invocation) error {
			tool := socketproto.ToolAskUser
			if len(x.args) == 1 {
				tool = x.args[0]
			}
			if tool != socketproto.ToolAskUser && tool != socketproto.ToolAskUserQuestion {
				return unknownWord("tool", tool, []string{socketproto.ToolAskUser, socketproto.ToolAskUserQuestion}, "want ask_user or ask_user_question")
			}
			// Schema is indented already, two spaces as printed here.
			if _, err := x.stdout.Write(append(agenttool.Schema(tool), '\n')); err != nil {
				return exitStatus(exitFailed)
			}
			return nil
		}
	},
}
