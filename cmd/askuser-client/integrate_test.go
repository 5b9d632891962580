package main

import (
	"askuser/tests/testdir"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// integrateIn runs `integrate args…` with HOME at home and the agents'
// directory variables unset.
func integrateIn(t *testing.T, home string, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("HOME", home)
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR"} {
		t.Setenv(k, "")
	}
	var out, errb bytes.Buffer
	code := dispatch(append([]string{"integrate"}, args...), nil, &out, &errb)
	return out.String(), errb.String(), code
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readTestFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func backups(t *testing.T, path string) []string {
	t.Helper()
	m, _ := filepath.Glob(path + ".bak-*")
	return m
}

const testClient = "/opt/askuser/bin/askuser-client"

func TestIntegratePrintsAndWritesNothingWithoutWrite(t *testing.T) {
	for _, agent := range []string{"claude", "codex", "gemini", "pi"} {
		t.Run(agent, func(t *testing.T) {
			home := t.TempDir()
			out, errOut, code := integrateIn(t, home, agent, "--command", testClient)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(out, "--write would merge") || !strings.Contains(out, home) {
				t.Errorf("output:\n%s", out)
			}
			var files []string
			_ = filepath.Walk(home, func(p string, info os.FileInfo, err error) error {
				if err == nil && !info.IsDir() {
					files = append(files, p)
				}
				return nil
			})
			if len(files) > 0 {
				t.Errorf("wrote %v without --write", files)
			}
		})
	}
}

func TestIntegrateWriteIsIdempotent(t *testing.T) {
	for _, agent := range []string{"claude", "codex", "gemini", "pi"} {
		t.Run(agent, func(t *testing.T) {
			home := t.TempDir()
			if _, errOut, code := integrateIn(t, home, agent, "--write", "--command", testClient); code != 0 {
				t.Fatalf("first --write: exit %d: %s", code, errOut)
			}
			snapshot := map[string]string{}
			_ = filepath.Walk(home, func(p string, info os.FileInfo, err error) error {
				if err == nil && !info.IsDir() {
					snapshot[p] = readTestFile(t, p)
				}
				return nil
			})
			out, errOut, code := integrateIn(t, home, agent, "--write", "--command", testClient)
			if code != 0 {
				t.Fatalf("second --write: exit %d: %s", code, errOut)
			}
			if strings.Contains(out, "updated") || strings.Contains(out, "created") || !strings.Contains(out, "already set up") {
				t.Errorf("second --write says:\n%s", out)
			}
			after := 0
			_ = filepath.Walk(home, func(p string, info os.FileInfo, err error) error {
				if err == nil && !info.IsDir() {
					after++
					if readTestFile(t, p) != snapshot[p] {
						t.Errorf("%s changed on the second run", p)
					}
				}
				return nil
			})
			if after != len(snapshot) {
				t.Errorf("the second run left %d files, the first %d (a backup of an unchanged file?)", after, len(snapshot))
			}
			out, _, _ = integrateIn(t, home, agent, "--command", testClient)
			if !strings.Contains(out, "already set up for askuser; nothing to add") {
				t.Errorf("printing after --write:\n%s", out)
			}
		})
	}
}

func TestIntegrateClaudeKeepsOtherSettings(t *testing.T) {
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	orig := `{
  "model": "opus",
  "permissions": {"allow": ["Bash(git status)"], "deny": ["Read(.env)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint-bash <&0"}]},
      {"matcher": "AskUserQuestion", "hooks": [{"type": "command", "command": "/old/path/askuser-client claude-hook"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "env": {"FOO": "bar"}
}
`
	writeTestFile(t, settings, orig)
	claudeJSON := filepath.Join(home, ".claude.json")
	writeTestFile(t, claudeJSON, `{"numStartups": 7, "mcpServers": {"other": {"type": "stdio", "command": "other-mcp", "args": []}}}`)

	out, errOut, code := integrateIn(t, home, "claude", "--write", "--command", testClient)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "updated "+settings) || !strings.Contains(out, "--permission-prompt-tool mcp__askuser__permission_prompt") {
		t.Errorf("output:\n%s", out)
	}
	if b := backups(t, settings); len(b) != 1 || readTestFile(t, b[0]) != orig {
		t.Errorf("backups of settings.json: %v", b)
	}
	text := readTestFile(t, settings)
	if model, perms, hooks, env := strings.Index(text, `"model"`), strings.Index(text, `"permissions"`), strings.Index(text, `"hooks"`), strings.Index(text, `"env"`); !(0 <= model && model < perms && perms < hooks && hooks < env) {
		t.Errorf("keys not in the file's order (model, permissions, hooks, env):\n%s", text)
	}
	var s struct {
		Model       string
		Permissions struct{ Allow, Deny []string }
		Hooks       map[string][]struct {
			Matcher string
			Hooks   []map[string]any
		}
		Env map[string]string
	}
	if err := json.Unmarshal([]byte(readTestFile(t, settings)), &s); err != nil {
		t.Fatal(err)
	}
	if s.Model != "opus" || s.Env["FOO"] != "bar" || len(s.Permissions.Deny) != 1 || len(s.Hooks["Stop"]) != 1 {
		t.Errorf("other settings lost: %+v", s)
	}
	if want := []string{"Bash(git status)", "mcp__askuser__ask_user_question", "mcp__askuser__ask_user"}; strings.Join(s.Permissions.Allow, "|") != strings.Join(want, "|") {
		t.Errorf("permissions.allow = %v, want %v", s.Permissions.Allow, want)
	}
	pre := s.Hooks["PreToolUse"]
	if len(pre) != 2 || pre[0].Hooks[0]["command"] != "lint-bash <&0" {
		t.Fatalf("PreToolUse = %+v: the Bash hook must stay, and the old askuser hook be updated in place", pre)
	}
	h := pre[1].Hooks[0]
	if h["command"] != testClient+" claude-hook" || h["timeout"] != 86400.0 || h["type"] != "command" {
		t.Errorf("askuser hook = %v", h)
	}

	var cj struct {
		NumStartups int                       `json:"numStartups"`
		MCPServers  map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(readTestFile(t, claudeJSON)), &cj); err != nil {
		t.Fatal(err)
	}
	a := cj.MCPServers["askuser"]
	if cj.NumStartups != 7 || cj.MCPServers["other"] == nil || a["command"] != testClient || a["type"] != "stdio" {
		t.Errorf(".claude.json = %+v", cj)
	}
}

