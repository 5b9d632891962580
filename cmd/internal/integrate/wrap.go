package integrate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Wrapping a configured MCP server in `askuser-client mcp-proxy` (docs/contract.md §8):
// the entry's command and arguments move behind "mcp-proxy --", so the
// server's elicitations are answered in askuser. Everything else of the
// entry (env, cwd, trust, the user's timeout) stays.

// wrapFiles are the settings files whose mcpServers Wrap can change, per
// agent: Gemini CLI's settings.json, Claude Code's ~/.claude.json (user
// scope, where `claude mcp add --scope user` writes).
var wrapFiles = map[string]func(Env) string{
	"gemini": func(env Env) string { return filepath.Join(env.Home, ".gemini", "settings.json") },
	"claude": func(env Env) string {
		if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
			return filepath.Join(dir, ".claude.json")
		}
		return filepath.Join(env.Home, ".claude.json")
	},
}

// CanWrap reports whether Wrap knows agent's settings.
func CanWrap(agent string) bool { _, ok := wrapFiles[agent]; return ok }

// Wrap adds to a plan the wrapping of the MCP servers names in agent's
// settings: changes is the plan so far (a file it already changes is
// changed further, not read again). An entry already wrapped is left as it
// is; a name not configured, or a server that is not started as a command
// (a URL), is an error naming it.
func Wrap(agent string, env Env, changes []Change, names []string) ([]Change, []string, error) {
	file, ok := wrapFiles[agent]
	if !ok {
		return nil, nil, fmt.Errorf("--wrap knows Claude Code's and Gemini CLI's settings, not %s's; put %q mcp-proxy -- in front of the server's command by hand", agent, env.Client)
	}
	path := file(env)
	at := -1
	for i, c := range changes {
		if c.Path == path {
			at = i
		}
	}
	var old, cur []byte
	if at >= 0 {
		old, cur = changes[at].Old, changes[at].New
	} else {
		var err error
		if old, err = readConfigFile(path); err != nil {
			return nil, nil, err
		}
		cur = old
	}
	root, err := parseJSONObject(cur)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v; fix it, or wrap the server by hand", path, err)
	}
	servers, err := root.Object("mcpServers", "mcpServers")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	snippet := newJSONObject()
	var notes []string
	for _, name := range names {
		entry, note, err := wrapEntry(agent, servers, name, env.Client)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", path, err)
		}
		snippet.Set(name, entry)
		if note != "" {
			notes = append(notes, note)
		}
	}
	next, err := jsonIndent(root)
	if err != nil {
		return nil, nil, err
	}
	show, err := jsonIndent(jsonObj("mcpServers", snippet))
	if err != nil {
		return nil, nil, err
	}
	c := Change{Path: path, Old: old, New: next, Mode: 0o600, Snippet: string(show)}
	if old != nil {
		// Already wrapped: left byte for byte.
		if same, err := parseJSONObject(old); err == nil {
			if a, _ := jsonIndent(same); string(a) == string(next) {
				c.New = old
			}
		}
	}
	if at >= 0 {
		// One document per file: the wrapped servers go into the
		// snippet askuser's own entry already shows.
		if c.Snippet, err = mergeServersSnippet(changes[at].Snippet, snippet); err != nil {
			return nil, nil, err
		}
		changes[at] = c
		return changes, notes, nil
	}
	return append(changes, c), notes, nil
}

// mergeServersSnippet adds the servers of wrapped to the mcpServers of the
// JSON document shown, and shows the result.
func mergeServersSnippet(shown string, wrapped *jsonObject) (string, error) {
	doc, err := parseJSONObject([]byte(shown))
	if err != nil {
		return "", err
	}
	servers, err := doc.Object("mcpServers", "mcpServers")
	if err != nil {
		return "", err
	}
	for _, k := range wrapped.keys {
		v, _ := wrapped.Get(k)
		servers.Set(k, v)
	}
	b, err := jsonIndent(doc)
	return string(b), err
}

// wrapEntry rewrites servers[name] to run behind the proxy, and returns it.
func wrapEntry(agent string, servers *jsonObject, name, client string) (*jsonObject, string, error) {
	v, ok := servers.Get(name)
	if !ok {
		return nil, "", fmt.Errorf("no MCP server %q in mcpServers (configured: %s)", name, serverNames(servers))
	}
	entry, ok := v.(*jsonObject)
	if !ok {
		return nil, "", fmt.Errorf("mcpServers.%s is not an object", name)
	}
	command, _ := entry.Get("command")
	cmd, ok := command.(string)
	if !ok || cmd == "" {
		return nil, "", fmt.Errorf("mcpServers.%s has no command (a server reached by URL?); mcp-proxy wraps servers it starts on stdio", name)
	}
	args, err := entry.List("args", "mcpServers."+name+".args")
	if err != nil {
		return nil, "", err
	}
	if isWrapped(cmd, args) {
		return entry, "", nil
	}
	entry.Set("command", client)
	entry.Set("args", append([]any{"mcp-proxy", "--", cmd}, args...))
	note := ""
	if _, has := entry.Get("timeout"); agent == "gemini" && !has {
		// A tool call of the server now waits for a person: Gemini CLI's
		// default MCP timeout (10 minutes) would cut them off.
		entry.Set("timeout", json.Number(strconv.Itoa(integrateTimeoutMS)))
		note = fmt.Sprintf("mcpServers.%s: a day-long timeout, since its tool calls may wait for your answer in askuser.", name)
	}
	return entry, note, nil
}

// isWrapped recognises an entry that already runs askuser's proxy.
func isWrapped(cmd string, args []any) bool {
	first, _ := func() (string, bool) {
		if len(args) == 0 {
			return "", false
		}
		s, ok := args[0].(string)
		return s, ok
	}()
	return strings.Contains(filepath.Base(cmd), "askuser-client") && first == "mcp-proxy"
}

func serverNames(servers *jsonObject) string {
	var names []string
	for _, k := range servers.keys {
		names = append(names, strconv.Quote(k))
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
