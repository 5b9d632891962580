// Package integrate plans and writes what connects an agent to askuser
// (docs/contract.md §11), knowing no agent: each agent's folder under internal/agents
// says what to merge into its files, with this package's merging of JSON
// objects kept in the user's order, and --wrap's putting MCP servers behind
// mcp-proxy. A plan is the files it would change, before and after, merged
// into whatever the user already has; the command's main decides whether to
// print it or write it.
package integrate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"askuser/internal/atomicfile"
)

// Env is what a plan depends on, so tests can point it anywhere.
type Env struct {
	Home   string // the user's home directory
	Client string // the askuser-client command the agent runs
	// Permissions: the agent's permission prompts come to askuser too
	// (Claude Code's PermissionRequest hook).
	Permissions bool
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
// one aside, and says what it did. A path that is a symbolic link (settings
// kept in a dotfiles repository) is written through: the file it points to
// gets the change and the link stays a link.
func (c Change) Apply(stamp string) (string, error) {
	if c.Unchanged() {
		return c.Path + ": already set up, left as it is", nil
	}
	target, err := writeTarget(c.Path)
	if err != nil {
		return "", err
	}
	mode := c.Mode
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return "", err
	}
	backup := ""
	if c.Old != nil {
		backup = c.Path + ".bak-" + stamp
		if err := os.WriteFile(backup, c.Old, mode); err != nil {
			return "", fmt.Errorf("keeping a backup of %s: %v", c.Path, err)
		}
	}
	if err := atomicfile.Write(target, c.New, mode); err != nil {
		return "", fmt.Errorf("writing %s: %v", target, err)
	}
	what := c.Path
	if target != c.Path {
		what += " (a link; written to " + target + ")"
	}
	if backup == "" {
		return "created " + what, nil
	}
	return "updated " + what + " (the old one is kept as " + backup + ")", nil
}

// writeTarget is where a change to path is written: path itself, or, when
// path is a symbolic link, the file it resolves to (which may not exist yet).
func writeTarget(path string) (string, error) {
	li, err := os.Lstat(path)
	if err != nil || li.Mode()&fs.ModeSymlink == 0 {
		return path, nil
	}
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		return resolved, nil
	}
	// A dangling link: follow it one hop at a time to the missing file.
	target := path
	for range 40 {
		dest, err := os.Readlink(target)
		if err != nil {
			return target, nil
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(target), dest)
		}
		target = dest
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// maxConfigBytes bounds a settings file integrate reads: far above any real
// one, low enough that a mistake (a log file at the path) is refused rather
// than read into memory.
const maxConfigBytes = 16 << 20

// ReadConfigFile reads a config file; a missing one is nil, not an error.
// Only a regular file is read: a FIFO or a device at the path is refused at
// once (opened without blocking), never waited on.
func ReadConfigFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // also a dangling link: the file it names is created
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, not a regular file; integrate reads and writes regular files only", path, atomicfile.Kind(st.Mode()))
	}
	if st.Size() > maxConfigBytes {
		return nil, fmt.Errorf("%s is %d bytes, more than integrate reads (%d MiB); is it the right file?", path, st.Size(), maxConfigBytes>>20)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err == nil && len(b) > maxConfigBytes {
		err = fmt.Errorf("%s: more than %d MiB; is it the right file?", path, maxConfigBytes>>20)
	}
	return b, err
}
