// Package askclient is the asking side of the socket protocol, shared by
// askuser-client's subcommands and its MCP server: connecting (starting the
// daemon when nothing answers: the one autostart, which the pane uses too),
// asking and waiting through a dropped connection, one-shot calls, and the
// agent identity taken from the environment.
//
// It speaks only socketproto; it knows nothing of the daemon's insides nor of
// config.toml (callers resolve paths and pass them in Options).
package askclient
