package agents

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"askuser/socketproto"
	"askuser/tests/termpane"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// End to end with the real agent programs (docs/contract.md §11): Claude Code and pi, the
// versions pinned in agents.txt, each driven by the scripted fake model of
// fakemodel_test.go. The questions they ask are answered through askuser as
// a user would, and each test checks what the model received as the tool's
// result.
//
// .ci/run installs the agents; outside CI a test whose agent is missing is
// skipped with the command that installs it. In CI (CI=true) it fails.

// agentWait bounds each wait on an agent: generous, since a cold start of
// Claude Code on a busy machine takes seconds. Never a measured threshold.
const agentWait = 60 * time.Second

// agentProgram is one line of agents.txt.
type agentProgram struct {
	Name, Package, Version, Binary string
}

// agentsDir is where .ci/run installs the agents.
func agentsDir() string {
	if d := os.Getenv("ASKUSER_AGENTS_DIR"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "askuser-ci", "agents")
}

// agentBinary is the installed binary of the named agent; it skips the test
// (fails it in CI) when that is missing.
func agentBinary(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open("../agents.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 || strings.HasPrefix(fields[0], "#") || fields[0] != name {
			continue
		}
		p := agentProgram{fields[0], fields[1], fields[2], fields[3]}
		dir := filepath.Join(agentsDir(), p.Name+"@"+p.Version)
		bin := filepath.Join(dir, p.Binary)
		if _, err := os.Stat(bin); err != nil {
			msg := fmt.Sprintf("%s %s is not installed at %s; install it with: npm install --prefix %s %s@%s (or run .ci/run)",
				p.Package, p.Version, bin, dir, p.Package, p.Version)
			testdaemon.Missing(t, p.Package+"@"+p.Version, "npm install --prefix "+dir+" "+p.Package+"@"+p.Version+", or run .ci/run", msg)
		}
		return bin
	}
	t.Fatalf("agents.txt has no line for %s", name)
	return ""
}

// agentRun is an agent process started in the background. Its output is
// kept for failure messages; it is killed, with its process group, when the
// test ends if still running.
type agentRun struct {
	cmd  *exec.Cmd
	out  *testdaemon.LogBuffer
	done chan struct{}
	err  error
}

// claudeModel is the model the Claude Code tests name: the alias of the
// current Sonnet, which Claude Code resolves itself, so no model id the
// pinned version calls deprecated or retired (claude-sonnet-4-5 is
// deprecated from 2026-11-30) puts a warning into output a test reads.
const claudeModel = "sonnet"

func startAgent(t *testing.T, dir string, env []string, name string, args ...string) *agentRun {
	t.Helper()
	return startAgentWithStdin(t, dir, env, nil, name, args...)
}

// startPiRPC runs pi in RPC mode with the askuser extension; send writes one
// command (a JSON line) to it, and closing stdin ends pi's input.
func startPiRPC(t *testing.T, e *testenv.Env, env []string, pi string) (agent *agentRun, send func(cmd string), stdin io.Closer) {
	t.Helper()
	stdinR, stdinW := io.Pipe()
	t.Cleanup(func() { stdinW.Close() })
	agent = startAgentWithStdin(t, e.Root, env, stdinR, pi, "--mode", "rpc", "--offline", "--no-session",
		"--model", "fake/fake-model", "-e", piExtension(t))
	send = func(cmd string) {
		t.Helper()
		if _, err := io.WriteString(stdinW, cmd+"\n"); err != nil {
			t.Fatalf("writing to pi: %v; output:\n%s", err, agent.out)
		}
	}
	return agent, send, stdinW
}

