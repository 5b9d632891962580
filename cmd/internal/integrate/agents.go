package integrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"askuser/cmd/internal/agents/claudecode"
	"askuser/cmd/internal/shell"
	"askuser/integrations"
)

// agentPlans are the agents `askuser-client integrate` knows (docs/contract.md §11):
// each plans the files it changes and says what else the user should know.
var agentPlans = map[string]func(Env) ([]Change, []string, error){
	"claude":   planClaude,
	"codex":    planCodex,
	"gemini":   planGemini,
	"opencode": planOpencode,
	"pi":       planPi,
}

// A day: long enough for any person to answer, where the agent wants a limit.
const (
	integrateTimeoutSec = 86400
	integrateTimeoutMS  = 86400000
)

// codexEnvVars are the variables Codex must pass to the MCP server: it
// starts MCP servers with a reduced environment, and without these the
// client finds another socket and state dir than the pane's.
var codexEnvVars = []string{"XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME"}

// jsonPlan merges into the JSON object file at path with merge, and shows
// snippet as what is added.
func jsonPlan(path string, snippet *jsonObject, merge func(root *jsonObject) error) (Change, error) {
	old, err := readConfigFile(path)
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

// setKeys sets each key of want in o, keeping o's other keys.
func setKeys(o, want *jsonObject) {
	for _, k := range want.keys {
		o.Set(k, want.vals[k])
	}
}

// mcpServerEntry merges askuser's entry into root's "mcpServers" and
// returns the merged entry.
func mcpServerEntry(root *jsonObject, entry *jsonObject) (*jsonObject, error) {
	servers, err := root.Object("mcpServers", "mcpServers")
	if err != nil {
		return nil, err
	}
	cur, err := servers.Object("askuser", "mcpServers.askuser")
	if err != nil {
		return nil, err
	}
	setKeys(cur, entry)
	return cur, nil
}

// --- Claude Code ------------------------------------------------------------

func planClaude(env Env) ([]Change, []string, error) {
	dir := os.Getenv("CLAUDE_CONFIG_DIR")
	mcpFile := filepath.Join(env.Home, ".claude.json")
	settingsFile := filepath.Join(env.Home, ".claude", "settings.json")
	if dir != "" {
		mcpFile = filepath.Join(dir, ".claude.json")
		settingsFile = filepath.Join(dir, "settings.json")
	}

	// The MCP server at user scope, as `claude mcp add --scope user` writes it.
	entry := jsonObj("type", "stdio", "command", env.Client, "args", []any{"mcp"})
	mcp, err := jsonPlan(mcpFile, jsonObj("mcpServers", jsonObj("askuser", jsonObj("type", "stdio", "command", env.Client, "args", []any{"mcp"}, "env", newJSONObject()))),
		func(root *jsonObject) error {
			cur, err := mcpServerEntry(root, entry)
			if err != nil {
				return err
			}
			// An "env" the user set is kept; otherwise an empty one, as
			// claude mcp add writes it.
			if _, ok := cur.Get("env"); !ok {
				cur.Set("env", newJSONObject())
			}
			return nil
		})
	if err != nil {
		return nil, nil, err
	}

	// The hooks for Claude Code's own AskUserQuestion and for every MCP
	// server's elicitations ("*" matches the server's name), and with
	// --permissions the one for its permission prompts: every tool's
	// ("*"), since a prompt left out would still wait in a terminal.
	// Elicitations come always, like AskUserQuestion: they are questions
	// meant for the user, where a permission prompt is a gate some users
	// want to keep in the terminal. Hook commands run in a shell; the
	// default timeout (60 s) would cut a person off.
	hookCmd := shell.Quote(env.Client) + " claude-hook"
	hook := jsonObj("type", "command", "command", hookCmd, "timeout", json.Number(strconv.Itoa(integrateTimeoutSec)))
	entries := []claudeHookEntry{{"PreToolUse", claudecode.AskTool}, {"Elicitation", claudeElicitationMatcher}}
	if env.Permissions {
		entries = append(entries, claudeHookEntry{"PermissionRequest", claudePermissionMatcher})
	}
	allow := []any{"mcp__askuser__ask_user_question", "mcp__askuser__ask_user"}
	shown := newJSONObject()
	for _, h := range entries {
		shown.Set(h.event, []any{jsonObj("matcher", h.matcher, "hooks", []any{hook})})
	}
	snippet := jsonObj("hooks", shown, "permissions", jsonObj("allow", allow))
	settings, err := jsonPlan(settingsFile, snippet, func(root *jsonObject) error {
		hooks, err := root.Object("hooks", "hooks")
		if err != nil {
			return err
		}
		for _, h := range entries {
			if err := mergeClaudeHook(hooks, h, hook); err != nil {
				return err
			}
		}
		perms, err := root.Object("permissions", "permissions")
		if err != nil {
			return err
		}
		have, err := perms.List("allow", "permissions.allow")
		if err != nil {
			return err
		}
		for _, a := range allow {
			if !slices.Contains(have, a) {
				have = append(have, a)
			}
		}
		perms.Set("allow", have)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	notes := []string{
		"In a headless run (claude -p), add: --permission-prompt-tool mcp__askuser__permission_prompt",
		"  (Claude Code's own questions, and every permission prompt, then wait in askuser as a question).",
		"Add --permissions to have Claude Code's permission prompts wait in askuser in every session.",
	}
	if env.Permissions {
		notes = []string{
			"Claude Code's permission prompts, every tool's, now wait in askuser (Allow, Deny, its \"don't ask again\" choices);",
			"  an interactive session shows its own dialog too, and whichever is answered first wins.",
		}
	}
	return []Change{mcp, settings}, notes, nil
}

// claudePermissionMatcher is the PermissionRequest hook's matcher: every
// tool.
const claudePermissionMatcher = "*"

// claudeElicitationMatcher is the Elicitation hook's matcher: every MCP
// server (Claude Code matches it against the server's name).
const claudeElicitationMatcher = "*"

// claudeHookEntry is one of askuser's entries in Claude Code's "hooks".
type claudeHookEntry struct {
	event, matcher string
}

// mergeClaudeHook sets askuser's hook in hooks[h.event]: an entry with the
// same matcher that already runs askuser-client claude-hook is brought up
// to date, other entries are kept as they are, and without one it is added.
func mergeClaudeHook(hooks *jsonObject, h claudeHookEntry, hook *jsonObject) error {
	list, err := hooks.List(h.event, "hooks."+h.event)
	if err != nil {
		return err
	}
	found := false
	for i, e := range list {
		eo, ok := e.(*jsonObject)
		if !ok {
			continue
		}
		if m, _ := eo.Get("matcher"); m != h.matcher {
			continue
		}
		inner, err := eo.List("hooks", fmt.Sprintf("hooks.%s[%d].hooks", h.event, i))
		if err != nil {
			return err
		}
		for _, x := range inner {
			ho, ok := x.(*jsonObject)
			if !ok {
				continue
			}
			if c, _ := ho.Get("command"); isAskuserHook(c) {
				setKeys(ho, hook)
				found = true
			}
		}
	}
	if !found {
		hooks.Set(h.event, append(list, jsonObj("matcher", h.matcher, "hooks", []any{hook})))
	}
	return nil
}

// isAskuserHook recognises askuser's hook command, wherever the binary is.
func isAskuserHook(c any) bool {
	s, _ := c.(string)
	return strings.Contains(s, "askuser-client") && strings.HasSuffix(strings.TrimSpace(s), " claude-hook")
}

// --- Gemini CLI -------------------------------------------------------------

func planGemini(env Env) ([]Change, []string, error) {
	path := filepath.Join(env.Home, ".gemini", "settings.json")
	entry := jsonObj("command", env.Client, "args", []any{"mcp"}, "timeout", json.Number(strconv.Itoa(integrateTimeoutMS)))
	c, err := jsonPlan(path, jsonObj("mcpServers", jsonObj("askuser", entry)), func(root *jsonObject) error {
		_, err := mcpServerEntry(root, entry)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	policy, err := geminiPolicy(env)
	if err != nil {
		return nil, nil, err
	}
	return []Change{c, policy}, nil, nil
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
func geminiPolicy(env Env) (Change, error) {
	path := filepath.Join(env.Home, ".gemini", "policies", "askuser.toml")
	old, err := readConfigFile(path)
	if err != nil {
		return Change{}, err
	}
	return Change{Path: path, Old: old, New: []byte(geminiPolicyText), Mode: 0o600, Snippet: geminiPolicyText}, nil
}

// --- Codex ------------------------------------------------------------------

// The lines of config.toml that planCodex looks for. Compiled on first use,
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
		"tool_timeout_sec": strconv.Itoa(integrateTimeoutSec),
	}
}

func planCodex(env Env) ([]Change, []string, error) {
	dir := os.Getenv("CODEX_HOME")
	if dir == "" {
		dir = filepath.Join(env.Home, ".codex")
	}
	path := filepath.Join(dir, "config.toml")
	old, err := readConfigFile(path)
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
	return []Change{{Path: path, Old: old, New: []byte(next), Mode: 0o600, Snippet: snippet}}, notes, nil
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

// --- pi ---------------------------------------------------------------------

// piDefaultClient is the line of the extension that names the client; the
// written copy names the absolute path instead.
const piDefaultClient = `const defaultClient = "askuser-client";`

// piExtensionText is the extension as written for this client.
func piExtensionText(client string) ([]byte, error) {
	src := integrations.PiExtension
	if !bytes.Contains(src, []byte(piDefaultClient)) {
		return nil, fmt.Errorf("the embedded pi extension has no line %q", piDefaultClient)
	}
	line := "const defaultClient = " + strconv.Quote(client) + ";"
	return bytes.Replace(src, []byte(piDefaultClient), []byte(line), 1), nil
}

func planPi(env Env) ([]Change, []string, error) {
	dir := os.Getenv("PI_CODING_AGENT_DIR")
	if dir == "" {
		dir = filepath.Join(env.Home, ".pi", "agent")
	}
	path := filepath.Join(dir, "extensions", "askuser.ts")
	old, err := readConfigFile(path)
	if err != nil {
		return nil, nil, err
	}
	text, err := piExtensionText(env.Client)
	if err != nil {
		return nil, nil, err
	}
	snippet := fmt.Sprintf("the askuser extension (%d lines): pi's ask_user tool and /questions, asking through %s\n",
		bytes.Count(text, []byte("\n")), env.Client)
	notes := []string{"pi loads it at its next start (or /reload in a running pi)."}
	return []Change{{Path: path, Old: old, New: text, Mode: 0o644, Snippet: snippet}}, notes, nil
}
