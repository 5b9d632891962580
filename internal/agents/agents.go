// Package agents lists the agents askuser connects to. Each has its folder
// here, holding all askuser knows of that agent: its hook shapes and
// permission mapping, what it keeps on disk that askuser watches, and what
// `askuser-client integrate` writes into its config; a new version of an
// agent touches its folder. This list is the one place that names them all;
// it knows nothing of any one of them. The daemon reads the agents' shapes
// here (Shape, Words); so no agent folder may import the daemon or a face.
package agents

import (
	"askuser/internal/agents/acp"
	"askuser/internal/agents/agentshape"
	"askuser/internal/agents/claudecode"
	"askuser/internal/agents/codex"
	"askuser/internal/agents/gemini"
	"askuser/internal/agents/opencode"
	"askuser/internal/agents/pi"
	"askuser/internal/integrate"
	"askuser/socketproto"
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

// shapes are the kinds of agent whose permission prompts the daemon reads
// (docs/contract.md §13). Gemini CLI and pi mark none.
var shapes = []agentshape.Shape{
	claudecode.Shape,
	codex.Shape,
	opencode.Shape,
	acp.Shape, // every agent behind acp-proxy
}

// Shape is the kind of agent named kind, as its permission prompts and
// rules name it.
func Shape(kind string) (agentshape.Shape, bool) {
	for _, s := range shapes {
		if s.Kind == kind {
			return s, true
		}
	}
	return agentshape.Shape{}, false
}

// Words names a kind of agent for people, or every kind
// (socketproto.AllAgents); a kind it does not know, as it is.
func Words(kind string) string {
	if kind == socketproto.AllAgents {
		return "all agents"
	}
	if s, ok := Shape(kind); ok {
		return s.Words
	}
	return kind
}
