package askclient

import (
	"os"
	"strings"

	"askuser/socketproto"
)

// Environment variables of docs/contract.md §7 that describe the asking agent.
const (
	EnvAgentID  = "ASKUSER_AGENT_ID"
	EnvParentID = "ASKUSER_PARENT_ID"
	EnvSubagent = "ASKUSER_SUBAGENT"
)

// AgentFromEnv fills the agent fields from ASKUSER_AGENT_ID, ASKUSER_PARENT_ID
// and ASKUSER_SUBAGENT=1, with the working directory as cwd.
func AgentFromEnv() socketproto.Agent {
	a := socketproto.Agent{
		ID:       os.Getenv(EnvAgentID),
		ParentID: os.Getenv(EnvParentID),
		Subagent: truthy(os.Getenv(EnvSubagent)),
	}
	if wd, err := os.Getwd(); err == nil {
		a.Cwd = wd
	}
	return a
}

// truthy accepts the spellings a shell user may reach for; "0", "false" and
// empty mean no, so that ASKUSER_SUBAGENT=0 does not mark a parent.
func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
