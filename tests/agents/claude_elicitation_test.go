package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// MCP elicitations answered in askuser through Claude Code's Elicitation
// hook (docs/contract.md §11): the real Claude Code in `claude -p`, set up by
// `askuser-client integrate claude --write`, with tests/elicitserver as an
// MCP server. The fake model calls the server's tools; each elicits, and
// returns what it received as the tool's result, which the model reads.
//
// Claude Code 2.1.330 first sends the server `server/discover` (protocol
// 2026-07-28); the SDK's server answers it, the two speak 2026-07-28, and
// the server elicits by answering the call with input_required, which
// Claude Code hands to the hook and sends again with the answer.

const (
	// The first question of the configure tool's form, as the pane shows it.
	elicitFormQuestion = "Build settings\n\nColour\nthe build's colour"
	// The signin tool's URL question.
	elicitURLQuestion = "Sign in to the tracker\n\nOpen this address yourself (askuser does not open it):\n" +
		"https://example.com/auth?state=xyz\n\nDid you finish there?"
)

// startClaudeElicit runs `claude -p` in e.Root with elicitserver as its only
// MCP server ("elicit"), its tools allowed, and settings: the user's, as
// integrate wrote them, unless settings is given.
func startClaudeElicit(t *testing.T, claude string, e *testenv.Env, env []string, settings string) *agentRun {
	t.Helper()
	mcpConfig := filepath.Join(e.Root, "elicit-mcp.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"elicit": map[string]any{"command": testenv.ElicitServer(t)}}})
	if err := os.WriteFile(mcpConfig, b, 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"-p", "--mcp-config", mcpConfig, "--strict-mcp-config",
		"--allowedTools", "mcp__elicit__configure,mcp__elicit__signin"}
	if settings != "" {
		args = append(args, "--settings", settings)
	}
	args = append(args, "--model", claudeModel, "Configure the build; the server asks me what it needs.")
	return startAgent(t, e.Root, env, claude, args...)
}

// answerRefusedThenFixed answers the form with a count over its maximum,
// which askuser refuses naming the rule, then as fixed.
func answerRefusedThenFixed(t *testing.T, e *testenv.Env, p socketproto.Pending) {
	t.Helper()
	if p.Agent == nil || p.Agent.DisplayName() != "claude-code" || !sameDir(p.Agent.Cwd, e.Root) {
		t.Errorf("agent %+v; want claude-code in %s", p.Agent, e.Root)
	}
	if !strings.Contains(string(p.Metadata), `"MCP server":"elicit"`) {
		t.Errorf("metadata %s does not name the server", p.Metadata)
	}
	if got, want := testdaemon.InputKinds(p.Questions), "string integer number boolean string array string?"; got != want {
		t.Errorf("question kinds = %s, want %s", got, want)
	}
	if m, ok := testenv.AnswerRaw(t, e, p.RequestID, `"blue"`, `9`, `0.5`, `"Yes"`, `"widget"`, `["a","c"]`, `""`).(*socketproto.Error); !ok ||
		m.Code != socketproto.CodeInvalidAnswer || !strings.Contains(m.Message, "9 is more than 5") {
		t.Fatalf("an answer over the maximum: got %#v", m)
	}
	if m := testenv.AnswerRaw(t, e, p.RequestID, `"blue"`, `3`, `0.5`, `"Yes"`, `"widget"`, `["a","c"]`, `""`); m.MessageType() != "ok" {
		t.Fatalf("the fixed answer: got %#v", m)
	}
}

// TestAgentClaudeCodeElicitation: a form with every field kind accepted in
// askuser (after a value its rule refuses), the same form declined, and a
// URL step finished; the server receives exactly the typed content, the
// decline, the accept.
func TestAgentClaudeCodeElicitation(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	steps := []agentStep{
		{fakeStep: fakeStep{"mcp__elicit__configure", map[string]any{}},
			question: elicitFormQuestion,
			do:       answerRefusedThenFixed,
			// The server marshals the content it received, keys sorted:
			// exactly these fields, each of its JSON type; the optional
			// email left empty is absent.
			want: []string{`{"action":"accept","content":{"color":"blue","count":3,"name":"widget","ok":true,"ratio":0.5,"tags":["a","c"]}}`}},
		{fakeStep: fakeStep{"mcp__elicit__configure", map[string]any{}},
			question: elicitFormQuestion,
			do:       declineCLI,
			want:     []string{`{"action":"decline"}`}},
		{fakeStep: fakeStep{"mcp__elicit__signin", map[string]any{}},
			question: elicitURLQuestion,
			do:       answerCLI(`["I finished there"]`),
			want:     []string{`{"action":"accept"}`}},
	}
	model := modelPlaying(t, steps)
	// Set up as a user would: `askuser-client integrate claude --write`.
	env := claudeEnv(e, filepath.Join(e.Root, "home"), model)
	integrateAgent(t, env, "claude")
	agent := startClaudeElicit(t, claude, e, env, "")
	lat := playScript(t, e, w, model, agent, "claude-code", steps)
	agent.wait(t)
	logLatency(t, lat)
}

// TestAgentClaudeCodeElicitationCancelled: the form is never answered and
// Claude Code gives up on the hook (here its timeout, a few seconds): it
// ends the hook with SIGTERM, askuser's copy is withdrawn, and the server
// receives a cancel, which is neither an answer nor a decline.
func TestAgentClaudeCodeElicitationCancelled(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	model := newFakeModel(t, fakeStep{"mcp__elicit__configure", map[string]any{}})
	home := filepath.Join(e.Root, "home")
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	// Long enough to be asked on a busy machine, short for a test; nothing
	// is measured against it.
	const hookTimeout = 8
	settings := filepath.Join(e.Root, "settings.json")
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"Elicitation": []any{map[string]any{"matcher": "*",
		"hooks": []any{map[string]any{"type": "command", "command": testenv.Bin("askuser-client") + " claude-hook", "timeout": hookTimeout}}}}}})
	if err := os.WriteFile(settings, b, 0o600); err != nil {
		t.Fatal(err)
	}
	agent := startClaudeElicit(t, claude, e, claudeEnv(e, home, model), settings)
	p := nextAddedWithin(t, w, agent)
	if p.Questions[0].Question != elicitFormQuestion {
		t.Fatalf("asked %+v", p.Questions)
	}
	d := expectWithdrawn(w, p.RequestID)(t)
	t.Logf("the hook's timeout (%d s) passed: askuser's copy withdrawn %v after it was asked", hookTimeout, d.Round(time.Millisecond))
	r := model.Result(0, agentWait)
	t.Logf("the model received: %s", r.Text)
	if !strings.Contains(r.Text, `{"action":"cancel"`) {
		t.Errorf("the model received %q, want the server's cancel", r.Text)
	}
	agent.wait(t)
}

// TestClaudeHookSignalWithdrawsTheElicitation: a SIGTERM or SIGINT to the
// Elicitation hook withdraws askuser's question, and the hook's answer is a
// cancel.
func TestClaudeHookSignalWithdrawsTheElicitation(t *testing.T) {
	t.Parallel()
	claudeHookSignalled(t, "elicitation-form.json", elicitFormQuestion, func(t *testing.T, sig syscall.Signal, code int, out string) {
		if code != 128+int(sig) {
			t.Errorf("exit %d after %v, want %d", code, sig, 128+int(sig))
		}
		if want := `{"hookSpecificOutput":{"action":"cancel","hookEventName":"Elicitation"}}` + "\n"; out != want {
			t.Errorf("the hook printed %q after %v; want %q", out, sig, want)
		}
	})
}
