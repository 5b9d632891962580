package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"askuser/internal/agents"
	"askuser/internal/integrate"
	"askuser/socketproto/askclient"
)

const integrateSynopsis = `integrate claude|codex|gemini|opencode|pi|zed [--write] [--command PATH] [--permissions] [--wrap NAME]…

Prints what askuser adds to the agent's configuration, file by file; with
--write merges it in: other settings are kept as they are, running it twice
changes nothing, and each file changed is first copied to FILE.bak-TIME.

  claude  ~/.claude.json: the MCP server (ask_user_question, ask_user,
          permission_prompt); ~/.claude/settings.json: the PreToolUse hook that
          answers Claude Code's own AskUserQuestion in askuser, and permission
          to call the ask tools without a prompt ($CLAUDE_CONFIG_DIR moves both);
          with --permissions also the PermissionRequest hook (matcher "*"),
          so that Claude Code's permission prompts wait in askuser
  codex   ~/.codex/config.toml ($CODEX_HOME): the MCP server, with the
          environment askuser needs passed through and a day-long tool timeout;
          with --permissions also the PermissionRequest hook (matcher "*"),
          so that Codex's approval prompts wait in askuser (trust it once in
          Codex's /hooks)
  gemini  ~/.gemini/settings.json: the MCP server with a day-long timeout
  opencode ~/.config/opencode/ ($XDG_CONFIG_HOME): plugins/askuser.ts, which
          sends OpenCode's own questions and permission prompts to askuser, and
          the MCP server in opencode.json with a day-long timeout
  pi      ~/.pi/agent/extensions/askuser.ts ($PI_CODING_AGENT_DIR): pi's
          ask_user tool and /questions command
  zed     ~/.config/zed/settings.json ($XDG_CONFIG_HOME): every ACP agent in
          agent_servers behind 'askuser-client acp-proxy' (an entry with a
          command is wrapped where it stands), and an entry "NAME (askuser)"
          for each of claude-code-acp, codex-acp and gemini found on the PATH,
          so their permission requests wait in askuser as well as in Zed

--wrap NAME (claude, gemini) also puts the configured MCP server NAME behind
'askuser-client mcp-proxy', so the forms it asks its user (MCP elicitation)
wait in askuser: in ~/.claude.json's user-scope mcpServers, or in
~/.gemini/settings.json's mcpServers.`

var integrateCommand = command{
	name:     "integrate",
	summary:  "connect an agent (claude, codex, gemini, opencode, pi) or Zed: print, or --write, its settings",
	synopsis: integrateSynopsis,
	args:     argCount{1, 1, "agent (claude, codex, gemini, opencode, pi or zed)"},
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		write := fs.Bool("write", false, "merge the settings in (a backup of each file changed is kept)")
		command := fs.String("command", "", "the askuser-client the agent runs (default: this program's absolute path)")
		permissions := fs.Bool("permissions", false, "claude, codex: its permission prompts wait in askuser too (the PermissionRequest hook)")
		var wrap listFlag
		fs.Var(&wrap, "wrap", "also run the configured MCP server `NAME` behind askuser-client mcp-proxy (claude, gemini; repeatable)")
		return func(x *invocation) error { return runIntegrate(x, *write, *command, *permissions, wrap) }
	},
}

