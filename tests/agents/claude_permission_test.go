package agents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/socketproto/previewform"
	"askuser/tests/termpane"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// Claude Code's permission prompts answered in askuser through its
// PermissionRequest hook (docs/contract.md §11): the real Claude Code, in `claude -p`
// with the default permission mode (which asks), driven by the fake model.
// The model runs a Bash command that writes a file; the test answers the
// question as a user would and checks what ran and what the model read.

// permissionQuestion is the question every permission prompt asks for Bash.
const permissionQuestion = "Allow the agent to use Bash with the input shown?"

// markerCommand writes the marker file and prints what it holds, so the
// model's tool result shows that the command ran.
var markerCommand = map[string]any{"command": "echo hello > marker-file && cat marker-file", "description": "Write the marker file"}

// claudePermissionSettings writes settings holding both of askuser's hooks,
// as `askuser-client integrate claude --permissions` adds them, and returns
// the file for --settings.
func claudePermissionSettings(t *testing.T, e *testenv.Env) string {
	t.Helper()
	hook := []any{map[string]any{"type": "command", "command": testenv.Bin("askuser-client") + " claude-hook", "timeout": 600}}
	s := map[string]any{"hooks": map[string]any{
		"PreToolUse":        []any{map[string]any{"matcher": "AskUserQuestion", "hooks": hook}},
		"PermissionRequest": []any{map[string]any{"matcher": "*", "hooks": hook}},
	}}
	path := filepath.Join(e.Root, "settings.json")
	b, _ := json.Marshal(s)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startClaudePermission runs `claude -p` in e.Root with the permission hook
// and no other way to be allowed: no --permission-prompt-tool, no allowed
// tools, the default permission mode.
func startClaudePermission(t *testing.T, claude string, e *testenv.Env, model *fakeModel) *agentRun {
	t.Helper()
	home := filepath.Join(e.Root, "home")
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	return startAgent(t, e.Root, claudeEnv(e, home, model), claude,
		"-p", "--settings", claudePermissionSettings(t, e), "--strict-mcp-config",
		"--permission-mode", "default", "--model", claudeModel,
		"Write the marker file.")
}

// checkPermissionQuestion checks what the pane shows for the Bash call: the
// agent, its directory, and the whole input as Allow's preview.
func checkPermissionQuestion(t *testing.T, e *testenv.Env, p socketproto.Pending) socketproto.Question {
	t.Helper()
	q := p.Questions[0]
	if p.Agent == nil || p.Agent.DisplayName() != "claude-code" || !sameDir(p.Agent.Cwd, e.Root) {
		t.Errorf("agent %+v; want claude-code in %s", p.Agent, e.Root)
	}
	if len(q.Options) < 2 || q.Options[0].Label != "Allow" || q.Options[1].Label != "Deny" || !q.Options[0].ApprovesPreview ||
		!strings.Contains(q.Options[0].Preview, `"command": "echo hello > marker-file && cat marker-file"`) {
		t.Errorf("question: %+v", q)
	}
	return q
}

// sameDir reports whether a and b are the same directory (the temporary
// directory may be reached through a symbolic link).
func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

func markerExists(e *testenv.Env) bool {
	_, err := os.Stat(filepath.Join(e.Root, "marker-file"))
	return err == nil
}

// TestAgentClaudeCodePermissionAllow: Allow in askuser runs the command,
// and the model reads its output.
func TestAgentClaudeCodePermissionAllow(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	steps := []agentStep{{fakeStep: fakeStep{"Bash", markerCommand}, question: permissionQuestion,
		do: func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
			checkPermissionQuestion(t, e, p)
			answerCLI(`["Allow"]`)(t, e, p)
		},
		want: []string{"hello"}}}
	model := modelPlaying(t, steps)
	agent := startClaudePermission(t, claude, e, model)
	lat := playScript(t, e, w, model, agent, "claude-code", steps)
	agent.wait(t)
	logLatency(t, lat)
	if !markerExists(e) {
		t.Errorf("the allowed command did not run")
	}
}

