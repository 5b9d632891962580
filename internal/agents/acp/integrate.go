package acp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"askuser/internal/integrate"
)

// What `askuser-client integrate zed` writes (docs/contract.md §11 "ACP"):
// Zed starts each ACP agent of its agent_servers setting behind
// `askuser-client acp-proxy`. An entry the user made is wrapped where it
// stands (its command and arguments move behind "acp-proxy --", the rest
// stays); for each known ACP agent on the PATH an entry "<name> (askuser)"
// is added. An entry already behind the proxy is left as it is.

// knownAgent is an ACP agent integrate looks for on the PATH.
type knownAgent struct {
	name    string   // the entry's name, before " (askuser)"
	program string   // looked up on the PATH
	args    []string // what makes it speak ACP
}

var knownAgents = []knownAgent{
	{"Claude Code", "claude-code-acp", nil},
	{"Codex", "codex-acp", nil},
	{"Gemini CLI", "gemini", []string{"--experimental-acp"}},
}

// lookPath finds a program on the PATH; tests replace it.
var lookPath = exec.LookPath

// zedSettings is Zed's settings file: $XDG_CONFIG_HOME/zed/settings.json,
// else ~/.config/zed/settings.json (on macOS too).
func zedSettings(env integrate.Env) string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "zed", "settings.json")
	}
	return filepath.Join(env.Home, ".config", "zed", "settings.json")
}

func zedPlan(env integrate.Env) ([]integrate.Change, []string, error) {
	path := zedSettings(env)
	snippet := integrate.NewJSONObject()
	var notes []string
	c, err := integrate.JSONPlan(path, integrate.JSONObj("agent_servers", snippet), func(root *integrate.JSONObject) error {
		servers, err := root.Object("agent_servers", "agent_servers")
		if err != nil {
			return err
		}
		for _, name := range servers.Keys() {
			v, _ := servers.Get(name)
			entry, ok := v.(*integrate.JSONObject)
			if !ok {
				continue
			}
			wrapped, why := wrapServer(entry, env.Client)
			if why != "" {
				notes = append(notes, fmt.Sprintf("agent_servers.%s: %s; left as it is", name, why))
				continue
			}
			if wrapped {
				snippet.Set(name, entry)
			}
		}
		found := 0
		for _, k := range knownAgents {
			bin, err := lookPath(k.program)
			if err != nil {
				continue
			}
			if abs, err := filepath.Abs(bin); err == nil {
				bin = abs
			}
			found++
			name := k.name + " (askuser)"
			if _, ok := servers.Get(name); ok {
				continue
			}
			args := []any{"acp-proxy", "--", bin}
			for _, a := range k.args {
				args = append(args, a)
			}
			entry := integrate.JSONObj("type", "custom", "command", env.Client, "args", args)
			servers.Set(name, entry)
			snippet.Set(name, entry)
		}
		if found == 0 && len(servers.Keys()) == 0 {
			notes = append(notes, "no ACP agent found on the PATH (claude-code-acp, codex-acp, gemini); add yours to agent_servers as "+
				`{"type": "custom", "command": "`+env.Client+`", "args": ["acp-proxy", "--", "AGENT", "ARG…"]}`)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return []integrate.Change{c}, notes, nil
}

// wrapServer puts a Zed agent_servers entry started by a command behind the
// proxy, keeping everything else of it; wrapped false when it already was.
// why says why an entry cannot be wrapped (Zed's own agents, which name
// no command).
func wrapServer(entry *integrate.JSONObject, client string) (wrapped bool, why string) {
	v, ok := entry.Get("command")
	command, isString := v.(string)
	if !ok || !isString || command == "" {
		return false, "no command: Zed runs this agent itself; use the \"(askuser)\" entry instead"
	}
	args, err := entry.List("args", "args")
	if err != nil {
		return false, err.Error()
	}
	if command == client && len(args) > 0 && args[0] == "acp-proxy" {
		return false, ""
	}
	for _, a := range args {
		if _, ok := a.(string); !ok {
			return false, "args: want strings"
		}
	}
	entry.Set("command", client)
	entry.Set("args", append([]any{"acp-proxy", "--", command}, args...))
	return true, ""
}

// Integration is what `askuser-client integrate zed` writes.
var Integration = integrate.Agent{Name: "zed", Plan: zedPlan}
