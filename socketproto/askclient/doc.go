// Package askclient is the asking side of the socket protocol, shared by
// askuser-client's subcommands, the MCP server askuser-mcp and the pane:
// connecting (starting the daemon when nothing answers: the one autostart),
// asking and waiting through a dropped connection, one-shot calls, and the
// agent identity taken from the environment.
//
// It speaks only socketproto; it knows nothing of the daemon's insides nor of
// config.toml (callers resolve paths and pass them in Options).
package askclient