// TestAgentClaudeCodePermissionDeny: Deny with a note does not run the
// command, and the model reads the note as the tool's (error) result.
func TestAgentClaudeCodePermissionDeny(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	steps := []agentStep{{fakeStep: fakeStep{"Bash", markerCommand}, question: permissionQuestion,
		do:      answerCLI(`[{"selected":["Deny"],"notes":"use pnpm instead"}]`),
		want:    []string{"use pnpm instead"},
		wantNot: []string{"hello"},
		wantErr: true}}
	model := modelPlaying(t, steps)
	agent := startClaudePermission(t, claude, e, model)
	lat := playScript(t, e, w, model, agent, "claude-code", steps)
	agent.wait(t)
	logLatency(t, lat)
	if markerExists(e) {
		t.Errorf("the denied command ran")
	}
}

// TestAgentClaudeCodePermissionDontAskAgain: Claude Code's own "don't ask
// again" suggestion, chosen in askuser, goes back to Claude Code as
// updatedPermissions, and a second identical call in the same run is not
// asked about.
//
// The command is wrapped in `sh -c` because for it Claude Code 2.1.330
// suggests a rule (addRules Bash(sh -c "…") in .claude/settings.local.json),
// which it honours. For the bare `echo hello > marker-file && cat
// marker-file` it suggests only addDirectories of the working directory for
// the session; it applies that (the model is told "Additional working
// directories added") and still asks again about the identical call, so
// that suggestion cannot be shown to spare a second prompt.
func TestAgentClaudeCodePermissionDontAskAgain(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	cmd := map[string]any{"command": `sh -c "echo hello > marker-file && cat marker-file"`, "description": "Write the marker file"}
	first := agentStep{fakeStep: fakeStep{"Bash", cmd}, question: permissionQuestion,
		do: func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
			q := p.Questions[0]
			want := `Allow, and don't ask again: allow Bash(sh -c "echo hello > marker-file && cat marker-file") in this project's local settings (.claude/settings.local.json)`
			if len(q.Options) != 3 || q.Options[2].Label != want || !q.Options[2].ApprovesPreview {
				t.Fatalf("want the choice %q; options: %+v", want, q.Options)
			}
			answerCLI(`[3]`)(t, e, p)
		},
		want: []string{"hello"}}
	model := modelPlaying(t, []agentStep{first, {fakeStep: fakeStep{"Bash", cmd}}})
	agent := startClaudePermission(t, claude, e, model)
	lat := playScript(t, e, w, model, agent, "claude-code", []agentStep{first})
	second, asked := model.resultOrQuestion(t, w, 1)
	if asked != nil {
		t.Errorf("the second identical call was asked about again: %+v", asked.Questions[0])
		answerCLI(`["Allow"]`)(t, e, *asked)
		second = model.Result(1, agentWait)
	}
	if second.IsError || !strings.Contains(second.Text, "hello") {
		t.Errorf("the second call: the model received (is_error %v) %q; want the command's output", second.IsError, second.Text)
	}
	agent.wait(t)
	logLatency(t, lat)
	// Claude Code kept the rule where the suggestion said.
	b, err := os.ReadFile(filepath.Join(e.Root, ".claude", "settings.local.json"))
	if err != nil || !strings.Contains(string(b), `Bash(sh -c \"echo hello > marker-file && cat marker-file\")`) {
		t.Errorf("the project's local settings (%v) lack the rule:\n%s", err, b)
	}
}

// resultOrQuestion waits for step i's result or for a question in askuser,
// whichever comes first.
func (m *fakeModel) resultOrQuestion(t *testing.T, w *socketproto.Conn, i int) (fakeResult, *socketproto.Pending) {
	t.Helper()
	asked := make(chan socketproto.Pending, 1)
	go func() {
		for {
			msg, err := w.Recv()
			if err != nil {
				return
			}
			if a, ok := msg.(socketproto.RequestAdded); ok {
				asked <- a.Request
				return
			}
		}
	}()
	deadline := time.After(agentWait)
	for {
		m.mu.Lock()
		r, ok := m.results[i]
		m.mu.Unlock()
		if ok {
			return r, nil
		}
		select {
		case <-m.got:
		case p := <-asked:
			return fakeResult{}, &p
		case <-deadline:
			t.Fatalf("step %d's result never came, and nothing was asked, within %v; requests:\n%s", i, agentWait, m.requests())
		}
	}
}

