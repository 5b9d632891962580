package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claude-hook and codex-hook hand their flags and streams to the agents'
// folders, where the hooks are tested: with --socket where no daemon
// listens, each steps aside (exit 0, nothing on stdout, the agent's own
// prompt said on stderr) and starts no daemon.
func TestHookCommandsStepAsideWithoutDaemon(t *testing.T) {
	for _, c := range []struct{ command, input, fallback string }{
		{"claude-hook", `{"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","session_id":"s","tool_input":{"questions":[` +
			`{"question":"Which?","header":"Which","multiSelect":false,"options":[{"label":"A"},{"label":"B"}]}]}}`,
			"; Claude Code asks in its own dialog\n"},
		{"codex-hook", `{"hook_event_name":"PermissionRequest","tool_name":"Bash","session_id":"s","cwd":"/tmp","tool_input":{"command":"ls"}}`,
			"; Codex asks in its own prompt\n"},
	} {
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		sock := filepath.Join(dir, "none.sock")
		var out, errb bytes.Buffer
		code := dispatch([]string{c.command, "--socket", sock}, strings.NewReader(c.input), &out, &errb)
		if code != exitOK || out.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q; want 0 and nothing", c.command, code, out.String())
		}
		if !strings.HasPrefix(errb.String(), "askuser-client "+c.command+": ") || !strings.HasSuffix(errb.String(), c.fallback) {
			t.Errorf("%s: stderr %q", c.command, errb.String())
		}
		if _, err := os.Stat(sock); err == nil {
			t.Errorf("%s started a daemon at %s", c.command, sock)
		}
	}
}