func startAgentWithStdin(t *testing.T, dir string, env []string, stdin io.Reader, name string, args ...string) *agentRun {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = stdin
	r := &agentRun{cmd: cmd, out: &testdaemon.LogBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = r.out, r.out
	// Its own process group, so that the MCP servers and hooks it started
	// go with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r.err = cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		// Wait returns only once the copy into the agent's stdin ends.
		if c, ok := stdin.(io.Closer); ok {
			c.Close()
		}
		select {
		case <-r.done:
		case <-time.After(agentWait):
			t.Errorf("%s was killed but never reaped", filepath.Base(cmd.Path))
		}
		// Whatever it left in its group.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	return r
}

// wait waits for the agent to exit and fails the test if it did not exit 0.
func (r *agentRun) wait(t *testing.T) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(agentWait):
		t.Fatalf("%s did not exit within %v; output:\n%s", filepath.Base(r.cmd.Path), agentWait, r.out)
	}
	if r.err != nil {
		t.Errorf("%s: %v; output:\n%s", filepath.Base(r.cmd.Path), r.err, r.out)
	}
}

// agentStep is one tool call of the script and what the user does with the
// question it asks.
// agentTest starts an agent test: the agent's binary (or a skip, or under
// CI a failure, when it is not installed), a parallel test with its own
// Env and daemon, and a watcher on that daemon.
func agentTest(t *testing.T, agent string) (bin string, e *testenv.Env, w *socketproto.Conn) {
	t.Helper()
	bin = agentBinary(t, agent)
	t.Parallel()
	e = testenv.New(t)
	e.StartDaemon()
	return bin, e, testenv.Watch(t, e)
}

// modelPlaying is a fake model that makes the tool calls of steps, in order.
func modelPlaying(t *testing.T, steps []agentStep) *fakeModel {
	t.Helper()
	fs := make([]fakeStep, len(steps))
	for i, s := range steps {
		fs[i] = s.fakeStep
	}
	return newFakeModel(t, fs...)
}

type agentStep struct {
	fakeStep
	question string // the first question's text, as the pane shows it
	do       func(t *testing.T, e *testenv.Env, p socketproto.Pending)
	want     []string // what the model's tool result must contain
	wantNot  []string
	wantErr  bool
}

// answerCLI answers with `askuser-client answer ID --answers JSON`, as a
// user who read every input an approving option approves (the test holds
// the request as asked): with --digest for each.
func answerCLI(answers string) func(*testing.T, *testenv.Env, socketproto.Pending) {
	return func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
		t.Helper()
		args := []string{"answer", p.RequestID, "--answers", answers}
		for _, q := range p.Questions {
			for _, o := range q.Options {
				if o.ApprovesPreview {
					args = append(args, "--digest", socketproto.PreviewDigest(o.Preview))
				}
			}
		}
		if out, errOut, code := e.Client("", args...); code != 0 {
			t.Fatalf("askuser-client answer: exit %d\n%s%s", code, out, errOut)
		}
	}
}

// declineCLI declines with `askuser-client cancel ID`.
func declineCLI(t *testing.T, e *testenv.Env, p socketproto.Pending) {
	t.Helper()
	if out, errOut, code := e.Client("", "cancel", p.RequestID); code != 0 {
		t.Fatalf("askuser-client cancel: exit %d\n%s%s", code, out, errOut)
	}
}

// answerFile fills in the pending file and saves it as editors do.
func answerFile(answers ...string) func(*testing.T, *testenv.Env, socketproto.Pending) {
	return func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
		t.Helper()
		f := testenv.PendingFile(t, e, p.RequestID)
		testenv.SavePending(t, e, f, p.RequestID, answers...)
	}
}

// agentLatency is the time from the user's answer to the model holding it.
type agentLatency struct {
	step string
	d    time.Duration
}