// TestClaudeHookSignalWithdrawsThePermissionQuestion: when the permission
// prompt is answered in Claude Code's own dialog first, Claude Code ends the
// hook with SIGTERM (observed in interactive Claude Code); askuser's copy is
// then withdrawn, and the hook prints no decision.
func TestClaudeHookSignalWithdrawsThePermissionQuestion(t *testing.T) {
	t.Parallel()
	claudeHookSignalled(t, "permissionrequest-bash.json", permissionQuestion, func(t *testing.T, sig syscall.Signal, _ int, out string) {
		if out != "" {
			t.Errorf("the hook printed %q after %v; want nothing", out, sig)
		}
	})
}

// claudeHookSignalled runs Claude Code's hook on a fixture of
// internal/agents/claudecode/testdata, once for SIGTERM and once for
// SIGINT: each time askuser asks question, the hook gets the signal, the
// question must be withdrawn and the hook must say so on stderr; ended
// checks its exit code and what it printed.
func claudeHookSignalled(t *testing.T, fixture, question string, ended func(t *testing.T, sig syscall.Signal, code int, out string)) {
	e := testenv.New(t)
	e.StartDaemon()
	w := testenv.Watch(t, e)
	input, err := os.ReadFile(filepath.Join("..", "..", "internal", "agents", "claudecode", "testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, out, errb := e.StartClient(string(input), "claude-hook")
			p := testenv.NextAdded(t, w)
			if p.Questions[0].Question != question {
				t.Fatalf("asked %+v", p.Questions)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			d := expectWithdrawn(w, p.RequestID)(t)
			t.Logf("%v to the hook: withdrawn %v later", sig, d.Round(time.Millisecond))
			ended(t, sig, testenv.Finish(t, cmd), out.String())
			if !strings.Contains(errb.String(), "withdrawn") {
				t.Errorf("stderr %q", errb)
			}
		})
	}
}

// --- interactive Claude Code, in tmux ---------------------------------------

// startClaudeInteractive runs interactive Claude Code in tmux, in e.Root,
// with the permission hook, past its first-run dialogs (onboarding, the API
// key, trusting the folder), given prompt as its first message.
func startClaudeInteractive(t *testing.T, claude string, e *testenv.Env, model *fakeModel, prompt string) *termpane.Tmux {
	t.Helper()
	home := filepath.Join(e.Root, "home")
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(e.Root)
	if err != nil {
		t.Fatal(err)
	}
	state, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true, "theme": "dark", "numStartups": 3,
		"customApiKeyResponses": map[string]any{"approved": []string{"dummy"}, "rejected": []string{}},
		"projects":              map[string]any{root: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}},
	})
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), state, 0o600); err != nil {
		t.Fatal(err)
	}
	// tmux's server has the harness's environment; Claude Code gets
	// exactly its own through env -i.
	line := []string{"cd", shellQuote(e.Root), "&&", "exec", "env", "-i"}
	for _, kv := range claudeEnv(e, home, model, "TERM=xterm-256color") {
		line = append(line, shellQuote(kv))
	}
	// The current models start in auto mode, where Claude Code raises no
	// permission prompt at all: a user who wants to be asked runs the
	// default mode, as here.
	line = append(line, shellQuote(claude), "--settings", shellQuote(claudePermissionSettings(t, e)),
		"--permission-mode", "default", "--model", claudeModel, shellQuote(prompt))
	return termpane.StartTmux(t, e, 120, 40, strings.Join(line, " "))
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// waitScreen waits until Claude Code's screen shows every string.
func waitScreen(t *testing.T, p *termpane.Tmux, subs ...string) string {
	t.Helper()
	return testdaemon.EventuallyWithin(t, agentWait, fmt.Sprintf("Claude Code to show %q", subs), func() (bool, string) {
		screen := p.Capture()
		return testenv.ContainsAll(screen, subs), screen
	})
}

