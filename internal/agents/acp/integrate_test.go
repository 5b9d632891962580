package acp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"askuser/internal/integrate"
)

// zedEnv is a home with Zed's settings holding text (none when empty), and
// the programs on a pretend PATH.
func zedEnv(t *testing.T, text string, programs ...string) (integrate.Env, string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", "")
	path := filepath.Join(home, ".config", "zed", "settings.json")
	if text != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := lookPath
	t.Cleanup(func() { lookPath = old })
	lookPath = func(name string) (string, error) {
		for _, p := range programs {
			if p == name {
				return "/opt/bin/" + name, nil
			}
		}
		return "", exec.ErrNotFound
	}
	return integrate.Env{Home: home, Client: "/usr/local/bin/askuser-client"}, path
}

// Each ACP agent on the PATH gets an entry behind the proxy; the user's own
// entry with a command is wrapped where it stands, everything else of it
// and of the file kept; Zed's own agents (no command) are left, said so;
// writing twice changes nothing.
func TestZedPlan(t *testing.T) {
	settings := `{
  "theme": "One Dark",
  "agent_servers": {
    "Mine": {"command": "/home/u/bin/my-agent", "args": ["--acp"], "env": {"K": "v"}},
    "claude": {"default_mode": "plan"}
  }
}
`
	env, path := zedEnv(t, settings, "claude-code-acp", "gemini")
	changes, notes, err := zedPlan(env)
	if err != nil {
		t.Fatal(err)
	}
	got := string(changes[0].New)
	for _, want := range []string{
		`"theme": "One Dark"`,
		`"Mine": {
      "command": "/usr/local/bin/askuser-client",
      "args": [
        "acp-proxy",
        "--",
        "/home/u/bin/my-agent",
        "--acp"
      ],
      "env": {
        "K": "v"
      }
    }`,
		`"claude": {
      "default_mode": "plan"
    }`,
		`"Claude Code (askuser)": {
      "type": "custom",
      "command": "/usr/local/bin/askuser-client",
      "args": [
        "acp-proxy",
        "--",
        "/opt/bin/claude-code-acp"
      ]
    }`,
		`"/opt/bin/gemini",
        "--experimental-acp"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the new settings lack\n%s\nin\n%s", want, got)
		}
	}
	if strings.Contains(got, "Codex (askuser)") {
		t.Errorf("an entry for an agent not on the PATH:\n%s", got)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "agent_servers.claude") {
		t.Errorf("notes %q; want one about Zed's own claude entry", notes)
	}
	if !strings.Contains(changes[0].Snippet, "Mine") || strings.Contains(changes[0].Snippet, "theme") {
		t.Errorf("the snippet shows %s", changes[0].Snippet)
	}
	if _, err := changes[0].Apply("stamp"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path + ".bak-stamp"); string(b) != settings {
		t.Errorf("the backup holds %q", b)
	}
	again, _, err := zedPlan(env)
	if err != nil || !again[0].Unchanged() {
		t.Errorf("a second run would change the file (%v):\n%s", err, again[0].New)
	}
}

// No settings file and no agent: a new file with an empty agent_servers,
// and a note saying how to add one.
func TestZedPlanNothingFound(t *testing.T) {
	env, _ := zedEnv(t, "")
	changes, notes, err := zedPlan(env)
	if err != nil {
		t.Fatal(err)
	}
	if changes[0].Old != nil || len(notes) != 1 || !strings.Contains(notes[0], `"acp-proxy", "--", "AGENT"`) {
		t.Errorf("change %+v, notes %q", changes[0], notes)
	}
}

// Zed allows comments in its settings; askuser does not rewrite such a
// file (the comments would be lost) and says to add the entries by hand.
func TestZedPlanComments(t *testing.T) {
	env, _ := zedEnv(t, "// my settings\n{\"theme\": \"x\"}\n", "codex-acp")
	if _, _, err := zedPlan(env); err == nil || !strings.Contains(err.Error(), "by hand") {
		t.Errorf("err %v; want a refusal saying to add the settings by hand", err)
	}
}