// playScript answers each step's question as it arrives and checks what the
// model received. It returns the time from each answer to the model
// holding it.
func playScript(t *testing.T, e *testenv.Env, w *socketproto.Conn, model *fakeModel, agent *agentRun, agentName string, steps []agentStep) []agentLatency {
	t.Helper()
	var lat []agentLatency
	for i, s := range steps {
		p := nextAddedWithin(t, w, agent)
		if len(p.Questions) == 0 || p.Questions[0].Question != s.question {
			t.Fatalf("step %d (%s): asked %+v, want %q", i, s.Tool, p.Questions, s.question)
		}
		if agentName != "" && p.Agent.DisplayName() != agentName {
			t.Errorf("step %d (%s): the pane names the agent %q, want %q", i, s.Tool, p.Agent.DisplayName(), agentName)
		}
		start := time.Now()
		s.do(t, e, p)
		r := model.Result(i, agentWait)
		lat = append(lat, agentLatency{fmt.Sprintf("%s %s", s.Tool, s.question), r.At.Sub(start)})
		t.Logf("step %d (%s): the model received (is_error %v): %s", i, s.Tool, r.IsError, r.Text)
		for _, want := range s.want {
			if !strings.Contains(r.Text, want) {
				t.Errorf("step %d (%s): the model received %q, which lacks %q", i, s.Tool, r.Text, want)
			}
		}
		for _, no := range s.wantNot {
			if strings.Contains(r.Text, no) {
				t.Errorf("step %d (%s): the model received %q, which has %q", i, s.Tool, r.Text, no)
			}
		}
		if r.IsError != s.wantErr {
			t.Errorf("step %d (%s): is_error = %v, want %v; text %q", i, s.Tool, r.IsError, s.wantErr, r.Text)
		}
	}
	return lat
}

func logLatency(t *testing.T, lat []agentLatency) {
	t.Helper()
	for _, l := range lat {
		t.Logf("answer → model: %7.1f ms  %s", float64(l.d.Microseconds())/1000, l.step)
	}
}

// agentTmp is the agent's TMPDIR, inside the test's directory, so that what
// an agent leaves in its temporary directory goes with the test.
func agentTmp(e *testenv.Env) string {
	dir := filepath.Join(e.Root, "tmp")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		e.T.Fatal(err)
	}
	return dir
}

// --- Claude Code ------------------------------------------------------------

// claudeEnv is Claude Code's environment: a private HOME, the fake model, no
// traffic anywhere else, MCP tools offered directly (not deferred behind
// ToolSearch).
func claudeEnv(e *testenv.Env, home string, model *fakeModel, extra ...string) []string {
	env := e.Environ(
		"HOME="+home,
		"ANTHROPIC_BASE_URL="+model.URL(),
		"ANTHROPIC_API_KEY=dummy",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"ENABLE_TOOL_SEARCH=false",
		"IS_SANDBOX=1",
		"TMPDIR="+agentTmp(e),
	)
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CONFIG_DIR", "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT":
			continue
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}

// claudeSetup writes Claude Code's MCP config and settings (the hook, when
// hook is true) into a fresh HOME and returns the HOME and the files.
func claudeSetup(t *testing.T, e *testenv.Env, hook bool, hookTimeout int) (home, mcpConfig, settings string) {
	t.Helper()
	home = filepath.Join(e.Root, "home")
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	mcpConfig = filepath.Join(e.Root, "mcp.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"askuser": map[string]any{
		"command": testenv.Bin("askuser-client"), "args": []string{"mcp"}}}})
	if err := os.WriteFile(mcpConfig, b, 0o600); err != nil {
		t.Fatal(err)
	}
	s := map[string]any{}
	if hook {
		s["hooks"] = map[string]any{"PreToolUse": []any{map[string]any{
			"matcher": "AskUserQuestion",
			"hooks":   []any{map[string]any{"type": "command", "command": testenv.Bin("askuser-client") + " claude-hook", "timeout": hookTimeout}},
		}}}
	}
	settings = filepath.Join(e.Root, "settings.json")
	b, _ = json.Marshal(s)
	if err := os.WriteFile(settings, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return home, mcpConfig, settings
}

func claudeArgs(mcpConfig, settings string, extra ...string) []string {
	args := []string{"-p", "--mcp-config", mcpConfig, "--strict-mcp-config", "--settings", settings,
		"--model", claudeModel,
		"--allowedTools", "mcp__askuser__ask_user_question,mcp__askuser__ask_user",
		"--permission-prompt-tool", "mcp__askuser__permission_prompt"}
	args = append(args, extra...)
	return append(args, "Set up the new service; ask me what you need to know.")
}

