package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"

	"askuser/cmd/internal/clientflags"
	"askuser/socketproto/askclient"
)

// mcpCommand serves the MCP tools (docs/contract.md §8) by running askuser-mcp in this
// process's place: the same pid, stdin, stdout and signals, so the MCP
// client that started `askuser-client mcp` speaks to the server itself. The
// server is a program of its own so that the MCP SDK is not loaded by every
// other, short-lived command of this one. Its flags are askuser-mcp's.
var mcpCommand = command{
	name:    "mcp",
	summary: "serve the ask tools to an MCP client on stdio",
	raw:     true,
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		return func(x *invocation) error {
			path, err := askclient.FindProgram("askuser-mcp")
			if err != nil {
				return fmt.Errorf("cannot start the MCP server: %v; install askuser's three programs together ('go install ./cmd/...' from its source)", err)
			}
			err = syscall.Exec(path, append([]string{clientflags.MCPViaClient}, x.args...), os.Environ())
			return fmt.Errorf("running %s: %v", path, err)
		}
	},
}
