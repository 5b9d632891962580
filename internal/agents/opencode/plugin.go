package opencode

import _ "embed"

// plugin is the OpenCode plugin (askuser.ts): OpenCode's own questions and
// permission prompts asked through `askuser-client ask - --format json`,
// answered back through OpenCode's client. It is embedded so that
// `askuser-client integrate opencode` can write it out.
//
//go:embed askuser.ts
var plugin []byte