var (
	agentDBQuestion = map[string]any{
		"question": "Which database should we use?", "header": "Database", "multiSelect": false,
		"options": []any{
			map[string]any{"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
			map[string]any{"label": "SQLite", "description": "Lightweight, file-based"},
		}}
	agentFeaturesQuestion = map[string]any{
		"question": "Which features should we include?", "header": "Features", "multiSelect": true,
		"options": []any{
			map[string]any{"label": "Authentication", "description": "OAuth2 + JWT"},
			map[string]any{"label": "REST API", "description": "OpenAPI spec included"},
			map[string]any{"label": "Admin Dashboard", "description": "Internal tools"},
		}}
	agentNameQuestion   = map[string]any{"question": "What should we name this service?"}
	agentChecksQuestion = map[string]any{
		"question": "Which checks should CI run?", "header": "CI", "multiSelect": true,
		"options": []any{map[string]any{"label": "Lint"}, map[string]any{"label": "Unit tests"}, map[string]any{"label": "Race detector"}}}
)

func agentQuestions(qs ...map[string]any) map[string]any {
	list := make([]any, len(qs))
	for i, q := range qs {
		list[i] = q
	}
	return map[string]any{"questions": list}
}

// TestAgentClaudeCodeMCPAndHook: Claude Code calls askuser's MCP tools and
// its own AskUserQuestion (answered by the PreToolUse hook), and the model
// reads every answer, typed text, multi-select, note and decline.
func TestAgentClaudeCodeMCPAndHook(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	steps := []agentStep{
		{fakeStep: fakeStep{"mcp__askuser__ask_user_question", agentQuestions(agentDBQuestion)},
			question: "Which database should we use?",
			do:       answerCLI(`[{"selected":["SQLite"],"notes":"keep it small"}]`),
			want: []string{`"answers":{"Which database should we use?":"SQLite"}`, `"notes":"keep it small"`,
				`the user chose SQLite`}},
		{fakeStep: fakeStep{"mcp__askuser__ask_user", agentQuestions(agentFeaturesQuestion, agentNameQuestion)},
			question: "Which features should we include?",
			do:       answerFile(`"1, 3"`, `"order-processor"`),
			want: []string{`"answered":true`, `["Authentication","Admin Dashboard"]`, `"answer":"order-processor"`,
				`"wasCustom":true`}},
		{fakeStep: fakeStep{"mcp__askuser__ask_user_question", agentQuestions(agentDBQuestion)},
			question: "Which database should we use?",
			do:       declineCLI,
			want:     []string{socketproto.DeclinedSentence, `"cancelled":true`}},
		{fakeStep: fakeStep{"AskUserQuestion", agentQuestions(agentDBQuestion, agentFeaturesQuestion)},
			question: "Which database should we use?",
			do:       answerCLI(`["I'd rather use DynamoDB", {"selected":["REST API"],"notes":"v2 only"}]`),
			want:     []string{"I'd rather use DynamoDB", "REST API", "v2 only"}},
		{fakeStep: fakeStep{"AskUserQuestion", agentQuestions(agentDBQuestion)},
			question: "Which database should we use?",
			do:       declineCLI,
			want:     []string{socketproto.DeclinedSentence}},
	}
	model := modelPlaying(t, steps)
	// Set up as a user would: `askuser-client integrate claude --write`.
	home := filepath.Join(e.Root, "home")
	env := claudeEnv(e, home, model)
	integrateAgent(t, env, "claude")
	agent := startAgent(t, e.Root, env, claude, "-p", "--model", claudeModel,
		"--permission-prompt-tool", "mcp__askuser__permission_prompt", "Set up the new service; ask me what you need to know.")
	lat := playScript(t, e, w, model, agent, "claude-code", steps)
	agent.wait(t)
	logLatency(t, lat)
}

// TestAgentClaudeCodePermissionPrompt: in `claude -p` with
// --permission-prompt-tool and no hook, AskUserQuestion goes through
// permission_prompt, and so does Bash, as a yes/no question.
func TestAgentClaudeCodePermissionPrompt(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	allowQ := "Allow the agent to use Bash with the input shown?"
	steps := []agentStep{
		{fakeStep: fakeStep{"AskUserQuestion", agentQuestions(agentFeaturesQuestion)},
			question: "Which features should we include?",
			do:       answerCLI(`[["Authentication","Admin Dashboard"]]`),
			want:     []string{"Which features should we include?", "Authentication, Admin Dashboard"}},
		{fakeStep: fakeStep{"Bash", map[string]any{"command": "touch allowed.txt && echo askuser-was-allowed", "description": "Make a file"}},
			question: allowQ,
			do:       answerCLI(`["Allow"]`),
			want:     []string{"askuser-was-allowed"}},
		{fakeStep: fakeStep{"Bash", map[string]any{"command": "touch denied.txt && echo never-printed", "description": "Make another file"}},
			question: allowQ,
			do:       answerCLI(`[{"selected":["Deny"],"notes":"not now"}]`),
			want:     []string{"The user denied permission to use Bash. Note: not now"},
			wantNot:  []string{"never-printed\n"},
			wantErr:  true},
	}
	model := modelPlaying(t, steps)
	home, mcpConfig, settings := claudeSetup(t, e, false, 0)
	agent := startAgent(t, e.Root, claudeEnv(e, home, model), claude, claudeArgs(mcpConfig, settings)...)
	lat := playScript(t, e, w, model, agent, "claude-code", steps)
	agent.wait(t)
	logLatency(t, lat)
	if _, err := os.Stat(filepath.Join(e.Root, "allowed.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.Root, "denied.txt")); err == nil {
		t.Errorf("the denied command ran")
	}
}

// integrateAgent runs `askuser-client integrate AGENT --write` in env (whose
// HOME is the agent's private one).
func integrateAgent(t *testing.T, env []string, agent string) {
	t.Helper()
	cmd := exec.Command(testenv.Bin("askuser-client"), "integrate", agent, "--write")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("askuser-client integrate %s --write: %v\n%s", agent, err, out)
	}
}

// --- pi ---------------------------------------------------------------------

// piSetup writes pi's models.json (a provider at the fake model) into a fresh
// HOME and returns the HOME and pi's environment.
func piSetup(t *testing.T, e *testenv.Env, model *fakeModel) (home string, env []string) {
	t.Helper()
	home = filepath.Join(e.Root, "home")
	dir := filepath.Join(home, ".pi", "agent")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"providers": map[string]any{"fake": map[string]any{
		"baseUrl": model.URL() + "/v1",
		"api":     "openai-completions",
		"apiKey":  "dummy",
		"compat":  map[string]any{"supportsDeveloperRole": false, "supportsReasoningEffort": false},
		"models":  []any{map[string]any{"id": "fake-model"}},
	}}})
	if err := os.WriteFile(filepath.Join(dir, "models.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return home, e.Environ("HOME="+home, "PI_SKIP_VERSION_CHECK=1", "TMPDIR="+agentTmp(e))
}

// piExtension is the extension as shipped.
func piExtension(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "internal", "agents", "pi", "askuser.ts"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAgentPiAskUser: pi with the askuser extension, in print mode, asks
// through its ask_user tool; the model reads the answers given with the CLI,
// the pending file and the pane: typed text, multi-select, notes, decline.
func TestAgentPiAskUser(t *testing.T) {
	pi, e, w := agentTest(t, "pi")
	pane := termpane.StartSim(t, e, 80, 24)
	steps := []agentStep{
		{fakeStep: fakeStep{"ask_user", agentQuestions(agentDBQuestion, agentNameQuestion)},
			question: "Which database should we use?",
			do:       answerCLI(`[{"selected":["SQLite"],"notes":"keep it small"}, "order-processor"]`),
			want: []string{`"answered":true`, `"answer":"SQLite"`, `"selectedOption":"SQLite"`, `"notes":"keep it small"`,
				`"answer":"order-processor"`, `"wasCustom":true`}},
		{fakeStep: fakeStep{"ask_user", agentQuestions(agentFeaturesQuestion)},
			question: "Which features should we include?",
			do:       answerFile(`{"selected": ["REST API"], "custom": "Use Redis too"}`),
			want:     []string{`"answer":["REST API","Use Redis too"]`, `"selectedOptions":["REST API"]`, `"custom":"Use Redis too"`}},
		{fakeStep: fakeStep{"ask_user", agentQuestions(agentChecksQuestion)},
			question: "Which checks should CI run?",
			do: func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
				pane.WaitFor("Which checks should CI run?", "[ ] 1. Lint")
				pane.Key(tcell.KeyRune, '1')
				pane.Key(tcell.KeyRune, '3')
				pane.Key(tcell.KeyRune, '0')
				pane.TypeText("fuzz nightly")
				pane.Key(tcell.KeyEnter, 0) // accepts the Other text
				pane.WaitFor("[x] 4. Other: fuzz nightly")
				pane.Key(tcell.KeyEnter, 0) // confirms the question: sent
			},
			want: []string{`"answer":["Lint","Race detector","fuzz nightly"]`, `"selectedOptions":["Lint","Race detector"]`}},
		{fakeStep: fakeStep{"ask_user", agentQuestions(agentNameQuestion)},
			question: "What should we name this service?",
			do:       declineCLI,
			want:     []string{`"cancelled":true`, socketproto.DeclinedSentence}},
	}
	model := modelPlaying(t, steps)
	_, env := piSetup(t, e, model)
	// Set up as a user would: the extension written by
	// `askuser-client integrate pi --write`, found by pi on its own.
	integrateAgent(t, env, "pi")
	agent := startAgent(t, e.Root, env, pi, "-p", "--offline", "--no-session", "--model", "fake/fake-model",
		"Set up the new service; ask me what you need to know.")
	lat := playScript(t, e, w, model, agent, "pi", steps)
	agent.wait(t)
	logLatency(t, lat)
}

// expectWithdrawn waits until the question is withdrawn by its asker.
func expectWithdrawn(w *socketproto.Conn, id string) func(*testing.T) time.Duration {
	return func(t *testing.T) time.Duration {
		t.Helper()
		start := time.Now()
		for {
			m := testdaemon.RecvType(t, w, "request_resolved", agentWait).(socketproto.RequestResolved)
			if m.RequestID != id {
				continue
			}
			if m.Outcome != socketproto.OutcomeWithdrawn {
				t.Fatalf("request %s was %s, want withdrawn", id, m.Outcome)
			}
			return time.Since(start)
		}
	}
}

// TestAgentClaudeCodeTimeoutsWithdrawTheQuestion: when Claude Code gives up
// on a call (its MCP tool timeout, its hook timeout), the question leaves the
// pane; after the hook's timeout Claude Code asks through its fallback, the
// permission prompt, which askuser answers too.
func TestAgentClaudeCodeTimeoutsWithdrawTheQuestion(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	steps := []agentStep{
		{fakeStep: fakeStep{"mcp__askuser__ask_user_question", agentQuestions(agentDBQuestion)},
			question: "Which database should we use?",
			do: func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
				d := expectWithdrawn(w, p.RequestID)(t)
				t.Logf("MCP_TOOL_TIMEOUT=2000: withdrawn %v after it was asked", d.Round(time.Millisecond))
			},
			wantErr: true},
		{fakeStep: fakeStep{"AskUserQuestion", agentQuestions(agentDBQuestion)},
			question: "Which database should we use?",
			do: func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
				d := expectWithdrawn(w, p.RequestID)(t)
				t.Logf("hook timeout 2 s: withdrawn %v after it was asked", d.Round(time.Millisecond))
				again := testenv.NextAdded(t, w)
				if again.Questions[0].Question != "Which database should we use?" {
					t.Fatalf("after the hook's timeout: asked %+v", again.Questions)
				}
				answerCLI(`["PostgreSQL (Recommended)"]`)(t, e, again)
			},
			want: []string{`"Which database should we use?"="PostgreSQL (Recommended)"`}},
	}
	model := modelPlaying(t, steps)
	home, mcpConfig, settings := claudeSetup(t, e, true, 2)
	agent := startAgent(t, e.Root, claudeEnv(e, home, model, "MCP_TOOL_TIMEOUT=2000"), claude, claudeArgs(mcpConfig, settings)...)
	playScript(t, e, w, model, agent, "claude-code", steps)
	agent.wait(t)
}

