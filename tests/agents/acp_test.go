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
	"sync"
	"syscall"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// ACP agents behind `askuser-client acp-proxy` (docs/contract.md §11 "ACP"):
// the real adapters pinned in agents.txt, driven by the fake model, and an
// editor played by the official ACP client library (tests/acpeditor,
// @agentclientprotocol/sdk pinned in its package.json, installed by
// .ci/run). Each permission request reaches both the editor and askuser;
// whichever answers first wins, and the other copy is withdrawn.

// acpEditorSDK is where .ci/run installs the editor's ACP library; the test
// skips (fails in CI) when it is missing.
func acpEditorSDK(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "acpeditor", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	version := pkg.Dependencies["@agentclientprotocol/sdk"]
	dir := filepath.Join(agentsDir(), "acpeditor@"+version)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		install := "npm install --prefix " + dir + " @agentclientprotocol/sdk@" + version
		testdaemon.Missing(t, "@agentclientprotocol/sdk@"+version, install+", or run .ci/run",
			"the ACP editor's library is not installed in "+dir+"; install it with: "+install)
	}
	return dir
}

// editorEvent is one line the editor script writes.
type editorEvent struct {
	Event     string          `json:"event"`
	At        int64           `json:"at"` // Unix milliseconds
	RequestID json.RawMessage `json:"requestId"`
	Params    struct {
		ToolCall struct {
			Title    string          `json:"title"`
			Kind     string          `json:"kind"`
			RawInput json.RawMessage `json:"rawInput"`
		} `json:"toolCall"`
		Options []struct {
			OptionID string `json:"optionId"`
			Name     string `json:"name"`
			Kind     string `json:"kind"`
		} `json:"options"`
	} `json:"params"`
	StopReason string `json:"stopReason"`
	Code       *int   `json:"code"`
	Message    string `json:"message"`
	raw        string
}

// acpEditor is the editor script running the proxy and the agent.
type acpEditor struct {
	run   *agentRun
	stdin io.WriteCloser

	mu     sync.Mutex
	events []editorEvent
	more   chan struct{}
}

// startACPEditor runs the editor on `askuser-client acp-proxy -- agent…`
// in e.Root, with the prompt text.
func startACPEditor(t *testing.T, e *testenv.Env, env []string, prompt string, agent ...string) *acpEditor {
	t.Helper()
	sdk := acpEditorSDK(t)
	script, err := filepath.Abs(filepath.Join("..", "acpeditor", "editor.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	stdinR, stdinW := io.Pipe()
	outR, outW := io.Pipe()
	args := append([]string{script, e.Root, prompt, "--", testenv.Bin("askuser-client"), "acp-proxy", "--"}, agent...)
	cmd := exec.Command("node", args...)
	cmd.Dir = e.Root
	cmd.Env = append(env, "ACP_SDK="+sdk)
	cmd.Stdin = stdinR
	ed := &acpEditor{stdin: stdinW, more: make(chan struct{}, 1)}
	r := &agentRun{cmd: cmd, out: &testdaemon.LogBuffer{}, done: make(chan struct{})}
	ed.run = r
	cmd.Stdout, cmd.Stderr = outW, r.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r.err = cmd.Wait()
		outW.Close()
		close(r.done)
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
		for sc.Scan() {
			var ev editorEvent
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				ev.Event = "unreadable"
			}
			ev.raw = sc.Text()
			ed.mu.Lock()
			ed.events = append(ed.events, ev)
			ed.mu.Unlock()
			select {
			case ed.more <- struct{}{}:
			default:
			}
		}
		close(ed.more)
	}()
	t.Cleanup(func() {
		stdinW.Close()
		select {
		case <-r.done:
		case <-time.After(agentWait):
		}
		// The editor, the proxy, the agent and whatever it started.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-r.done
		stdinR.Close()
	})
	return ed
}

// send writes one command to the editor.
func (ed *acpEditor) send(t *testing.T, cmd string) {
	t.Helper()
	if _, err := io.WriteString(ed.stdin, cmd+"\n"); err != nil {
		t.Fatalf("writing to the editor: %v", err)
	}
}

// count is how many events of the kind the editor wrote so far.
func (ed *acpEditor) count(kind string) int {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	n := 0
	for _, ev := range ed.events {
		if ev.Event == kind {
			n++
		}
	}
	return n
}

