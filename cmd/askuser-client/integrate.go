package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const integrateSynopsis = `integrate claude|codex|gemini|pi [--write] [--command PATH]

Prints what askuser adds to the agent's configuration, file by file; with
--write merges it in: other settings are kept as they are, running it twice
changes nothing, and each file changed is first copied to FILE.bak-TIME.

  claude  ~/.claude.json: the MCP server (ask_user_question, ask_user,
          permission_prompt); ~/.claude/settings.json: the PreToolUse hook that
          answers Claude Code's own AskUserQuestion in askuser, and permission
          to call the ask tools without a prompt ($CLAUDE_CONFIG_DIR moves both)
  codex   ~/.codex/config.toml ($CODEX_HOME): the MCP server, with the
          environment askuser needs passed through and a day-long tool timeout
  gemini  ~/.gemini/settings.json: the MCP server with a day-long timeout
  pi      ~/.pi/agent/extensions/askuser.ts ($PI_CODING_AGENT_DIR): pi's
          ask_user tool and /questions command`

func runIntegrate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("integrate", integrateSynopsis, stderr)
	write := fs.Bool("write", false, "merge the settings in (a backup of each file changed is kept)")
	command := fs.String("command", "", "the askuser-client the agent runs (default: this program's absolute path)")
	pos, code := parseArgs(fs, args, stdout)
	if code != nil {
		return *code
	}
	if len(pos) != 1 {
		return usageError(fs, stderr, "want one agent (claude, codex, gemini or pi), got %d arguments", len(pos))
	}
	agent := pos[0]
	plan, ok := agentPlans[agent]
	if !ok {
		return usageError(fs, stderr, "unknown agent %q; want claude, codex, gemini or pi", agent)
	}
	client := *command
	if client == "" {
		client = defaultClientCommand()
	}
	home, err := os.UserHomeDir()
	if err != nil {
		fmt.Fprintln(stderr, "askuser-client integrate:", err)
		return exitFailed
	}
	changes, notes, err := plan(integrateEnv{home: home, client: client})
	if err != nil {
		fmt.Fprintln(stderr, "askuser-client integrate "+agent+":", err)
		return exitFailed
	}
	if !*write {
		printPlan(stdout, agent, changes, notes)
		return exitOK
	}
	stamp := time.Now().UTC().Format("20060102T150405Z")
	for _, c := range changes {
		msg, err := c.apply(stamp)
		if err != nil {
			fmt.Fprintf(stderr, "askuser-client integrate %s: %v\n", agent, err)
			return exitFailed
		}
		fmt.Fprintln(stdout, msg)
	}
	for _, n := range notes {
		fmt.Fprintln(stdout, n)
	}
	return exitOK
}

// integrateEnv is what a plan depends on, so tests can point it anywhere.
type integrateEnv struct {
	home   string // the user's home directory
	client string // the askuser-client command the agent runs
}

// fileChange is one file of a plan: its text before (nil: absent) and after,
// and the part askuser adds, to show.
type fileChange struct {
	path    string
	old     []byte
	new     []byte
	mode    fs.FileMode // for a file that does not exist yet
	snippet string
}

func (c fileChange) unchanged() bool { return c.old != nil && bytes.Equal(c.old, c.new) }

// apply writes the file (atomically, keeping its mode) after copying the old
// one aside, and says what it did.
func (c fileChange) apply(stamp string) (string, error) {
	if c.unchanged() {
		return c.path + ": already set up, left as it is", nil
	}
	mode := c.mode
	if st, err := os.Stat(c.path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return "", err
	}
	backup := ""
	if c.old != nil {
		backup = c.path + ".bak-" + stamp
		if err := os.WriteFile(backup, c.old, mode); err != nil {
			return "", fmt.Errorf("keeping a backup of %s: %v", c.path, err)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), "."+filepath.Base(c.path)+".askuser-*")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(c.new)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("writing %s: %v", c.path, err)
	}
	if backup == "" {
		return "created " + c.path, nil
	}
	return "updated " + c.path + " (the old one is kept as " + backup + ")", nil
}

func printPlan(w io.Writer, agent string, changes []fileChange, notes []string) {
	todo := 0
	for _, c := range changes {
		if !c.unchanged() {
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
		case c.unchanged():
			fmt.Fprintf(w, "\n%s: already set up\n", c.path)
		case c.old == nil:
			fmt.Fprintf(w, "\n%s (a new file):\n%s", c.path, c.snippet)
		default:
			fmt.Fprintf(w, "\n%s:\n%s", c.path, c.snippet)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
	}
}

// readConfigFile reads a config file; a missing one is nil, not an error.
func readConfigFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// defaultClientCommand is this program's absolute path, so that agents that
// start it with a reduced PATH (Codex, GUI apps) still find it; `go run`
// builds into a temporary directory, and then the name on PATH is better.
func defaultClientCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "askuser-client"
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	if strings.HasPrefix(exe, filepath.Clean(os.TempDir())+string(filepath.Separator)) || strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "askuser-client"
	}
	return exe
}