// TestAgentPiAbortWithdrawsTheQuestion: an aborted pi turn (RPC mode's
// abort, as Esc in the terminal) withdraws the question from the pane.
func TestAgentPiAbortWithdrawsTheQuestion(t *testing.T) {
	pi, e, w := agentTest(t, "pi")
	model := newFakeModel(t, fakeStep{"ask_user", agentQuestions(agentDBQuestion)})
	_, env := piSetup(t, e, model)
	agent, send, stdin := startPiRPC(t, e, env, pi)
	send(`{"id":"1","type":"prompt","message":"Set up the new service; ask me what you need to know."}`)
	p := nextAddedWithin(t, w, agent)
	send(`{"id":"2","type":"abort"}`)
	d := expectWithdrawn(w, p.RequestID)(t)
	t.Logf("abort: withdrawn %v after the abort was sent", d.Round(time.Millisecond))
	stdin.Close()
	select {
	case <-agent.done:
	case <-time.After(agentWait):
		t.Errorf("pi did not exit within %v of its stdin closing", agentWait)
	}
	if out, _, _ := e.Client("", "list", "--json"); strings.Contains(out, p.RequestID) {
		t.Errorf("the question is still listed after the abort:\n%s", out)
	}
}

// nextAddedWithin is testenv.NextAdded, failing early when the agent exits first.
func nextAddedWithin(t *testing.T, w *socketproto.Conn, agent *agentRun) socketproto.Pending {
	t.Helper()
	got := make(chan socketproto.Pending, 1)
	go func() {
		defer close(got)
		_ = w.NetConn().SetReadDeadline(time.Now().Add(agentWait))
		for {
			m, err := w.Recv()
			if err != nil {
				return
			}
			if a, ok := m.(socketproto.RequestAdded); ok {
				got <- a.Request
				return
			}
		}
	}()
	select {
	case p, ok := <-got:
		if !ok {
			t.Fatalf("no question reached askuser within %v; agent output:\n%s", agentWait, agent.out)
		}
		_ = w.NetConn().SetReadDeadline(time.Time{})
		return p
	case <-agent.done:
		t.Fatalf("the agent exited before asking: %v; output:\n%s", agent.err, agent.out)
	}
	return socketproto.Pending{}
}

