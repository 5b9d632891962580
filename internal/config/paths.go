package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// SocketPath resolves the socket (docs/contract.md §2): the flag, then ASKUSER_SOCKET, then
// daemon.socket, then $XDG_RUNTIME_DIR/askuser/askuserd.sock, then
// /tmp/askuser-$UID/askuserd.sock.
func (c Config) SocketPath(flag string) string {
	switch {
	case flag != "":
		return flag
	case os.Getenv("ASKUSER_SOCKET") != "":
		return os.Getenv("ASKUSER_SOCKET")
	case c.Daemon.Socket != "":
		return expandHome(c.Daemon.Socket)
	}
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		return filepath.Join(rt, "askuser", "askuserd.sock")
	}
	// docs/contract.md §2 names /tmp itself, not $TMPDIR: an agent and a pane started
	// from shells with different TMPDIRs must still find the same daemon.
	return filepath.Join("/tmp", fmt.Sprintf("askuser-%d", os.Getuid()), "askuserd.sock")
}

// StateDir is daemon.state_dir, else $XDG_STATE_HOME/askuser (~/.local/state/askuser).
func (c Config) StateDir() string {
	if c.Daemon.StateDir != "" {
		return expandHome(c.Daemon.StateDir)
	}
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "askuser")
}

// PendingFilePath is daemon.pending_file, else <state dir>/pending-questions.json.
func (c Config) PendingFilePath() string {
	if c.Daemon.PendingFile != "" {
		return expandHome(c.Daemon.PendingFile)
	}
	return filepath.Join(c.StateDir(), "pending-questions.json")
}

// DaemonLogPath is where a daemon started in the background (by a pane or a
// client) writes its output: <state dir>/askuserd.log, beside the state it
// describes, so that "see askuserd.log" in an error names one place.
func (c Config) DaemonLogPath() string {
	return filepath.Join(c.StateDir(), "askuserd.log")
}

// Editor is ui.editor, else $VISUAL, else $EDITOR, else vi.
func (c Config) Editor() string {
	for _, e := range []string{c.UI.Editor, os.Getenv("VISUAL"), os.Getenv("EDITOR")} {
		if e != "" {
			return e
		}
	}
	return "vi"
}

func expandHome(p string) string {
	if len(p) >= 2 && p[:2] == "~/" {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	return p
}
