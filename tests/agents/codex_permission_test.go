package agents

import (
	"os/exec"
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/tests/testenv"
)

// Codex's approval prompts answered in askuser through its PermissionRequest
// hook (docs/contract.md §11): the real Codex, set up by `askuser-client integrate codex
// --permissions --write`, driven by the fake model. The model asks to run a
// shell command outside the sandbox (exec_command with sandbox_permissions
// "require_escalated"), which needs approval; the test answers in askuser as
// a user would and checks what ran and what the model read.
//
// `codex exec` forces the approval policy to "never" (an escalation is then
// refused outright), except with --approve-for-me, which routes approval
// prompts to Codex's automatic reviewer: the PermissionRequest hook runs
// before that reviewer, as it runs before the interactive prompt, so askuser
// decides. --dangerously-bypass-hook-trust stands in for trusting the hook
// once in Codex's /hooks.

// codexEscalated is the model's call: the marker command, outside the
// sandbox, with its justification.
var codexEscalated = map[string]any{"cmd": "echo hello > marker-file && cat marker-file",
	"sandbox_permissions": "require_escalated", "justification": "Write the marker file"}

// startCodexPermission sets Codex up with askuser's permission hook and runs
// `codex exec` in e.Root.
func startCodexPermission(t *testing.T, codex string, e *testenv.Env, model *fakeModel) *agentRun {
	t.Helper()
	env := codexSetup(t, e, model)
	cmd := exec.Command(testenv.Bin("askuser-client"), "integrate", "codex", "--permissions", "--write")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("askuser-client integrate codex --permissions --write: %v\n%s", err, out)
	}
	return startAgent(t, e.Root, env, codex, "exec", "--skip-git-repo-check",
		"--approve-for-me", "--dangerously-bypass-hook-trust", "Write the marker file.")
}

// checkCodexQuestion checks what the pane shows: Codex's session in its
// directory, Allow and Deny, the whole command as Allow's preview.
func checkCodexQuestion(t *testing.T, e *testenv.Env, p socketproto.Pending) {
	t.Helper()
	q := p.Questions[0]
	if p.Agent == nil || !strings.HasPrefix(p.Agent.ID, "codex-") || !sameDir(p.Agent.Cwd, e.Root) {
		t.Errorf("agent %+v; want Codex's session in %s", p.Agent, e.Root)
	}
	if len(q.Options) != 2 || q.Options[0].Label != "Allow" || q.Options[1].Label != "Deny" || !q.Options[0].ApprovesPreview ||
		!strings.Contains(q.Options[0].Preview, `"command": "echo hello > marker-file && cat marker-file"`) ||
		!strings.Contains(q.Options[0].Preview, `"description": "Write the marker file"`) {
		t.Errorf("question: %+v", q)
	}
}

// TestAgentCodexPermissionAllow: Allow in askuser runs the command, and the
// model reads its output.
func TestAgentCodexPermissionAllow(t *testing.T) {
	codex, e, w := agentTest(t, "codex")
	steps := []agentStep{{fakeStep: fakeStep{"exec_command", codexEscalated}, question: permissionQuestion,
		do: func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
			checkCodexQuestion(t, e, p)
			answerCLI(`["Allow"]`)(t, e, p)
		},
		want: []string{"hello"}}}
	model := modelPlaying(t, steps)
	agent := startCodexPermission(t, codex, e, model)
	lat := playScript(t, e, w, model, agent, "codex", steps)
	agent.wait(t)
	logLatency(t, lat)
	if !markerExists(e) {
		t.Errorf("the allowed command did not run")
	}
}

// TestAgentCodexPermissionDeny: Deny with a note does not run the command,
// and the model reads the note in the call's result.
func TestAgentCodexPermissionDeny(t *testing.T) {
	codex, e, w := agentTest(t, "codex")
	steps := []agentStep{{fakeStep: fakeStep{"exec_command", codexEscalated}, question: permissionQuestion,
		do:      answerCLI(`[{"selected":["Deny"],"notes":"use pnpm instead"}]`),
		want:    []string{"The user denied permission to use Bash. Note: use pnpm instead"},
		wantNot: []string{"hello\n"}}}
	model := modelPlaying(t, steps)
	agent := startCodexPermission(t, codex, e, model)
	lat := playScript(t, e, w, model, agent, "codex", steps)
	agent.wait(t)
	logLatency(t, lat)
	if markerExists(e) {
		t.Errorf("the denied command ran")
	}
}
