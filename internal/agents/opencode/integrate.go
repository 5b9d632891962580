// Package opencode is all askuser knows of OpenCode (docs/contract.md §11): its
// plugin (askuser.ts, embedded) and what `askuser-client integrate opencode`
// writes (the plugin, and the MCP server in opencode.json).
package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"askuser/internal/integrate"
)

// opencodeDefaultClient is the line of the plugin that names the client; the
// written copy names the absolute path instead.
const opencodeDefaultClient = `const defaultClient = "askuser-client";`

// opencodeConfigDir is OpenCode's global config directory: it follows
// XDG_CONFIG_HOME, as OpenCode does.
func opencodeConfigDir(env integrate.Env) string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "opencode")
	}
	return filepath.Join(env.Home, ".config", "opencode")
}

// opencodeConfigFile is the config file to merge into: opencode.json, or the
// opencode.jsonc OpenCode writes on its first start when only that exists.
func opencodeConfigFile(dir string) string {
	plain := filepath.Join(dir, "opencode.json")
	if _, err := os.Lstat(plain); err == nil {
		return plain
	}
	jsonc := filepath.Join(dir, "opencode.jsonc")
	if _, err := os.Lstat(jsonc); err == nil {
		return jsonc
	}
	return plain
}

// opencodePluginText is the plugin as written for this client.
func opencodePluginText(client string) ([]byte, error) {
	src := plugin
	if !bytes.Contains(src, []byte(opencodeDefaultClient)) {
		return nil, fmt.Errorf("the embedded OpenCode plugin has no line %q", opencodeDefaultClient)
	}
	line := "const defaultClient = " + strconv.Quote(client) + ";"
	return bytes.Replace(src, []byte(opencodeDefaultClient), []byte(line), 1), nil
}

// opencodeMCPEntry is askuser's entry under "mcp": a local server with a
// day-long timeout (OpenCode's default, 5 s, applies to every tool call and
// would cut a person off).
func opencodeMCPEntry(client string) *integrate.JSONObject {
	return integrate.JSONObj("type", "local", "command", []any{client, "mcp"}, "enabled", true,
		"timeout", json.Number(strconv.Itoa(integrate.TimeoutMS)))
}

// plan copies the plugin into OpenCode's plugins directory (OpenCode
// loads every plugins/*.ts there at start) and adds the MCP server to
// opencode.json.
func plan(env integrate.Env) ([]integrate.Change, []string, error) {
	dir := opencodeConfigDir(env)
	pluginPath := filepath.Join(dir, "plugins", "askuser.ts")
	old, err := integrate.ReadConfigFile(pluginPath)
	if err != nil {
		return nil, nil, err
	}
	text, err := opencodePluginText(env.Client)
	if err != nil {
		return nil, nil, err
	}
	plugin := integrate.Change{Path: pluginPath, Old: old, New: text, Mode: 0o644,
		Snippet: fmt.Sprintf("the askuser plugin (%d lines): OpenCode's questions and permission prompts, asked through %s\n",
			bytes.Count(text, []byte("\n")), env.Client)}

	entry := opencodeMCPEntry(env.Client)
	cfg, err := integrate.JSONPlan(opencodeConfigFile(dir), integrate.JSONObj("mcp", integrate.JSONObj("askuser", entry)), func(root *integrate.JSONObject) error {
		servers, err := root.Object("mcp", "mcp")
		if err != nil {
			return err
		}
		cur, err := servers.Object("askuser", "mcp.askuser")
		if err != nil {
			return err
		}
		integrate.SetKeys(cur, entry)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	notes := []string{"OpenCode loads both at its next start."}
	return []integrate.Change{plugin, cfg}, notes, nil
}

// Integration is what `askuser-client integrate opencode` writes (docs/contract.md §11).
var Integration = integrate.Agent{Name: "opencode", Plan: plan, MCP: true}