// --- Codex ------------------------------------------------------------------

// codexSetup writes Codex's config.toml (a provider at the fake model) into a
// fresh CODEX_HOME and returns Codex's environment.
func codexSetup(t *testing.T, e *testenv.Env, model *fakeModel) []string {
	t.Helper()
	home := filepath.Join(e.Root, "home")
	codexHome := filepath.Join(home, ".codex")
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`model = "fake-model"
model_provider = "fake"
approval_policy = "never"

# Nothing but the fake model: no plugin sync from the network.
[features]
plugins = false

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
env_key = "FAKE_API_KEY"
`, model.URL()+"/v1")
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return e.Environ("HOME="+home, "CODEX_HOME="+codexHome, "FAKE_API_KEY=dummy", "RUST_LOG=warn", "TMPDIR="+agentTmp(e))
}

// TestAgentCodexMCP: Codex, set up by `askuser-client integrate codex
// --write`, reaches the same daemon as the pane (its MCP servers get a
// reduced environment: the config passes the XDG variables through), and the
// model reads the answer and the decline.
func TestAgentCodexMCP(t *testing.T) {
	codex, e, w := agentTest(t, "codex")
	steps := []agentStep{
		{fakeStep: fakeStep{"mcp__askuser__ask_user_question", agentQuestions(agentDBQuestion)},
			question: "Which database should we use?",
			do:       answerCLI(`[{"selected":["SQLite"],"notes":"keep it small"}]`),
			want:     []string{`"Which database should we use?":"SQLite"`, "keep it small"}},
		{fakeStep: fakeStep{"mcp__askuser__ask_user_question", agentQuestions(agentDBQuestion)},
			question: "Which database should we use?",
			do:       declineCLI,
			want:     []string{socketproto.DeclinedSentence}},
	}
	model := modelPlaying(t, steps)
	env := codexSetup(t, e, model)
	integrateAgent(t, env, "codex")
	agent := startAgent(t, e.Root, env, codex, "exec", "--skip-git-repo-check", "Set up the new service; ask me what you need to know.")
	lat := playScript(t, e, w, model, agent, "codex-mcp-client", steps)
	agent.wait(t)
	logLatency(t, lat)
}

