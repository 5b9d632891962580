// Package gemini is all askuser knows of Gemini CLI (docs/contract.md §11): what
// `askuser-client integrate gemini` writes (the MCP server in settings.json,
// the policy that lets headless runs call it) and how --wrap treats its
// servers.
package gemini

import (
	"encoding/json"
	"path/filepath"
	"strconv"

	"askuser/internal/integrate"
)

func plan(env integrate.Env) ([]integrate.Change, []string, error) {
	path := filepath.Join(env.Home, ".gemini", "settings.json")
	entry := integrate.JSONObj("command", env.Client, "args", []any{"mcp"}, "timeout", json.Number(strconv.Itoa(integrate.TimeoutMS)))
	c, err := integrate.JSONPlan(path, integrate.JSONObj("mcpServers", integrate.JSONObj("askuser", entry)), func(root *integrate.JSONObject) error {
		_, err := integrate.MCPServerEntry(root, entry)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	policy, err := geminiPolicy(env)
	if err != nil {
		return nil, nil, err
	}
	return []integrate.Change{c, policy}, nil, nil
}

// geminiPolicyText allows askuser's ask tools in Gemini CLI's policy engine.
// Without it a headless run (gemini -p) never offers them: it turns the
// default "ask before using an MCP tool" into "deny", and hides what it
// denies from the model. A rule naming only the server (mcpName) is refused
// by Gemini CLI 0.61, so the tools are named too. Asking the user is all
// these tools do, so allowing them allows nothing else.
const geminiPolicyText = `# Written by askuser-client integrate gemini: let Gemini CLI call askuser's
# ask tools without asking first (they only ask you), also in headless runs
# (gemini -p), which would otherwise deny them.
[[rule]]
mcpName = "askuser"
toolName = ["ask_user_question", "ask_user"]
decision = "allow"
priority = 100
`

// geminiPolicy is the change that writes geminiPolicyText to Gemini CLI's
// user policy directory.
func geminiPolicy(env integrate.Env) (integrate.Change, error) {
	path := filepath.Join(env.Home, ".gemini", "policies", "askuser.toml")
	old, err := integrate.ReadConfigFile(path)
	if err != nil {
		return integrate.Change{}, err
	}
	return integrate.Change{Path: path, Old: old, New: []byte(geminiPolicyText), Mode: 0o600, Snippet: geminiPolicyText}, nil
}

// Integration is what `askuser-client integrate gemini` writes (docs/contract.md §11).
// A server wrapped by --wrap gets a day-long timeout: a tool call of the
// server now waits for a person, and Gemini CLI's default MCP timeout (10
// minutes) would cut them off.
var Integration = integrate.Agent{Name: "gemini", Plan: plan, MCP: true, MCPSettings: settingsFile, WrapTimeoutMS: integrate.TimeoutMS}

// settingsFile is Gemini CLI's settings.json, whose mcpServers --wrap changes.
func settingsFile(env integrate.Env) string {
	return filepath.Join(env.Home, ".gemini", "settings.json")
}
