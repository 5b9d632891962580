package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testdir"
	"askuser/tests/testenv"
)

// Remembered decisions (docs/contract.md §13) with the real agents, driven
// by the fake model: the user answers a permission prompt in askuser with
// "Allow, and remember"; the identical prompt is then answered by the rule
// without reaching any surface (the command ran, history says "rule"); a
// prompt that adds arguments is covered, one that changes them is asked;
// after revoke the prompt is asked again; a rule made for Claude Code for
// all agents answers Codex's identical prompt.
//
// The command is ./bump.sh, a script in the project that notes each run in
// runs.txt and prints what it was given: an agent asks before running it.

const bumpScript = "#!/bin/sh\necho \"ran $*\" >> runs.txt\necho \"bumped $*\"\n"

func writeBump(t *testing.T, e *testenv.Env) {
	t.Helper()
	testdir.WriteExecutable(t, filepath.Join(e.Root, "bump.sh"), []byte(bumpScript), 0o700)
}

// runs is what runs.txt says ran, one line a run.
func runs(e *testenv.Env) []string {
	b, _ := os.ReadFile(filepath.Join(e.Root, "runs.txt"))
	return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(b)), "ran ", "|"))
}

// rememberAll chooses "Allow, and remember: … for all agents", checking
// that it names the command.
func rememberAll(command string) func(*testing.T, *testenv.Env, socketproto.Pending) {
	return func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
		t.Helper()
		want := socketproto.RememberPrefix + "Bash: " + command + " (and with more arguments) in "
		testenv.ChooseInAskuser(want, ", for all agents")(t, e, p)
	}
}

// historyVia is how request answers in history were given, by agent name,
// in order: "claude-code:pane", "codex:rule#1" …
func historyVia(t *testing.T, e *testenv.Env) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.State, "askuser", "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var h struct {
			Via    string             `json:"via"`
			RuleID int                `json:"ruleId"`
			Agent  *socketproto.Agent `json:"agent"`
		}
		if json.Unmarshal([]byte(line), &h) != nil {
			continue
		}
		s := h.Agent.DisplayName() + ":" + h.Via
		if h.Via == string(socketproto.ViaRule) {
			s += "#" + itoa(h.RuleID)
		}
		out = append(out, s)
	}
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// ruleAnswers waits for step i's result, which a rule must have answered
// without any question reaching askuser's surfaces: the watcher hears
// rule_answered for it, and no request_added before.
func ruleAnswers(t *testing.T, model *fakeModel, w *socketproto.Conn, e *testenv.Env, i int, want string) {
	t.Helper()
	r := model.Result(i, agentWait)
	if r.IsError || !strings.Contains(r.Text, want) {
		t.Errorf("step %d: the model received (is_error %v) %q; want %q", i, r.IsError, r.Text, want)
	}
	for {
		switch m := testdaemon.Recv(t, w, agentWait).(type) {
		case socketproto.RequestAdded:
			t.Fatalf("step %d was asked in askuser; want it answered by the rule: %+v", i, m.Request.Questions[0].Options)
		case socketproto.RuleAnswered:
			t.Logf("step %d: allowed by rule %d: %s", i, m.RuleID, m.Sentence)
			return
		}
	}
}

// playAsked plays steps[from:], each asked in askuser, as playScript does
// for a whole script (the model's results are counted from the start).
func playAsked(t *testing.T, e *testenv.Env, w *socketproto.Conn, model *fakeModel, agent *agentRun, steps []agentStep, from int) {
	t.Helper()
	for i := from; i < len(steps); i++ {
		s := steps[i]
		p := nextAddedWithin(t, w, agent)
		if p.Questions[0].Question != s.question {
			t.Fatalf("step %d: asked %q, want %q", i, p.Questions[0].Question, s.question)
		}
		s.do(t, e, p)
		r := model.Result(i, agentWait)
		for _, want := range s.want {
			if r.IsError || !strings.Contains(r.Text, want) {
				t.Errorf("step %d: the model received (is_error %v) %q, want %q", i, r.IsError, r.Text, want)
			}
		}
	}
}

func bash(command string) map[string]any {
	return map[string]any{"command": command, "description": "Bump the counter"}
}