// TestAgentClaudeCodeInteractivePermission: interactive Claude Code shows
// its own permission dialog while the question waits in askuser; the first
// answer wins either way. Answered in askuser, Claude Code's dialog goes
// and the command runs. Answered in Claude Code's dialog, askuser's copy is
// withdrawn: Claude Code 2.1.330 does not end the hook then, and the hook
// sees the call's result in the session's transcript.
func TestAgentClaudeCodeInteractivePermission(t *testing.T) {
	for _, first := range []string{"askuser", "Claude Code"} {
		t.Run("answered in "+first, func(t *testing.T) {
			claude, e, w := agentTest(t, "claude-code")
			model := newFakeModel(t, fakeStep{"Bash", markerCommand})
			p := startClaudeInteractive(t, claude, e, model, "Write the marker file.")
			// A cold start of Claude Code may take longer than a client's.
			q := testdaemon.RecvType(t, w, "request_added", agentWait).(socketproto.RequestAdded).Request
			if q.Questions[0].Question != permissionQuestion {
				t.Fatalf("asked %+v", q.Questions)
			}
			checkPermissionQuestion(t, e, q)
			waitScreen(t, p, "Do you want to proceed?", "echo hello > marker-file")
			start := time.Now()
			if first == "askuser" {
				answerCLI(`["Allow"]`)(t, e, q)
			} else {
				p.RawKeys("Enter") // "1. Yes"
				d := expectWithdrawn(w, q.RequestID)(t)
				t.Logf("allowed in Claude Code's dialog: askuser's copy withdrawn %v later", d.Round(time.Millisecond))
			}
			r := model.Result(0, agentWait)
			t.Logf("answer → model: %v", r.At.Sub(start).Round(time.Millisecond))
			if !strings.Contains(r.Text, "hello") || r.IsError {
				t.Errorf("the model received (is_error %v) %q", r.IsError, r.Text)
			}
			if first == "askuser" {
				waitScreen(t, p, "Allowed by PermissionRequest hook")
			}
			if !markerExists(e) {
				t.Errorf("the allowed command did not run")
			}
		})
	}
}

// TestAgentClaudeCodeWriteDrawnAsTheFile: Claude Code's Write asks through
// the PermissionRequest hook; every way to say yes names the form
// "write", so the file is read as its text, numbered; Allow, with the
// preview's digest, writes the file.
func TestAgentClaudeCodeWriteDrawnAsTheFile(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	file := filepath.Join(e.Root, "notes.txt")
	steps := []agentStep{{fakeStep: fakeStep{"Write", map[string]any{"file_path": file, "content": "first line\nsecond line\n"}},
		question: "Allow the agent to use Write with the input shown?",
		do: func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
			for _, o := range p.Questions[0].Options {
				if !o.ApprovesPreview {
					continue
				}
				if o.PreviewForm != previewform.Write {
					t.Errorf("%q names the form %q, want %q", o.Label, o.PreviewForm, previewform.Write)
				}
				drawn := previewform.Plain(previewform.Render(o.PreviewForm, o.Preview))
				if !strings.Contains(drawn, "file_path: "+file+"\ncontent: 2 lines\n1  first line\n2  second line\n") {
					t.Errorf("%q is drawn as\n%s\nfrom the preview\n%s", o.Label, drawn, o.Preview)
				}
			}
			answerCLI(`["Allow"]`)(t, e, p)
		}}}
	model := modelPlaying(t, steps)
	agent := startClaudePermission(t, claude, e, model)
	playScript(t, e, w, model, agent, "claude-code", steps)
	agent.wait(t)
	if b, err := os.ReadFile(file); err != nil || string(b) != "first line\nsecond line\n" {
		t.Errorf("the allowed Write left %q (%v)", b, err)
	}
}
