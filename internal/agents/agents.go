// Package agents lists the agents askuser connects to. Each has its folder
// here, holding all askuser knows of that agent: its hook shapes and
// permission mapping, what it keeps on disk that askuser watches, and what
// `askuser-client integrate` writes into its config; a new version of an
// agent touches its folder. This list is the one place that names them all;
// it knows nothing of any one of them.
package agents

import (
	"askuser/internal/agents/acp"
	"askuser/internal/agents/claudecode"
	"askuser/internal/agents/codex"
	"askuser/internal/agents/gemini"
	"askuser/internal/agents/opencode"
	"askuser/internal/agents/pi"
	"askuser/internal/integrate"
)

// all are the agents `askuser-client integrate` knows, by name.
var all = []integrate.Agent{
	claudecode.Integration,
	codex.Integration,
	gemini.Integration,
	opencode.Integration,
	pi.Integration,
	acp.Integration, // Zed's ACP agents, behind acp-proxy
}

// Names are the agents' names, in the list's order.
func Names() []string {
	out := make([]string, len(all))
	for i, a := range all {
		out[i] = a.Name
	}
	return out
}

// Named is the agent called name.
func Named(name string) (integrate.Agent, bool) {
	for _, a := range all {
		if a.Name == name {
			return a, true
		}
	}
	return integrate.Agent{}, false
}