// wait waits for the editor's nth event (from 1) of the kind.
func (ed *acpEditor) wait(t *testing.T, kind string, n int) editorEvent {
	t.Helper()
	deadline := time.After(agentWait)
	for {
		ed.mu.Lock()
		seen := 0
		for _, ev := range ed.events {
			if ev.Event == kind {
				if seen++; seen == n {
					ed.mu.Unlock()
					return ev
				}
			}
		}
		ed.mu.Unlock()
		select {
		case _, ok := <-ed.more:
			if !ok {
				t.Fatalf("the editor ended without %s #%d; it wrote:\n%s\nstderr:\n%s", kind, n, ed.log(), ed.run.out)
			}
		case <-deadline:
			t.Fatalf("no %s #%d from the editor within %v; it wrote:\n%s\nstderr:\n%s", kind, n, agentWait, ed.log(), ed.run.out)
		}
	}
}

func (ed *acpEditor) log() string {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	var b strings.Builder
	for _, ev := range ed.events {
		fmt.Fprintln(&b, ev.raw)
	}
	return b.String()
}

// quit ends the editor's session and checks that the proxy and the agent
// ended with it, the agent's exit code the proxy's.
func (ed *acpEditor) quit(t *testing.T) {
	t.Helper()
	ed.stdin.Close()
	ev := ed.wait(t, "exit", 1)
	if ev.Code == nil || *ev.Code != 0 {
		t.Errorf("the proxy exited %s; want 0", ev.raw)
	}
	select {
	case <-ed.run.done:
	case <-time.After(agentWait):
		t.Fatalf("the editor did not exit; stderr:\n%s", ed.run.out)
	}
}

// optionOf is the id of the editor's option of the kind.
func optionOf(t *testing.T, ev editorEvent, kind string) string {
	t.Helper()
	for _, o := range ev.Params.Options {
		if o.Kind == kind {
			return o.OptionID
		}
	}
	t.Fatalf("the permission request has no %s option: %s", kind, ev.raw)
	return ""
}

// nextResolved waits for the watcher's request_resolved of id.
func nextResolved(t *testing.T, w *socketproto.Conn, id string) (socketproto.RequestResolved, time.Time) {
	t.Helper()
	for {
		m := testdaemon.Recv(t, w, agentWait)
		if r, ok := m.(socketproto.RequestResolved); ok && r.RequestID == id {
			return r, time.Now()
		}
	}
}

// acpAgent is one ACP adapter as the tests start it.
type acpAgent struct {
	name string                                          // its line in agents.txt
	env  func(e *testenv.Env, model *fakeModel) []string // its environment, pointed at the fake model
	args []string                                        // after its binary
	tool string                                          // its shell tool's name for the model ("Bash")
	// input is its shell tool's arguments; nil: command and description.
	input func(command string) map[string]any
}

// shell is the model's call of the agent's shell tool running command.
func (a acpAgent) shell(command string) fakeStep {
	tool := a.tool
	if tool == "" {
		tool = "Bash"
	}
	if a.input != nil {
		return fakeStep{tool, a.input(command)}
	}
	return fakeStep{tool, map[string]any{"command": command, "description": "Run a command"}}
}

var claudeCodeACP = acpAgent{
	name: "claude-code-acp",
	env: func(e *testenv.Env, model *fakeModel) []string {
		home := filepath.Join(e.Root, "home")
		_ = os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
		return claudeEnv(e, home, model)
	},
}

// startACP runs the adapter behind the proxy for the editor, with the
// model playing steps.
func startACP(t *testing.T, a acpAgent, e *testenv.Env, model *fakeModel, prompt string) *acpEditor {
	t.Helper()
	binary := agentBinary(t, a.name)
	return startACPEditor(t, e, a.env(e, model), prompt, append([]string{binary}, a.args...)...)
}

// acpPermission waits for the permission request in both places: the
// editor's copy and askuser's.
func acpPermission(t *testing.T, ed *acpEditor, w *socketproto.Conn, n int) (editorEvent, socketproto.Pending) {
	t.Helper()
	p := nextAddedWithin(t, w, ed.run)
	ev := ed.wait(t, "permission", n)
	return ev, p
}