// TestAgentRulesClaudeCode: Claude Code's PermissionRequest hook (claude -p).
func TestAgentRulesClaudeCode(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	writeBump(t, e)
	var revoked string
	steps := []agentStep{
		{fakeStep: fakeStep{"Bash", bash("./bump.sh one")}, question: permissionQuestion, do: rememberAll("./bump.sh one"), want: []string{"bumped one"}},
		{fakeStep: fakeStep{"Bash", bash("./bump.sh one")}},
		{fakeStep: fakeStep{"Bash", bash("./bump.sh one two")}},
		{fakeStep: fakeStep{"Bash", bash("./bump.sh two")}, question: permissionQuestion,
			do: func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
				// Revoked while this one waits, so that the next is asked.
				out, errOut, code := e.Client("", "rules", "revoke", "1")
				if code != 0 {
					t.Fatalf("rules revoke 1: exit %d %s%s", code, out, errOut)
				}
				revoked = out
				testenv.ChooseInAskuser("Allow", "")(t, e, p)
			}, want: []string{"bumped two"}},
		{fakeStep: fakeStep{"Bash", bash("./bump.sh one")}, question: permissionQuestion, do: testenv.ChooseInAskuser("Allow", ""), want: []string{"bumped one"}},
	}
	model := modelPlaying(t, steps)
	agent := startClaudePermission(t, claude, e, model)
	playScript(t, e, w, model, agent, "claude-code", steps[:1])
	// Listed with who made it, before it answers.
	out, _, _ := e.Client("", "rules")
	if !strings.Contains(out, "Bash: ./bump.sh one (and with more arguments) in ") || !strings.Contains(out, "made ") || !strings.Contains(out, "by you in the pane") {
		t.Errorf("askuser-client rules:\n%s", out)
	}
	ruleAnswers(t, model, w, e, 1, "bumped one")
	ruleAnswers(t, model, w, e, 2, "bumped one two")
	// The rest are asked: a changed argument, and the first after revoke.
	playAsked(t, e, w, model, agent, steps, 3)
	agent.wait(t)
	if got := strings.Join(runs(e), " "); got != "|one |one |one two |two |one" {
		t.Errorf("runs.txt: %q; want one, one, one two, two, one", got)
	}
	if !strings.Contains(revoked, "rule 1 revoked") {
		t.Errorf("revoke said %q", revoked)
	}
	want := "claude-code:pane claude-code:rule#1 claude-code:rule#1 claude-code:pane claude-code:pane"
	if got := strings.Join(historyVia(t, e), " "); got != want {
		t.Errorf("history: %s\nwant     %s", got, want)
	}
	out, _, _ = e.Client("", "rules")
	if !strings.Contains(out, "no rules") {
		t.Errorf("after revoke, askuser-client rules:\n%s", out)
	}
}

// TestAgentRulesAcrossAgents: a rule Claude Code's prompt made for all
// agents answers Codex's identical prompt (its PermissionRequest hook).
func TestAgentRulesAcrossAgents(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	codex := agentBinary(t, "codex")
	writeBump(t, e)
	steps := []agentStep{{fakeStep: fakeStep{"Bash", bash("./bump.sh one")}, question: permissionQuestion, do: rememberAll("./bump.sh one"), want: []string{"bumped one"}}}
	model := modelPlaying(t, steps)
	agent := startClaudePermission(t, claude, e, model)
	playScript(t, e, w, model, agent, "claude-code", steps)
	agent.wait(t)

	cmodel := newFakeModel(t, fakeStep{"exec_command", map[string]any{"cmd": "./bump.sh one",
		"sandbox_permissions": "require_escalated", "justification": "Bump the counter"}})
	cagent := startCodexPermission(t, codex, e, cmodel)
	ruleAnswers(t, cmodel, w, e, 0, "bumped one")
	cagent.wait(t)
	if got := strings.Join(runs(e), " "); got != "|one |one" {
		t.Errorf("runs.txt: %q; want one, one", got)
	}
	via := historyVia(t, e)
	if len(via) != 2 || via[1] != "codex:rule#1" {
		t.Errorf("history: %q; want Codex's prompt answered by rule 1", via)
	}
}

// TestAgentRulesOpenCode: OpenCode's permission.asked, through its plugin.
func TestAgentRulesOpenCode(t *testing.T) {
	opencode, e, w := agentTest(t, "opencode")
	writeBump(t, e)
	steps := []agentStep{
		{fakeStep: fakeStep{"bash", bash("./bump.sh one")}, question: "Allow OpenCode to use bash: ./bump.sh one?",
			do: func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
				t.Logf("Allow once approves:\n%s", p.Questions[0].Options[0].Preview)
				testenv.ChooseInAskuser(socketproto.RememberPrefix+"Bash: ./bump.sh one (and with more arguments) in ", ", for OpenCode")(t, e, p)
			}, want: []string{"bumped one"}},
		{fakeStep: fakeStep{"bash", bash("./bump.sh one")}},
		{fakeStep: fakeStep{"bash", bash("./bump.sh one two")}},
		{fakeStep: fakeStep{"bash", bash("./bump.sh three")}, question: "Allow OpenCode to use bash: ./bump.sh three?", do: testenv.ChooseInAskuser("Allow once", ""), want: []string{"bumped three"}},
	}
	model := modelPlaying(t, steps)
	env := opencodeSetup(t, e, model)
	srv := startOpencodeServe(t, e, env, opencode)
	srv.prompt(opencodePrompt)
	playScript(t, e, w, model, srv.agent, "opencode", steps[:1])
	ruleAnswers(t, model, w, e, 1, "bumped one")
	ruleAnswers(t, model, w, e, 2, "bumped one two")
	playAsked(t, e, w, model, srv.agent, steps, 3)
	if got := strings.Join(runs(e), " "); got != "|one |one |one two |three" {
		t.Errorf("runs.txt: %q", got)
	}
	via := historyVia(t, e)
	if strings.Join(via, " ") != "opencode:pane opencode:rule#1 opencode:rule#1 opencode:pane" {
		t.Errorf("history: %q", via)
	}
}

