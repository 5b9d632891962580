package main

import (
	"fmt"
	"io"
	"os"
	"syscall"

	"askuser/cmd/internal/clientflags"
	"askuser/socketproto/askclient"
)

// runMCP serves the MCP tools (SPEC §8) by running askuser-mcp in this
// process's place: the same pid, stdin, stdout and signals, so the MCP
// client that started `askuser-client mcp` speaks to the server itself. The
// server is a program of its own so that the MCP SDK is not loaded by every
// other, short-lived command of this one.
func runMCP(args []string, _ io.Reader, _, stderr io.Writer) int {
	path, err := askclient.FindProgram("askuser-mcp")
	if err != nil {
		fmt.Fprintf(stderr, "askuser-client mcp: cannot start the MCP server: %v; install askuser's three programs together ('go install ./cmd/...' from its source)\n", err)
		return exitFailed
	}
	err = syscall.Exec(path, append([]string{clientflags.MCPViaClient}, args...), os.Environ())
	fmt.Fprintf(stderr, "askuser-client mcp: running %s: %v\n", path, err)
	return exitFailed
}
