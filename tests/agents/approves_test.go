package agents

import (
	"path/filepath"
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/tests/testdir"
	"askuser/tests/testenv"
)

// Every option that says yes to an agent's permission prompt approves
// exactly its preview, and that preview holds everything it approves, whole
// (docs/contract.md §3 approvesPreview, §11): a pattern or rule longer than a
// label can hold arrives whole, and no label or description carries a cut
// piece of it.

// longName is a file name longer than any label: 230 letters.
var longName = strings.Repeat("a", 226) + ".sh"

// checkApproving checks that every option of q that allows is approvesPreview
// with a preview holding each of wants whole, and that no label or
// description was cut.
func checkApproving(t *testing.T, q socketproto.Question, allows []string, wants ...string) {
	t.Helper()
	for _, o := range q.Options {
		if strings.Contains(o.Label, "…") || strings.Contains(o.Description, "…") {
			t.Errorf("option %q (%q) was cut", o.Label, o.Description)
		}
	}
	for _, label := range allows {
		var o *socketproto.Option
		for i := range q.Options {
			if q.Options[i].Label == label {
				o = &q.Options[i]
			}
		}
		if o == nil {
			t.Errorf("no option %q among %+v", label, q.Options)
			continue
		}
		if !o.ApprovesPreview {
			t.Errorf("%q does not approve its preview", label)
		}
		for _, w := range wants {
			if !strings.Contains(o.Preview, w) {
				t.Errorf("%q's preview lacks %q whole:\n%s", label, w, o.Preview)
			}
		}
	}
}

// TestAgentOpenCodeAllowAlwaysShowsThePatternsWhole: OpenCode's "Allow
// always" allows its `always` patterns for the rest of the session; its
// preview holds each of them whole (here one longer than 200 characters),
// and the input too.
func TestAgentOpenCodeAllowAlwaysShowsThePatternsWhole(t *testing.T) {
	opencode, e, w := agentTest(t, "opencode")
	script := "./" + longName
	testdir.WriteExecutable(t, filepath.Join(e.Root, longName), []byte("#!/bin/sh\necho long-script-ran \"$@\"\n"), 0o700)
	steps := []agentStep{{fakeStep: fakeStep{"bash", map[string]any{"command": script + " one", "description": "Run the script"}},
		question: "Allow OpenCode to use bash: " + script + " one?",
		do: func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
			q := p.Questions[0]
			checkApproving(t, q, []string{"Allow once", "Allow always"}, `"command": "`+script+` one"`)
			checkApproving(t, q, []string{"Allow always"}, `"`+script+` *"`)
			answerCLI(`["Allow always"]`)(t, e, p)
		},
		want: []string{"long-script-ran one"}},
		// Not asked: the pattern allowed always covers it.
		{fakeStep: fakeStep{"bash", map[string]any{"command": script + " two", "description": "Run it again"}}},
	}
	model := modelPlaying(t, steps)
	env := opencodeSetup(t, e, model)
	srv := startOpencodeServe(t, e, env, opencode)
	srv.prompt(opencodePrompt)
	logLatency(t, playScript(t, e, w, model, srv.agent, "opencode", steps[:1]))
	if r := model.Result(1, agentWait); !strings.Contains(r.Text, "long-script-ran two") {
		t.Errorf("after Allow always, the second run gave the model %q", r.Text)
	}
}

// TestAgentClaudeCodeLongRuleShownWhole: Claude Code's "don't ask again"
// suggestion for a command longer than a label holds: the choice's label
// and description hold no cut piece of the rule, its preview holds the rule
// whole (in words and as the update Claude Code keeps); chosen, Claude Code
// keeps the rule and does not ask about the identical second call.
func TestAgentClaudeCodeLongRuleShownWhole(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	command := `sh -c "echo hello > marker-file && cat marker-file && echo ` + strings.Repeat("x", 200) + `"`
	cmd := map[string]any{"command": command, "description": "Write the marker file"}
	first := agentStep{fakeStep: fakeStep{"Bash", cmd}, question: permissionQuestion,
		do: func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
			q := p.Questions[0]
			var keep string
			for _, o := range q.Options {
				if strings.HasPrefix(o.Label, "Allow, and don't ask again") {
					keep = o.Label
				}
			}
			if keep == "" {
				t.Fatalf("no \"don't ask again\" choice: %+v", q.Options)
			}
			// A label holds the rule whole or none of it (Claude Code's
			// labels were cut at 200 characters without a mark).
			for _, o := range q.Options {
				for _, text := range []string{o.Label, o.Description} {
					if strings.Contains(text, "echo hello") && !strings.Contains(text, "Bash("+command+")") {
						t.Errorf("option %q holds a cut piece of the rule: %q", o.Label, text)
					}
				}
			}
			checkApproving(t, q, []string{keep}, "allow Bash("+command+")", `"ruleContent": "sh -c \"echo hello > marker-file && cat marker-file && echo `+strings.Repeat("x", 200)+`\""`)
			answerCLI(`[3]`)(t, e, p)
		},
		want: []string{"hello"}}
	model := modelPlaying(t, []agentStep{first, {fakeStep: fakeStep{"Bash", cmd}}})
	agent := startClaudePermission(t, claude, e, model)
	logLatency(t, playScript(t, e, w, model, agent, "claude-code", []agentStep{first}))
	second, asked := model.resultOrQuestion(t, w, 1)
	if asked != nil {
		t.Errorf("the second identical call was asked about again: %+v", asked.Questions[0])
		answerCLI(`["Allow"]`)(t, e, *asked)
		second = model.Result(1, agentWait)
	}
	if second.IsError || !strings.Contains(second.Text, "hello") {
		t.Errorf("the second call: the model received (is_error %v) %q", second.IsError, second.Text)
	}
	agent.wait(t)
}

// TestAgentCodexLongCommandShownWhole: Codex's command, longer than a label
// or a plain preview holds, is Allow's preview whole.
func TestAgentCodexLongCommandShownWhole(t *testing.T) {
	codex, e, w := agentTest(t, "codex")
	command := "echo hello > marker-file && cat marker-file && echo " + strings.Repeat("y", 4100)
	call := map[string]any{"cmd": command, "sandbox_permissions": "require_escalated", "justification": "Write the marker file"}
	steps := []agentStep{{fakeStep: fakeStep{"exec_command", call}, question: permissionQuestion,
		do: func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
			checkApproving(t, p.Questions[0], []string{"Allow"}, `"command": "`+command+`"`)
			answerCLI(`["Allow"]`)(t, e, p)
		},
		want: []string{"hello"}}}
	model := modelPlaying(t, steps)
	agent := startCodexPermission(t, codex, e, model)
	logLatency(t, playScript(t, e, w, model, agent, "codex", steps))
	agent.wait(t)
}