// TestAgentPiKilledWithdrawsTheQuestion: pi told to stop (SIGTERM to pi
// alone, as a harness or a closed terminal does) while its question waits:
// the question leaves the pane instead of waiting for nobody.
func TestAgentPiKilledWithdrawsTheQuestion(t *testing.T) {
	pi, e, w := agentTest(t, "pi")
	model := newFakeModel(t, fakeStep{"ask_user", agentQuestions(agentDBQuestion)})
	_, env := piSetup(t, e, model)
	agent := startAgent(t, e.Root, env, pi, "-p", "--offline", "--no-session", "--model", "fake/fake-model",
		"-e", piExtension(t), "Set up the new service; ask me what you need to know.")
	p := nextAddedWithin(t, w, agent)
	if err := agent.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	d := expectWithdrawn(w, p.RequestID)(t)
	t.Logf("SIGTERM to pi: withdrawn %v later", d.Round(time.Millisecond))
}

// TestAgentPiQuestionsCommand: pi's /questions shows what waits in askuser,
// and /questions clear declines this session's question, which the model
// then reads as declined.
func TestAgentPiQuestionsCommand(t *testing.T) {
	pi, e, w := agentTest(t, "pi")
	model := newFakeModel(t, fakeStep{"ask_user", agentQuestions(agentNameQuestion)})
	_, env := piSetup(t, e, model)
	agent, send, _ := startPiRPC(t, e, env, pi)
	// outputHas waits until pi's output (RPC events, one JSON per line) has s.
	outputHas := func(s string) {
		t.Helper()
		testdaemon.EventuallyWithin(t, agentWait, fmt.Sprintf("pi to print %q", s), func() (bool, string) {
			out := agent.out.String()
			return strings.Contains(out, s), out
		})
	}
	send(`{"id":"1","type":"prompt","message":"Name the service; ask me."}`)
	p := nextAddedWithin(t, w, agent)
	send(`{"id":"2","type":"prompt","message":"/questions"}`)
	outputHas(p.RequestID) // `askuser-client pending`, shown with ctx.ui.notify
	send(`{"id":"3","type":"prompt","message":"/questions clear"}`)
	outputHas("Declined 1 question of this session.")
	r := model.Result(0, agentWait)
	if !strings.Contains(r.Text, socketproto.DeclinedSentence) {
		t.Errorf("the model received %q, want the declined sentence", r.Text)
	}
}

// TestAgentPiRefusalNamesTheField: questions askuser refuses reach pi's
// model as a tool error that names the field and the rule, and nothing
// waits in the pane.
func TestAgentPiRefusalNamesTheField(t *testing.T) {
	pi := agentBinary(t, "pi")
	t.Parallel()
	e := testenv.New(t)
	e.StartDaemon()
	model := newFakeModel(t, fakeStep{"ask_user", agentQuestions(agentNameQuestion, agentNameQuestion)})
	_, env := piSetup(t, e, model)
	agent := startAgent(t, e.Root, env, pi, "-p", "--offline", "--no-session", "--model", "fake/fake-model",
		"-e", piExtension(t), "Name the service; ask me.")
	r := model.Result(0, agentWait)
	t.Logf("the model received: %s", r.Text)
	if want := "questions[1].question: duplicate of questions[0].question"; !strings.Contains(r.Text, want) {
		t.Errorf("the model received %q, want %q", r.Text, want)
	}
	agent.wait(t)
	if out, _, _ := e.Client("", "list", "--json"); strings.Contains(out, "requestId") {
		t.Errorf("a refused request is listed:\n%s", out)
	}
}