// runIntegrate prints, or with write merges in, what connects agent x.args[0]
// to askuser; command is the askuser-client it runs ("" = this one);
// permissions brings the agent's permission prompts to askuser too; wrap
// names MCP servers to put behind mcp-proxy.
func runIntegrate(x *invocation, write bool, command string, permissions bool, wrap []string) error {
	stdout, stderr := x.stdout, x.stderr
	agent := x.args[0]
	a, ok := agents.Named(agent)
	if !ok {
		return unknownWord("agent", agent, agents.Names(), "want claude, codex, gemini, opencode, pi or zed")
	}
	if permissions && !a.Permissions {
		return usagef("--permissions: only for claude and codex")
	}
	if len(wrap) > 0 && a.MCPSettings == nil {
		return usagef("--wrap knows Claude Code's and Gemini CLI's settings (claude, gemini), not %s's", agent)
	}
	client := command
	if client == "" {
		var why string
		var err error
		if client, why, err = defaultClientCommand(); err != nil {
			return fmt.Errorf("%s: %w", agent, err)
		}
		// Said on stderr, so that what the agent will run is never a
		// surprise and a printed plan stays the plan alone.
		fmt.Fprintf(stderr, "askuser-client integrate %s: the agent will run %s (%s; --command to choose another)\n", agent, client, why)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return err
	}
	env := integrate.Env{Home: home, Client: client, Permissions: permissions}
	changes, notes, err := a.Plan(env)
	if err != nil {
		return fmt.Errorf("%s: %w", agent, err)
	}
	if len(wrap) > 0 {
		var more []string
		if changes, more, err = integrate.Wrap(a, env, changes, wrap); err != nil {
			return fmt.Errorf("%s: %w", agent, err)
		}
		notes = append(notes, more...)
	}
	// A config that starts `askuser-client mcp` needs askuser-mcp where that
	// client will look for it: better said now than by an agent whose MCP
	// server fails to start.
	if a.MCP {
		if err := mcpServerFor(client); err != nil {
			fmt.Fprintf(stderr, "askuser-client integrate %s: warning: %v, so the agent's MCP server will not start until it is installed ('go install ./cmd/...' from askuser's source installs askuser's three programs together)\n", agent, err)
		}
	}
	if !write {
		printPlan(stdout, agent, changes, notes)
		return nil
	}
	stamp := time.Now().UTC().Format("20060102T150405Z")
	for _, c := range changes {
		msg, err := c.Apply(stamp)
		if err != nil {
			return fmt.Errorf("%s: %w", agent, err)
		}
		fmt.Fprintln(stdout, msg)
	}
	for _, n := range notes {
		fmt.Fprintln(stdout, n)
	}
	return nil
}

// printPlan shows what --write would change, file by file.
func printPlan(w io.Writer, agent string, changes []integrate.Change, notes []string) {
	todo := 0
	for _, c := range changes {
		if !c.Unchanged() {
			todo++
		}
	}
	if todo == 0 {
		fmt.Fprintf(w, "%s is already set up for askuser; nothing to add.\n", agent)
	} else {
		fmt.Fprintf(w, "askuser-client integrate %s --write would merge this into %d %s (other settings kept, a backup of each kept):\n",
			agent, todo, plural(todo, "file", "files"))
	}
	for _, c := range changes {
		switch {
		case c.Unchanged():
			fmt.Fprintf(w, "\n%s: already set up\n", c.Path)
		case c.Old == nil:
			fmt.Fprintf(w, "\n%s (a new file):\n%s", c.Path, c.Snippet)
		default:
			fmt.Fprintf(w, "\n%s:\n%s", c.Path, c.Snippet)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		if todo > 0 {
			// Nothing is written yet: what the notes say holds once it is.
			fmt.Fprintln(w, "Once written:")
		}
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
	}
}

// defaultClientCommand is the askuser-client the agent will run, and why:
// this program's absolute path, so that agents that start it with a reduced
// PATH (Codex, GUI apps) still find it. A `go run` build lives in a
// directory the go command deletes afterwards, so then the askuser-client
// on PATH is taken, by its absolute path too; with none there, the user
// must say which with --command.
func defaultClientCommand() (command, why string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return "", "", fmt.Errorf("cannot tell where this program is (%v); give the askuser-client to run with --command", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	if !strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return exe, "this program's absolute path", nil
	}
	if p, err := exec.LookPath("askuser-client"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, "this is a 'go run' build, which is deleted when it ends; the askuser-client on PATH is used", nil
		}
	}
	return "", "", errors.New("this is a 'go run' build, which is deleted when it ends, and no askuser-client is on PATH; " +
		"install askuser ('go install ./cmd/...') and run integrate again, or give the program to run with --command")
}

// mcpServerFor reports whether `CLIENT mcp` will find askuser-mcp: beside
// the client program (its real path, as os.Executable gives it) or on PATH.
func mcpServerFor(client string) error {
	path := client
	if !strings.ContainsRune(client, filepath.Separator) {
		if p, err := exec.LookPath(client); err == nil {
			path = p
		}
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	_, err := askclient.FindProgramIn(filepath.Dir(path), "askuser-mcp")
	return err
}
