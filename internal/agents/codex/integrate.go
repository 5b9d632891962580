package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"askuser/internal/integrate"
)

// codexEnvVars are the variables Codex must pass to the MCP server: it
// starts MCP servers with a reduced environment, and without these the
// client finds another socket and state dir than the pane's.
var codexEnvVars = []string{"XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME"}

// The lines of config.toml that plan looks for. Compiled on first use,
// not at start-up: every other subcommand would pay for them.
var (
	tomlTableLine   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[`) })
	tomlAskuserLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\[\s*mcp_servers\s*\.\s*"?askuser"?\s*\]\s*(#.*)?$`)
	})
	tomlKeyLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([A-Za-z0-9_-]+)\s*=`) })
)

// codexBlock is the [mcp_servers.askuser] table: its keys in order and their
// TOML values.
func codexBlock(client string) ([]string, map[string]string) {
	quoted := make([]string, len(codexEnvVars))
	for i, v := range codexEnvVars {
		quoted[i] = strconv.Quote(v)
	}
	keys := []string{"command", "args", "env_vars", "tool_timeout_sec"}
	return keys, map[string]string{
		"command":          strconv.Quote(client),
		"args":             `["mcp"]`,
		"env_vars":         "[" + strings.Join(quoted, ", ") + "]",
		"tool_timeout_sec": strconv.Itoa(integrate.TimeoutSec),
	}
}

func plan(env integrate.Env) ([]integrate.Change, []string, error) {
	dir := os.Getenv("CODEX_HOME")
	if dir == "" {
		dir = filepath.Join(env.Home, ".codex")
	}
	path := filepath.Join(dir, "config.toml")
	old, err := integrate.ReadConfigFile(path)
	if err != nil {
		return nil, nil, err
	}
	keys, vals := codexBlock(env.Client)
	var block strings.Builder
	block.WriteString("[mcp_servers.askuser]\n")
	for _, k := range keys {
		block.WriteString(k + " = " + vals[k] + "\n")
	}
	var parsed map[string]any
	if _, err := toml.Decode(string(old), &parsed); err != nil {
		return nil, nil, fmt.Errorf("%s: %v; fix it, or add this by hand:\n%s", path, err, block.String())
	}
	var next string
	if codexHasAskuser(parsed, env.Client) {
		next = string(old)
	} else if _, present := codexServers(parsed)["askuser"]; !present {
		text := string(old)
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if text != "" {
			text += "\n"
		}
		next = text + block.String()
	} else {
		// Rewrite our keys inside the existing table and keep the rest.
		lines := strings.SplitAfter(string(old), "\n")
		start := -1
		for i, l := range lines {
			if tomlAskuserLine().MatchString(strings.TrimRight(l, "\r\n")) {
				start = i
				break
			}
		}
		if start < 0 {
			return nil, nil, fmt.Errorf("%s: mcp_servers.askuser is written in a form this command does not rewrite; replace it with:\n%s", path, block.String())
		}
		end := len(lines)
		for i := start + 1; i < len(lines); i++ {
			if tomlTableLine().MatchString(lines[i]) {
				end = i
				break
			}
		}
		var out []string
		out = append(out, lines[:start+1]...)
		for _, k := range keys {
			out = append(out, k+" = "+vals[k]+"\n")
		}
		for _, l := range lines[start+1 : end] {
			if m := tomlKeyLine().FindStringSubmatch(l); m != nil {
				if _, ours := vals[m[1]]; ours {
					continue
				}
			}
			out = append(out, l)
		}
		out = append(out, lines[end:]...)
		next = strings.Join(out, "")
	}
	// The merge is checked, not trusted: a value spread over several lines
	// would have been cut.
	var check map[string]any
	if _, err := toml.Decode(next, &check); err != nil || !codexHasAskuser(check, env.Client) {
		return nil, nil, fmt.Errorf("%s: mcp_servers.askuser could not be merged line by line; replace it with:\n%s", path, block.String())
	}
	snippet := block.String()
	var notes []string
	if env.Permissions {
		hooks := codexPermissionBlock(env.Client)
		if next, err = addCodexPermissionHook(next, env.Client); err != nil {
			return nil, nil, fmt.Errorf("%s: %v; add this by hand:\n%s", path, err, hooks)
		}
		snippet += "\n" + hooks
		notes = codexPermissionNotes
	}
	return []integrate.Change{{Path: path, Old: old, New: []byte(next), Mode: 0o600, Snippet: snippet}}, notes, nil
}

func codexServers(parsed map[string]any) map[string]any {
	s, _ := parsed["mcp_servers"].(map[string]any)
	return s
}

// codexHasAskuser reports whether the parsed config already has askuser's
// table with every value askuser sets.
func codexHasAskuser(parsed map[string]any, client string) bool {
	cur, ok := codexServers(parsed)["askuser"].(map[string]any)
	if !ok {
		return false
	}
	keys, vals := codexBlock(client)
	for _, k := range keys {
		var want map[string]any
		if _, err := toml.Decode("v = "+vals[k], &want); err != nil {
			return false
		}
		a, _ := json.Marshal(want["v"])
		b, _ := json.Marshal(cur[k])
		if !bytes.Equal(a, b) {
			return false
		}
	}
	return true
}

// Integration is what `askuser-client integrate codex` writes (docs/contract.md §11).
var Integration = integrate.Agent{Name: "codex", Plan: plan, Permissions: true, MCP: true}
