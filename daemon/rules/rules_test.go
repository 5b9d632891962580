package rules

import (
	"encoding/json"
	"testing"

	"askuser/internal/config"
	"askuser/socketproto"
)

var defaultLists = Lists{Destructive: config.DefaultDestructive, RunsPrograms: config.DefaultRunsPrograms}

// subject is a Claude Code Bash prompt for cmd in cwd, read as the daemon
// reads it.
func subject(t *testing.T, cmd, cwd string) (Subject, error) {
	t.Helper()
	input, _ := json.MarshalIndent(map[string]string{"command": cmd, "description": "d"}, "", "  ")
	return SubjectOf(socketproto.Request{
		Questions: []socketproto.Question{{Question: "q", Options: []socketproto.Option{
			{Label: "Allow", Preview: string(input), ApprovesPreview: true}, {Label: "Deny"}}}},
		Agent:      &socketproto.Agent{Cwd: cwd},
		Permission: &socketproto.PermissionPrompt{Agent: "claude-code", Tool: "Bash", Allow: "Allow"},
	})
}

// The narrowing (docs/contract.md §13): no "remember" option for a command
// that chains, substitutes, redirects, runs through a shell string, is on
// the destructive list or names a path outside the tree.
func TestNoRememberOption(t *testing.T) {
	const tree = "/home/u/src/shop"
	for _, cmd := range []string{
		"go test ./... && go vet ./...", "make; make install", "make || true", "ls | sh", "sleep 1 &",
		"echo $(whoami)", "echo `id`", `echo "$HOME"`, "echo $HOME",
		"echo hi > out.txt", "cat < in.txt", "go test 2>&1",
		`sh -c "go test ./..."`, "bash -lc 'make'", "env X=1 make", "X=1 make", "xargs rm", "timeout 5 make", "python3 -c 'print(1)'",
		"rm -rf build", "rm -r build", "rm build -fr", "git push --force", "git push origin main -f", "git push --force-with-lease",
		"sudo make install", "curl https://x.example/install.sh", "git reset --hard HEAD~1", "find . -delete", "chmod -R 777 .",
		"cat /etc/passwd", "cp x ../../other/x", "ls ~/secrets", "go build -o=/usr/local/bin/x", "touch ../../x",
		"ls *.go", "echo {a,b}", "(make)", "make # comment", "echo 'unclosed", "go test\nrm -rf /",
	} {
		s, err := subject(t, cmd, tree+"/api")
		if err == nil {
			_, err = Propose(s, "p", tree, "/home/u", defaultLists)
		}
		if err == nil {
			t.Errorf("%q: a remember option was offered", cmd)
		}
	}
	for _, cmd := range []string{"go test ./...", "make build", "npm run lint -- --fix", "git status", "ls ./api/../api", "cat /home/u/src/shop/go.mod", "go test -run 'Test.*' ./...", "git log HEAD~1"} {
		s, err := subject(t, cmd, tree+"/api")
		if err == nil {
			_, err = Propose(s, "p", tree, "/home/u", defaultLists)
		}
		if err != nil {
			t.Errorf("%q: no remember option: %v", cmd, err)
		}
	}
}

// Every agent's input is read to the same command; an input with a key
// that could change what runs is none a rule covers.
func TestSubjectPerAgent(t *testing.T) {
	opencode := `{"permission": "bash", "patterns": ["go test ./..."], "metadata": {}}`
	codex := `{"command": "go test ./...", "description": "Run the tests"}`
	acp := `{"command": "go test ./..."}`
	for _, c := range []struct{ agent, tool, preview string }{{"opencode", "bash", opencode}, {"codex", "Bash", codex}, {"acp", "execute", codex}, {"acp", "execute", acp}} {
		s, err := SubjectOf(socketproto.Request{
			Questions:  []socketproto.Question{{Question: "q", Options: []socketproto.Option{{Label: "A", Preview: c.preview, ApprovesPreview: true}, {Label: "D"}}}},
			Agent:      &socketproto.Agent{Cwd: "/p"},
			Permission: &socketproto.PermissionPrompt{Agent: c.agent, Tool: c.tool, Allow: "A"},
		})
		if err != nil || s.Command != "go test ./..." || s.Tool != "Bash" {
			t.Errorf("%s: %+v %v", c.agent, s, err)
		}
	}
}

// A prompt of a kind of agent no folder shapes, or of another tool than
// the kind's shell tool, is none a rule reads; each says why.
func TestSubjectRefused(t *testing.T) {
	for _, c := range []struct{ agent, tool, want string }{
		{"gemini", "Bash", `permission.agent "gemini": no rules for this kind of agent`},
		{"claude-code", "Write", `tool "Write": only shell commands are remembered`},
		{"opencode", "Bash", `tool "Bash": only shell commands are remembered`},
		{"acp", "Bash", `tool "Bash": only shell commands are remembered`},
	} {
		_, err := SubjectOf(socketproto.Request{
			Questions:  []socketproto.Question{{Question: "q", Options: []socketproto.Option{{Label: "A", Preview: `{"command": "ls"}`, ApprovesPreview: true}, {Label: "D"}}}},
			Agent:      &socketproto.Agent{Cwd: "/p"},
			Permission: &socketproto.PermissionPrompt{Agent: c.agent, Tool: c.tool, Allow: "A"},
		})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s %s: %v, want %q", c.agent, c.tool, err, c.want)
		}
	}
}

// A rule's sentence names its kind of agent as people know it.
func TestSentenceNamesTheAgent(t *testing.T) {
	for agents, want := range map[string]string{
		"claude-code": "Claude Code", "codex": "Codex", "opencode": "OpenCode", "acp": "ACP agents",
		socketproto.AllAgents: "all agents", "gemini": "gemini",
	} {
		r := socketproto.Rule{Tool: ShellTool, Command: "go test ./...", Match: socketproto.MatchPrefix, Dir: "/home/u/src/shop", Agents: agents}
		if got, w := Sentence(r, "/home/u"), "Bash: go test ./... (and with more arguments) in ~/src/shop, for "+want; got != w {
			t.Errorf("%s: %q, want %q", agents, got, w)
		}
	}
	exact := socketproto.Rule{Tool: ShellTool, Command: "make", Match: socketproto.MatchExact, Dir: "/srv", Agents: "codex"}
	if got, want := Sentence(exact, "/home/u"), "Bash: make (exactly) in /srv, for Codex"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
