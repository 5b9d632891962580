// Package socketproto is the wire between askuserd and its clients: the message
// types of the socket protocol, the NDJSON codec with its size limit, the error
// codes, and the domain rules both sides must agree on (validating a request,
// normalising an answer, building a result). What only the agent's side
// shows — the tools' schemas and descriptions, the result's shapes — is
// package agenttool's.
//
// It is imported by the daemon, the pane and the client, and imports none of
// them: if a client needs something from the daemon, the protocol grows a message.
package socketproto

// ProtocolVersion is the only protocol this package speaks.
const ProtocolVersion = 1

// Version is askuser's release, the one version every part reports:
// askuserd in hello and status, the MCP server askuser-mcp (which
// `askuser-client mcp` runs) as its serverInfo.
const Version = "0.1.0"
