// Package integrations holds the files askuser ships for agents that are not
// reached through MCP alone (docs/contract.md §11), embedded so that
// `askuser-client integrate` can write them out. It knows nothing of the
// daemon or the protocol.
package integrations

import _ "embed"

// PiExtension is the pi extension (pi/askuser.ts): pi's ask_user tool and its
// /questions command, backed by `askuser-client ask - --format pi`.
//
//go:embed pi/askuser.ts
var PiExtension []byte

// OpencodePlugin is the OpenCode plugin (opencode/askuser.ts): OpenCode's
// own questions and permission prompts asked through
// `askuser-client ask - --format json`, answered back through OpenCode's client.
//
//go:embed opencode/askuser.ts
var OpencodePlugin []byte