// checkACPQuestion checks askuser's copy of the Bash call: the agent's
// name, the session's directory, the agent's options in order, and the
// command shown whole in what Allow approves.
func checkACPQuestion(t *testing.T, a acpAgent, e *testenv.Env, ev editorEvent, p socketproto.Pending, command string) {
	t.Helper()
	q := p.Questions[0]
	if p.Agent == nil || !sameDir(p.Agent.Cwd, e.Root) {
		t.Errorf("agent %+v; want the session's directory %s", p.Agent, e.Root)
	}
	if len(q.Options) < len(ev.Params.Options) {
		t.Fatalf("askuser offers %d options, the agent %d: %+v", len(q.Options), len(ev.Params.Options), q.Options)
	}
	for i, o := range ev.Params.Options {
		if q.Options[i].Label != o.Name {
			t.Errorf("option %d: askuser says %q, the agent %q", i, q.Options[i].Label, o.Name)
		}
		allows := strings.HasPrefix(o.Kind, "allow_")
		if q.Options[i].ApprovesPreview != allows || (allows && !strings.Contains(q.Options[i].Preview, command)) {
			t.Errorf("option %d (%s): approves %v, preview %q; want the command %q", i, o.Kind, q.Options[i].ApprovesPreview, q.Options[i].Preview, command)
		}
	}
	t.Logf("askuser asks %q (%s) as %s; options %+v", q.Question, q.Header, p.Agent.DisplayName(), q.Options)
}

// answerACPInAskuser chooses the agent's allow_once option in askuser.
func answerACPInAskuser(t *testing.T, e *testenv.Env, p socketproto.Pending, label string) {
	t.Helper()
	testenv.ChooseInAskuser(label, "")(t, e, p)
}

// geminiSetupFor is geminiSetup's HOME for an agent started by the editor.
func geminiSetupFor(e *testenv.Env) string {
	home := filepath.Join(e.Root, "home")
	dir := filepath.Join(home, ".gemini")
	_ = os.MkdirAll(dir, 0o700)
	settings := `{"general":{"disableAutoUpdate":true,"disableUpdateNag":true},"privacy":{"usageStatisticsEnabled":false},` +
		`"telemetry":{"enabled":false},"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false}}}`
	_ = os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o600)
	return home
}

const acpMarkerPrompt = "Write the marker file."

// testACPAnsweredInAskuser: Allow in askuser runs the command; the editor
// is told to stop asking; history says askuser answered.
func testACPAnsweredInAskuser(t *testing.T, a acpAgent) {
	_, e, w := agentTest(t, a.name)
	model := newFakeModel(t, a.shell(markerCommand["command"].(string)))
	ed := startACP(t, a, e, model, acpMarkerPrompt)
	ev, p := acpPermission(t, ed, w, 1)
	checkACPQuestion(t, a, e, ev, p, "echo hello > marker-file && cat marker-file")
	allow := ev.Params.Options[0].Name
	for _, o := range ev.Params.Options {
		if o.Kind == "allow_once" {
			allow = o.Name
		}
	}
	answerACPInAskuser(t, e, p, allow)
	ed.wait(t, "permission_cancelled", 1)
	r := model.Result(0, agentWait)
	if r.IsError || !strings.Contains(r.Text, "hello") {
		t.Errorf("the model received (is_error %v) %q; want the command's output", r.IsError, r.Text)
	}
	if !markerExists(e) {
		t.Errorf("the allowed command did not run")
	}
	if ev := ed.wait(t, "stopped", 1); ev.StopReason != "end_turn" {
		t.Errorf("the turn stopped: %s", ev.raw)
	}
	if n := ed.count("answered"); n != 0 {
		t.Errorf("the editor answered %d times", n)
	}
	ed.quit(t)
	if !strings.Contains(ed.run.out.String(), "answered in askuser") {
		t.Errorf("the proxy's stderr does not say askuser answered:\n%s", ed.run.out)
	}
	wantHistory(t, e, "answered:pane")
}

