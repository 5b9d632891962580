package claudecode

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"askuser/internal/integrate"
	"askuser/internal/shell"
)

func plan(env integrate.Env) ([]integrate.Change, []string, error) {
	dir := os.Getenv("CLAUDE_CONFIG_DIR")
	mcpFile := filepath.Join(env.Home, ".claude.json")
	settingsFile := filepath.Join(env.Home, ".claude", "settings.json")
	if dir != "" {
		mcpFile = filepath.Join(dir, ".claude.json")
		settingsFile = filepath.Join(dir, "settings.json")
	}

	// The MCP server at user scope, as `claude mcp add --scope user` writes it.
	entry := integrate.JSONObj("type", "stdio", "command", env.Client, "args", []any{"mcp"})
	mcp, err := integrate.JSONPlan(mcpFile, integrate.JSONObj("mcpServers", integrate.JSONObj("askuser", integrate.JSONObj("type", "stdio", "command", env.Client, "args", []any{"mcp"}, "env", integrate.NewJSONObject()))),
		func(root *integrate.JSONObject) error {
			cur, err := integrate.MCPServerEntry(root, entry)
			if err != nil {
				return err
			}
			// An "env" the user set is kept; otherwise an empty one, as
			// claude mcp add writes it.
			if _, ok := cur.Get("env"); !ok {
				cur.Set("env", integrate.NewJSONObject())
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
	hook := integrate.JSONObj("type", "command", "command", hookCmd, "timeout", json.Number(strconv.Itoa(integrate.TimeoutSec)))
	entries := []claudeHookEntry{{"PreToolUse", AskTool}, {"Elicitation", claudeElicitationMatcher}}
	if env.Permissions {
		entries = append(entries, claudeHookEntry{"PermissionRequest", claudePermissionMatcher})
	}
	allow := []any{"mcp__askuser__ask_user_question", "mcp__askuser__ask_user"}
	shown := integrate.NewJSONObject()
	for _, h := range entries {
		shown.Set(h.event, []any{integrate.JSONObj("matcher", h.matcher, "hooks", []any{hook})})
	}
	snippet := integrate.JSONObj("hooks", shown, "permissions", integrate.JSONObj("allow", allow))
	settings, err := integrate.JSONPlan(settingsFile, snippet, func(root *integrate.JSONObject) error {
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
	return []integrate.Change{mcp, settings}, notes, nil
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
func mergeClaudeHook(hooks *integrate.JSONObject, h claudeHookEntry, hook *integrate.JSONObject) error {
	list, err := hooks.List(h.event, "hooks."+h.event)
	if err != nil {
		return err
	}
	found := false
	for i, e := range list {
		eo, ok := e.(*integrate.JSONObject)
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
			ho, ok := x.(*integrate.JSONObject)
			if !ok {
				continue
			}
			if c, _ := ho.Get("command"); isAskuserHook(c) {
				integrate.SetKeys(ho, hook)
				found = true
			}
		}
	}
	if !found {
		hooks.Set(h.event, append(list, integrate.JSONObj("matcher", h.matcher, "hooks", []any{hook})))
	}
	return nil
}

// isAskuserHook recognises askuser's hook command, wherever the binary is.
func isAskuserHook(c any) bool {
	s, _ := c.(string)
	return strings.Contains(s, "askuser-client") && strings.HasSuffix(strings.TrimSpace(s), " claude-hook")
}

// Integration is what `askuser-client integrate claude` writes (docs/contract.md §11).
var Integration = integrate.Agent{Name: "claude", Plan: plan, Permissions: true, MCP: true, MCPSettings: mcpSettings}

// mcpSettings is Claude Code's ~/.claude.json (user scope, where `claude
// mcp add --scope user` writes), whose mcpServers --wrap changes.
func mcpSettings(env integrate.Env) string {
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, ".claude.json")
	}
	return filepath.Join(env.Home, ".claude.json")
}