// TestAgentRulesClaudeCodeMCP: `claude -p --permission-prompt-tool
// mcp__askuser__permission_prompt`: the same offer and the same rule.
func TestAgentRulesClaudeCodeMCP(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	writeBump(t, e)
	steps := []agentStep{
		{fakeStep: fakeStep{"Bash", bash("./bump.sh one")}, question: permissionQuestion,
			do:   testenv.ChooseInAskuser(socketproto.RememberPrefix+"Bash: ./bump.sh one (and with more arguments) in ", ", for Claude Code"),
			want: []string{"bumped one"}},
		{fakeStep: fakeStep{"Bash", bash("./bump.sh one two")}},
		// An option is no plain operand: asked.
		{fakeStep: fakeStep{"Bash", bash("./bump.sh one -v")}, question: permissionQuestion, do: testenv.ChooseInAskuser("Allow", ""), want: []string{"bumped one -v"}},
	}
	model := modelPlaying(t, steps)
	home, mcpConfig, settings := claudeSetup(t, e, false, 0)
	agent := startAgent(t, e.Root, claudeEnv(e, home, model), claude, claudeArgs(mcpConfig, settings)...)
	playScript(t, e, w, model, agent, "", steps[:1])
	ruleAnswers(t, model, w, e, 1, "bumped one two")
	playAsked(t, e, w, model, agent, steps, 2)
	agent.wait(t)
	if got := strings.Join(runs(e), " "); got != "|one |one two |one -v" {
		t.Errorf("runs.txt: %q", got)
	}
}

// TestAgentRulesClaudeCodeRememberAfterRestart: a permission prompt waits
// in askuser; the daemon is killed (SIGKILL); the tree changes (a .git
// appears above the directory, which makes the repository the tree a rule
// would now be offered for); the daemon starts again and the hook comes
// back for its prompt; the user chooses "Allow, and remember … for all
// agents" as it was offered. Claude Code gets Allow (the command runs), and
// exactly one rule exists: the one the option showed.
func TestAgentRulesClaudeCodeRememberAfterRestart(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	proj := filepath.Join(e.Root, "proj")
	if err := os.Mkdir(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	testdir.WriteExecutable(t, filepath.Join(proj, "bump.sh"), []byte(bumpScript), 0o700)
	model := newFakeModel(t, fakeStep{"Bash", bash("./bump.sh one")}, fakeStep{"Bash", bash("./bump.sh one")})
	home := filepath.Join(e.Root, "home")
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	agent := startAgent(t, proj, claudeEnv(e, home, model), claude,
		"-p", "--settings", claudePermissionSettings(t, e), "--strict-mcp-config",
		"--permission-mode", "default", "--model", claudeModel, "Bump it.")
	p := nextAddedWithin(t, w, agent)
	want := socketproto.RememberPrefix + "Bash: ./bump.sh one (and with more arguments) in " + proj + ", for all agents"
	if got := testdaemon.Remembers(p); len(got) != 2 || got[1] != want {
		t.Fatalf("offered %q; want the second to be %q", got, want)
	}

	e.KillDaemon()
	if err := os.Mkdir(filepath.Join(e.Root, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	e.StartDaemon()
	w = testenv.Watch(t, e)
	restored := testenv.ListedAs(t, e, p.RequestID, socketproto.StatusWaiting) // the hook is back
	if got := testdaemon.Remembers(restored); len(got) != 2 || got[1] != want {
		t.Fatalf("after the restart the prompt offers %q; want %q as before", got, want)
	}
	testenv.ChooseInAskuser(want, "")(t, e, restored)
	if r := model.Result(0, agentWait); r.IsError || !strings.Contains(r.Text, "bumped one") {
		t.Fatalf("Claude Code got (is_error %v) %q; want the command run", r.IsError, r.Text)
	}
	ruleAnswers(t, model, w, e, 1, "bumped one")
	agent.wait(t)
	c := e.Dial()
	if err := c.Send(socketproto.RulesRequest{}); err != nil {
		t.Fatal(err)
	}
	rl := testdaemon.RecvType(t, c, "rules", testenv.ClientWait).(socketproto.Rules)
	if len(rl.Rules) != 1 || rl.Rules[0].Dir != proj || rl.Rules[0].MadeFrom != p.RequestID || rl.Rules[0].Answered != 1 {
		t.Errorf("rules: %+v; want the one offered, in %s, answered once", rl.Rules, proj)
	}
	if got := strings.Join(runs(&testenv.Env{Root: proj}), " "); got != "|one |one" {
		t.Errorf("runs.txt: %q; want one, one", got)
	}
}