// testACPAnsweredInEditor: the editor's answer wins; askuser's copy is
// withdrawn saying how, and the command runs as the editor allowed.
func testACPAnsweredInEditor(t *testing.T, a acpAgent) {
	_, e, w := agentTest(t, a.name)
	model := newFakeModel(t, a.shell(markerCommand["command"].(string)))
	ed := startACP(t, a, e, model, acpMarkerPrompt)
	ev, p := acpPermission(t, ed, w, 1)
	opt := optionOf(t, ev, "allow_once")
	ed.send(t, `{"answer":`+string(mustJSON(opt))+`}`)
	answered := ed.wait(t, "answered", 1)
	res, at := nextResolved(t, w, p.RequestID)
	if res.Outcome != socketproto.OutcomeWithdrawn || !strings.Contains(res.Settled, "answered in acp-test-editor") {
		t.Errorf("askuser's copy: %+v; want withdrawn, settled in the editor", res)
	}
	t.Logf("askuser's copy withdrawn %v after the editor answered (%q)", at.Sub(time.UnixMilli(answered.At)), res.Settled)
	r := model.Result(0, agentWait)
	if r.IsError || !strings.Contains(r.Text, "hello") || !markerExists(e) {
		t.Errorf("the model received (is_error %v) %q; want the command's output", r.IsError, r.Text)
	}
	ed.wait(t, "stopped", 1)
	if n := ed.count("permission_cancelled"); n != 0 {
		t.Errorf("the editor was told to stop asking after it answered")
	}
	ed.quit(t)
	// A later answer in askuser is refused, saying where it was settled.
	_, errOut, code := e.Client("", "answer", p.RequestID, "--answers", `["`+p.Questions[0].Options[0].Label+`"]`,
		"--digest", socketproto.PreviewDigest(p.Questions[0].Options[0].Preview))
	if code == 0 || !strings.Contains(errOut, "acp-test-editor") {
		t.Errorf("a later answer in askuser: exit %d, %s", code, errOut)
	}
	wantHistory(t, e, "withdrawn:answered in acp-test-editor")
}

// testACPCancelled: the editor cancels the turn while both ask: askuser's
// copy is withdrawn, the agent hears "cancelled", nothing runs.
func testACPCancelled(t *testing.T, a acpAgent) {
	_, e, w := agentTest(t, a.name)
	model := newFakeModel(t, a.shell(markerCommand["command"].(string)))
	ed := startACP(t, a, e, model, acpMarkerPrompt)
	_, p := acpPermission(t, ed, w, 1)
	ed.send(t, `{"cancel":true}`)
	res, _ := nextResolved(t, w, p.RequestID)
	if res.Outcome != socketproto.OutcomeWithdrawn || !strings.Contains(res.Settled, "cancelled") {
		t.Errorf("askuser's copy: %+v; want withdrawn, the turn cancelled", res)
	}
	if ev := ed.wait(t, "stopped", 1); ev.StopReason != "cancelled" {
		t.Errorf("the turn stopped: %s", ev.raw)
	}
	if markerExists(e) {
		t.Errorf("the command ran after the turn was cancelled")
	}
	ed.quit(t)
	wantHistory(t, e, "withdrawn:the editor cancelled the turn")
}

// testACPRule: "Allow, and remember" chosen in askuser for the first call;
// the identical second call is answered by the rule, and no prompt for it
// reaches the editor (nor askuser's surfaces).
func testACPRule(t *testing.T, a acpAgent) {
	_, e, w := agentTest(t, a.name)
	writeBump(t, e)
	model := newFakeModel(t, a.shell("./bump.sh"), a.shell("./bump.sh"))
	ed := startACP(t, a, e, model, "Bump twice.")
	_, p := acpPermission(t, ed, w, 1)
	want := socketproto.RememberPrefix + "Bash: ./bump.sh (and with more arguments) in "
	testenv.ChooseInAskuser(want, ", for ACP agents")(t, e, p)
	ed.wait(t, "permission_cancelled", 1)
	if r := model.Result(0, agentWait); r.IsError || !strings.Contains(r.Text, "bumped") {
		t.Errorf("step 0: the model received (is_error %v) %q", r.IsError, r.Text)
	}
	ruleAnswers(t, model, w, e, 1, "bumped")
	ed.wait(t, "stopped", 1)
	if n := ed.count("permission"); n != 1 {
		t.Errorf("the editor was asked %d times; want once, the rule answering the second:\n%s", n, ed.log())
	}
	ed.quit(t)
	if got := runs(e); len(got) != 2 {
		t.Errorf("bump.sh ran %d times, want 2", len(got))
	}
	wantHistory(t, e, "answered:pane", "answered:rule")
}

