package integrate

import (
	"bytes"
	"fmt"
)

// Agent is one agent `askuser-client integrate` knows (docs/contract.md §11); its
// folder under internal/agents says how to connect it.
type Agent struct {
	Name string // as the command names it: "claude"
	// Plan plans the files connecting the agent changes and says what else
	// the user should know.
	Plan func(Env) ([]Change, []string, error)
	// Permissions: the agent's permission prompts can wait in askuser too
	// (Env.Permissions, the --permissions flag).
	Permissions bool
	// MCP: its config starts `askuser-client mcp`, which needs askuser-mcp.
	MCP bool
	// MCPSettings is the settings file whose mcpServers Wrap changes; nil
	// when Wrap does not know the agent's settings.
	MCPSettings func(Env) string
	// WrapTimeoutMS, when not 0, is the timeout Wrap gives a wrapped server
	// that has none of its own: its tool calls may now wait for a person.
	WrapTimeoutMS int
}

// A day: long enough for any person to answer, where the agent wants a limit.
const (
	TimeoutSec = 86400
	TimeoutMS  = 86400000
)

// JSONPlan merges into the JSON object file at path with merge, and shows
// snippet as what is added.
func JSONPlan(path string, snippet *JSONObject, merge func(root *JSONObject) error) (Change, error) {
	old, err := ReadConfigFile(path)
	if err != nil {
		return Change{}, err
	}
	root, err := parseJSONObject(old)
	if err != nil {
		return Change{}, fmt.Errorf("%s: %v; fix it, or add the settings by hand", path, err)
	}
	if err := merge(root); err != nil {
		return Change{}, fmt.Errorf("%s: %v; add the settings by hand", path, err)
	}
	next, err := jsonIndent(root)
	if err != nil {
		return Change{}, err
	}
	// A file already holding exactly this is left byte for byte, whatever
	// its own indentation.
	if old != nil {
		if same, err := parseJSONObject(old); err == nil {
			a, _ := jsonIndent(same)
			if bytes.Equal(a, next) {
				next = old
			}
		}
	}
	show, err := jsonIndent(snippet)
	if err != nil {
		return Change{}, err
	}
	return Change{Path: path, Old: old, New: next, Mode: 0o600, Snippet: string(show)}, nil
}

// SetKeys sets each key of want in o, keeping o's other keys.
func SetKeys(o, want *JSONObject) {
	for _, k := range want.keys {
		o.Set(k, want.vals[k])
	}
}

// MCPServerEntry merges askuser's entry into root's "mcpServers" and
// returns the merged entry.
func MCPServerEntry(root *JSONObject, entry *JSONObject) (*JSONObject, error) {
	servers, err := root.Object("mcpServers", "mcpServers")
	if err != nil {
		return nil, err
	}
	cur, err := servers.Object("askuser", "mcpServers.askuser")
	if err != nil {
		return nil, err
	}
	SetKeys(cur, entry)
	return cur, nil
}
