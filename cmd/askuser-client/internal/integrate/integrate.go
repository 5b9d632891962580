// Package integrate plans and writes what connects an agent to askuser
// (SPEC §11): Claude Code's MCP server entry, hook and permissions, Codex's
// and Gemini CLI's MCP server, pi's extension. A plan is the files it would
// change, before and after, merged into whatever the user already has; the
// command's main decides whether to print it or write it.
package integrate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Agents are the agents Plan knows, in order.
func Agents() []string {
	names := make([]string, 0, len(agentPlans))
	for n := range agentPlans {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Plan is what connecting agent takes: the files to change and what else the
// user should know.
func Plan(agent string, env Env) ([]Change, []string, error) {
	plan, ok := agentPlans[agent]
	if !ok {
		return nil, nil, fmt.Errorf("unknown agent %q", agent)
	}
	return plan(env)
}

// Env is what a plan depends on, so tests can point it anywhere.
type Env struct {
	Home   string // the user's home directory
	Client string // the askuser-client command the agent runs
}

// Change is one file of a plan: its text before and after, and the part
// askuser adds, to show.
type Change struct {
	Path    string
	Old     []byte // nil: the file does not exist
	New     []byte
	Mode    fs.FileMode // for a file that does not exist yet
	Snippet string      // the part askuser adds, to show
}

// Unchanged reports whether the file already holds what the plan would write.
func (c Change) Unchanged() bool { return c.Old != nil && bytes.Equal(c.Old, c.New) }

// Apply writes the file (atomically, keeping its mode) after copying the old
// one aside, and says what it did.
func (c Change) Apply(stamp string) (string, error) {
	if c.Unchanged() {
		return c.Path + ": already set up, left as it is", nil
	}
	mode := c.Mode
	if st, err := os.Stat(c.Path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
		return "", err
	}
	backup := ""
	if c.Old != nil {
		backup = c.Path + ".bak-" + stamp
		if err := os.WriteFile(backup, c.Old, mode); err != nil {
			return "", fmt.Errorf("keeping a backup of %s: %v", c.Path, err)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.Path), "."+filepath.Base(c.Path)+".askuser-*")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(c.New)
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
		err = os.Rename(tmp.Name(), c.Path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("writing %s: %v", c.Path, err)
	}
	if backup == "" {
		return "created " + c.Path, nil
	}
	return "updated " + c.Path + " (the old one is kept as " + backup + ")", nil
}

// readConfigFile reads a config file; a missing one is nil, not an error.
func readConfigFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}