// acpHistory is how each request in history ended: "answered:pane",
// "withdrawn:<settled>", "answered:rule".
func acpHistory(t *testing.T, e *testenv.Env) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.State, "askuser", "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var h struct {
			Outcome string `json:"outcome"`
			Via     string `json:"via"`
			Settled string `json:"settled"`
		}
		if json.Unmarshal([]byte(line), &h) == nil {
			how := h.Via
			if h.Settled != "" {
				how = h.Settled
			}
			out = append(out, h.Outcome+":"+how)
		}
	}
	return out
}

func wantHistory(t *testing.T, e *testenv.Env, want ...string) {
	t.Helper()
	got := acpHistory(t, e)
	if len(got) != len(want) {
		t.Errorf("history %q, want %q", got, want)
		return
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("history %q, want %q", got, want)
			return
		}
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

func TestAgentACPClaudeCodeAnsweredInAskuser(t *testing.T) {
	testACPAnsweredInAskuser(t, claudeCodeACP)
}
func TestAgentACPClaudeCodeAnsweredInEditor(t *testing.T) {
	testACPAnsweredInEditor(t, claudeCodeACP)
}
func TestAgentACPClaudeCodeCancelled(t *testing.T) { testACPCancelled(t, claudeCodeACP) }
func TestAgentACPClaudeCodeRule(t *testing.T)      { testACPRule(t, claudeCodeACP) }

var geminiACP = acpAgent{
	name: "gemini",
	env: func(e *testenv.Env, model *fakeModel) []string {
		return geminiEnv(e, geminiSetupFor(e), model)
	},
	args: []string{"--experimental-acp", "--model", "gemini-2.5-flash"},
	tool: "run_shell_command",
}

func TestAgentACPGeminiAnsweredInAskuser(t *testing.T) { testACPAnsweredInAskuser(t, geminiACP) }
func TestAgentACPGeminiAnsweredInEditor(t *testing.T)  { testACPAnsweredInEditor(t, geminiACP) }
func TestAgentACPGeminiCancelled(t *testing.T)         { testACPCancelled(t, geminiACP) }

// Gemini CLI 0.61's permission requests carry no rawInput: the command is
// the title and its directory and description are in words
// ("[current working directory …] (…)"), so askuser shows them whole and
// does not mark them for rules; no rule test.

// codexACPSetup is codexSetup's Codex home with approvals on request (as
// Codex's "auto" mode asks before what the sandbox does not allow).
func codexACPSetup(e *testenv.Env, model *fakeModel) []string {
	home := filepath.Join(e.Root, "home")
	codexHome := filepath.Join(home, ".codex")
	_ = os.MkdirAll(codexHome, 0o700)
	cfg := fmt.Sprintf(`model = "fake-model"
model_provider = "fake"
approval_policy = "on-request"

[features]
plugins = false

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
env_key = "FAKE_API_KEY"
`, model.URL()+"/v1")
	_ = os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o600)
	return e.Environ("HOME="+home, "CODEX_HOME="+codexHome, "FAKE_API_KEY=dummy", "RUST_LOG=warn", "TMPDIR="+agentTmp(e))
}

var codexACP = acpAgent{
	name: "codex-acp",
	env:  codexACPSetup,
	tool: "exec_command",
	// Outside the sandbox, so that Codex asks.
	input: func(command string) map[string]any {
		return map[string]any{"cmd": command, "sandbox_permissions": "require_escalated", "justification": "Run a command"}
	},
}

func TestAgentACPCodexAnsweredInAskuser(t *testing.T) { testACPAnsweredInAskuser(t, codexACP) }
func TestAgentACPCodexAnsweredInEditor(t *testing.T)  { testACPAnsweredInEditor(t, codexACP) }
func TestAgentACPCodexCancelled(t *testing.T)         { testACPCancelled(t, codexACP) }

// Codex's ACP adapter 0.16.0 gives the command as an argument list with its
// directory, the sandbox's amendment and more in rawInput: shown whole, not
// marked for rules; no rule test.
