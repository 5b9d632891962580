package integrate

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Wrapping a configured MCP server in `askuser-client mcp-proxy` (docs/contract.md §8):
// the entry's command and arguments move behind "mcp-proxy --", so the
// server's elicitations are answered in askuser. Everything else of the
// entry (env, cwd, trust, the user's timeout) stays.

// Wrap adds to a plan the wrapping of the MCP servers names in a's
// settings: changes is the plan so far (a file it already changes is
// changed further, not read again). An entry already wrapped is left as it
// is; a name not configured, or a server that is not started as a command
// (a URL), is an error naming it.
func Wrap(a Agent, env Env, changes []Change, names []string) ([]Change, []string, error) {
	if a.MCPSettings == nil {
		return nil, nil, fmt.Errorf("--wrap knows Claude Code's and Gemini CLI's settings, not %s's; put %q mcp-proxy -- in front of the server's command by hand", a.Name, env.Client)
	}
	path := a.MCPSettings(env)
	at, old, cur, err := planned(changes, path)
	if err != nil {
		return nil, nil, err
	}
	root, err := parseJSONObject(cur)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v; fix it, or wrap the server by hand", path, err)
	}
	servers, err := root.Object("mcpServers", "mcpServers")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	snippet, notes, err := wrapEntries(a, servers, names, env.Client)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	next, err := jsonIndent(root)
	if err != nil {
		return nil, nil, err
	}
	show, err := jsonIndent(JSONObj("mcpServers", snippet))
	if err != nil {
		return nil, nil, err
	}
	c := Change{Path: path, Old: old, New: keepIfSame(old, next), Mode: 0o600, Snippet: string(show)}
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

// planned finds the plan's change of path (at, -1 if none) and returns the
// file as it was and as the plan leaves it so far; without a change, both
// are the file as it is.
func planned(changes []Change, path string) (at int, old, cur []byte, err error) {
	at = -1
	for i, c := range changes {
		if c.Path == path {
			at = i
		}
	}
	if at >= 0 {
		return at, changes[at].Old, changes[at].New, nil
	}
	if old, err = ReadConfigFile(path); err != nil {
		return -1, nil, nil, err
	}
	return at, old, old, nil
}

// wrapEntries wraps each named server, and returns the wrapped entries as
// the snippet to show, with a note for each entry that needs one.
func wrapEntries(a Agent, servers *JSONObject, names []string, client string) (*JSONObject, []string, error) {
	snippet := NewJSONObject()
	var notes []string
	for _, name := range names {
		entry, note, err := wrapEntry(a, servers, name, client)
		if err != nil {
			return nil, nil, err
		}
		snippet.Set(name, entry)
		if note != "" {
			notes = append(notes, note)
		}
	}
	return snippet, notes, nil
}

// keepIfSame returns old when next is only old indented again, so that a
// file whose entries were all wrapped already is left byte for byte.
func keepIfSame(old, next []byte) []byte {
	if old == nil {
		return next
	}
	if same, err := parseJSONObject(old); err == nil {
		if a, _ := jsonIndent(same); string(a) == string(next) {
			return old
		}
	}
	return next
}

// mergeServersSnippet adds the servers of wrapped to the mcpServers of the
// JSON document shown, and shows the result.
func mergeServersSnippet(shown string, wrapped *JSONObject) (string, error) {
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
func wrapEntry(a Agent, servers *JSONObject, name, client string) (*JSONObject, string, error) {
	v, ok := servers.Get(name)
	if !ok {
		return nil, "", fmt.Errorf("no MCP server %q in mcpServers (configured: %s)", name, serverNames(servers))
	}
	entry, ok := v.(*JSONObject)
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
	if _, has := entry.Get("timeout"); a.WrapTimeoutMS > 0 && !has {
		entry.Set("timeout", json.Number(strconv.Itoa(a.WrapTimeoutMS)))
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

func serverNames(servers *JSONObject) string {
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