func TestIntegrateRefusesAFileItCannotRead(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".gemini", "settings.json")
	writeTestFile(t, path, "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n}\n,}\n")
	_, errOut, code := integrateIn(t, home, "gemini", "--write", "--command", testClient)
	if code != exitFailed || !strings.Contains(errOut, path+": line 5, column") {
		t.Errorf("exit %d, stderr %q; want 1 and the file's line and column", code, errOut)
	}
	if readTestFile(t, path) != "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n}\n,}\n" || len(backups(t, path)) != 0 {
		t.Errorf("a file that does not parse was touched")
	}

	writeTestFile(t, path, `{"mcpServers": []}`)
	_, errOut, code = integrateIn(t, home, "gemini", "--write", "--command", testClient)
	if code != exitFailed || !strings.Contains(errOut, "mcpServers: must be an object, got a list") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestIntegrateCodexMergesIntoTheTOML(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".codex", "config.toml")
	orig := `# my codex settings
model = "gpt-5"

[mcp_servers.askuser]
command = "askuser-client"
args = ["mcp"]
startup_timeout_sec = 20 # slow disk

[mcp_servers.askuser.env]
ASKUSER_AGENT_ID = "codex"

[mcp_servers.other]
command = "other"
`
	writeTestFile(t, path, orig)
	if _, errOut, code := integrateIn(t, home, "codex", "--write", "--command", testClient); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	text := readTestFile(t, path)
	var cfg struct {
		Model      string
		MCPServers map[string]struct {
			Command           string
			Args              []string
			EnvVars           []string `toml:"env_vars"`
			ToolTimeoutSec    int      `toml:"tool_timeout_sec"`
			StartupTimeoutSec int      `toml:"startup_timeout_sec"`
			Env               map[string]string
		} `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(text, &cfg); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	a := cfg.MCPServers["askuser"]
	if cfg.Model != "gpt-5" || cfg.MCPServers["other"].Command != "other" || a.Command != testClient ||
		strings.Join(a.EnvVars, ",") != "XDG_RUNTIME_DIR,XDG_STATE_HOME,XDG_CONFIG_HOME" || a.ToolTimeoutSec != 86400 ||
		a.StartupTimeoutSec != 20 || a.Env["ASKUSER_AGENT_ID"] != "codex" {
		t.Errorf("merged config:\n%s", text)
	}
	if !strings.Contains(text, "# my codex settings") || !strings.Contains(text, "# slow disk") {
		t.Errorf("comments lost:\n%s", text)
	}
	if b := backups(t, path); len(b) != 1 || readTestFile(t, b[0]) != orig {
		t.Errorf("backups: %v", b)
	}
}

func TestIntegratePiWritesTheEmbeddedExtension(t *testing.T) {
	home := t.TempDir()
	if _, errOut, code := integrateIn(t, home, "pi", "--write", "--command", testClient); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	text := readTestFile(t, filepath.Join(home, ".pi", "agent", "extensions", "askuser.ts"))
	shipped := readTestFile(t, filepath.Join("..", "..", "internal", "agents", "pi", "askuser.ts"))
	want := strings.Replace(shipped, `const defaultClient = "askuser-client";`, `const defaultClient = "`+testClient+`";`, 1)
	if text != want || text == shipped {
		t.Errorf("the written extension is not the shipped one with the client's path")
	}
}

func TestIntegrateFollowsTheAgentsDirectoryVariables(t *testing.T) {
	cases := []struct{ agent, env, file string }{
		{"claude", "CLAUDE_CONFIG_DIR", "settings.json"},
		{"claude", "CLAUDE_CONFIG_DIR", ".claude.json"},
		{"codex", "CODEX_HOME", "config.toml"},
		{"pi", "PI_CODING_AGENT_DIR", filepath.Join("extensions", "askuser.ts")},
	}
	for _, c := range cases {
		t.Run(c.agent+" "+c.file, func(t *testing.T) {
			home, dir := t.TempDir(), t.TempDir()
			t.Setenv("HOME", home)
			for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR"} {
				t.Setenv(k, "")
			}
			t.Setenv(c.env, dir)
			var out, errb bytes.Buffer
			if code := dispatch([]string{"integrate", c.agent, "--write", "--command", testClient}, nil, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if _, err := os.Stat(filepath.Join(dir, c.file)); err != nil {
				t.Errorf("with %s set: %v\n%s", c.env, err, out.String())
			}
		})
	}
}

// integrate warns when the askuser-mcp that `askuser-client mcp` runs is not
// where that client will look, and is quiet when it is.
func TestIntegrateWarnsWithoutTheMCPServerProgram(t *testing.T) {
	dir := t.TempDir()
	client := filepath.Join(dir, "askuser-client")
	writeTestFile(t, client, "#!/bin/sh\n")
	t.Setenv("PATH", t.TempDir())
	_, errOut, code := integrateIn(t, t.TempDir(), "claude", "--command", client)
	want := "warning: askuser-mcp is neither in " + dir + " nor on PATH"
	if code != 0 || !strings.Contains(errOut, want) {
		t.Fatalf("exit %d, stderr %q; want 0 and %q", code, errOut, want)
	}
	if _, errOut, _ := integrateIn(t, t.TempDir(), "pi", "--command", client); errOut != "" {
		t.Errorf("pi runs no MCP server, yet: %q", errOut)
	}

	testdir.WriteExecutable(t, filepath.Join(dir, "askuser-mcp"), []byte("#!/bin/sh\n"), 0o755)
	if _, errOut, code := integrateIn(t, t.TempDir(), "codex", "--command", client); code != 0 || errOut != "" {
		t.Errorf("with askuser-mcp beside the client: exit %d, stderr %q", code, errOut)
	}
}

// A settings file kept in a dotfiles repository and linked into place is
// written through the link: the repository's copy gets the entry and the
// link stays a link.
func TestIntegrateWritesThroughASymlink(t *testing.T) {
	home := t.TempDir()
	dotfiles := filepath.Join(t.TempDir(), "dotfiles", "gemini-settings.json")
	writeTestFile(t, dotfiles, `{"theme": "dark"}`)
	link := filepath.Join(home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dotfiles, link); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := integrateIn(t, home, "gemini", "--write", "--command", testClient)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if li, err := os.Lstat(link); err != nil || li.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is no longer a link (%v)", link, err)
	}
	if got := readTestFile(t, dotfiles); !strings.Contains(got, testClient) || !strings.Contains(got, `"theme": "dark"`) {
		t.Errorf("the linked file did not get the entry:\n%s", got)
	}
	if !strings.Contains(out+errOut, dotfiles) {
		t.Errorf("integrate does not say it wrote through the link to %s:\n%s%s", dotfiles, out, errOut)
	}
}

// A FIFO at a settings path is refused at once, with or without --write,
// never waited on; a file nested absurdly deep is an error, not a crash.
func TestIntegrateRefusesWhatIsNotASettingsFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"gemini"}, {"gemini", "--write"}} {
		done := make(chan struct{})
		var errOut string
		var code int
		go func() {
			defer close(done)
			_, errOut, code = integrateIn(t, home, append(args, "--command", testClient)...)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			// Unblock the reader so the test can end, then fail.
			if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
			<-done
			t.Fatalf("integrate %v waited on a FIFO", args)
		}
		if code != exitFailed || !strings.Contains(errOut, path+" is a FIFO, not a regular file") {
			t.Errorf("integrate %v: exit %d, stderr %q", args, code, errOut)
		}
	}
	os.Remove(path)

	writeTestFile(t, path, `{"x":`+strings.Repeat("[", 5<<20))
	_, errOut, code := integrateIn(t, home, "gemini", "--write", "--command", testClient)
	if code != exitFailed || !strings.Contains(errOut, "nested deeper than") {
		t.Errorf("deep nesting: exit %d, stderr %q", code, errOut)
	}
}

// Without --command, integrate says which askuser-client the agent will run
// and why. This test runs as a `go run`-style build (in the go command's
// build cache), which is deleted afterwards: the askuser-client on PATH is
// written by its absolute path, and with none there integrate asks for
// --command rather than write a bare name a reduced PATH cannot find.
func TestIntegrateSaysWhichClientItWrites(t *testing.T) {
	bin := t.TempDir()
	onPath := filepath.Join(bin, "askuser-client")
	testdir.WriteExecutable(t, onPath, []byte("#!/bin/sh\n"), 0o755)
	testdir.WriteExecutable(t, filepath.Join(bin, "askuser-mcp"), []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", bin)
	home := t.TempDir()
	_, errOut, code := integrateIn(t, home, "gemini", "--write")
	if code != 0 || !strings.Contains(errOut, "the agent will run "+onPath+" (this is a 'go run' build") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if got := readTestFile(t, filepath.Join(home, ".gemini", "settings.json")); !strings.Contains(got, `"command": "`+onPath+`"`) {
		t.Errorf("settings.json does not run %s:\n%s", onPath, got)
	}

	t.Setenv("PATH", t.TempDir())
	home = t.TempDir()
	_, errOut, code = integrateIn(t, home, "gemini", "--write")
	if code != exitFailed || !strings.Contains(errOut, "--command") {
		t.Errorf("no askuser-client on PATH: exit %d, stderr %q; want 1 and a word about --command", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(home, ".gemini", "settings.json")); err == nil {
		t.Errorf("settings.json was written without knowing what to run")
	}
}

// The preview says what --write would do, not what has happened: its notes
// come under "Once written:" while nothing is written, and a file's change
// is one document however many servers --wrap adds to it.
func TestIntegratePreviewSaysWhatWriteWouldDo(t *testing.T) {
	home := t.TempDir()
	out, errOut, code := integrateIn(t, home, "claude", "--permissions", "--command", testClient)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	before, after, ok := strings.Cut(out, "\nOnce written:\n")
	if !ok || strings.Contains(before, "now wait in askuser") || !strings.Contains(after, "now wait in askuser") {
		t.Errorf("the preview claims what only --write does, or says nothing of it:\n%s", out)
	}
	out, _, _ = integrateIn(t, home, "claude", "--permissions", "--write", "--command", testClient)
	if strings.Contains(out, "Once written:") || !strings.Contains(out, "now wait in askuser") {
		t.Errorf("--write's notes:\n%s", out)
	}

	writeTestFile(t, filepath.Join(home, ".gemini", "settings.json"), `{"mcpServers":{"gh":{"command":"npx","args":["-y","gh-mcp"]}}}`)
	out, errOut, code = integrateIn(t, home, "gemini", "--wrap", "gh", "--command", testClient)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(out, "\n{\n"); n != 1 {
		t.Errorf("settings.json's change shows %d JSON documents, want one:\n%s", n, out)
	}
	for _, want := range []string{`"askuser": {`, `"gh": {`, `"mcp-proxy"`, "policies/askuser.toml"} {
		if !strings.Contains(out, want) {
			t.Errorf("the preview lacks %s:\n%s", want, out)
		}
	}
}
