package agents

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/tests/testenv"
)

// --- Gemini CLI -------------------------------------------------------------

// geminiEnv is Gemini CLI's environment: a private HOME, the fake model as
// its Gemini API ($GOOGLE_GEMINI_BASE_URL, which selects the "gateway"
// auth), no relaunch, no telemetry.
func geminiEnv(e *testenv.Env, home string, model *fakeModel) []string {
	return e.Environ(
		"HOME="+home,
		"GOOGLE_GEMINI_BASE_URL="+model.URL(),
		"GEMINI_API_KEY=dummy",
		"GEMINI_CLI_NO_RELAUNCH=true",
		"GEMINI_TELEMETRY_ENABLED=false",
		"NO_BROWSER=true",
		"CI=", // Gemini CLI reads CI as "not a terminal"; -p runs headless anyway
		"TMPDIR="+agentTmp(e),
	)
}

// geminiSetup makes Gemini CLI's HOME: settings that keep it offline (no
// update checks, no usage statistics) before integrate adds askuser.
func geminiSetup(t *testing.T, e *testenv.Env) string {
	t.Helper()
	home := filepath.Join(e.Root, "home")
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	settings := `{"general":{"disableAutoUpdate":true,"disableUpdateNag":true},"privacy":{"usageStatisticsEnabled":false},` +
		`"telemetry":{"enabled":false},"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false}}}`
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// geminiArgs runs a headless prompt in Gemini CLI's default approval mode,
// as a user's `gemini -p` does: there, an MCP tool no policy allows is
// denied, so askuser's tools are offered only by the policy that
// `integrate gemini --write` writes.
func geminiArgs(prompt string) []string {
	return []string{"-p", prompt, "--model", "gemini-2.5-flash", "--output-format", "text"}
}

// TestAgentGeminiMCP: Gemini CLI, set up by `askuser-client integrate gemini
// --write`, calls askuser's MCP tool; the model reads each answer. Gemini CLI
// names an MCP tool mcp_SERVER_TOOL. In -p it hides its own ask_user and,
// with it, every MCP tool whose bare name is ask_user (a tool is excluded by
// its qualified or its bare name): askuser's ask_user is not offered there,
// ask_user_question is.
func TestAgentGeminiMCP(t *testing.T) {
	gemini, e, w := agentTest(t, "gemini")
	steps := []agentStep{
		{fakeStep: fakeStep{"mcp_askuser_ask_user_question", agentQuestions(agentDBQuestion)},
			question: "Which database should we use?",
			do:       answerCLI(`[{"selected":["SQLite"],"notes":"keep it small"}]`),
			want:     []string{`"answers":{"Which database should we use?":"SQLite"}`, `"notes":"keep it small"`}},
		{fakeStep: fakeStep{"mcp_askuser_ask_user_question", agentQuestions(agentChecksQuestion, agentDBQuestion)},
			question: "Which checks should CI run?",
			do:       answerCLI(`[["Lint","Race detector"],"PostgreSQL (Recommended)"]`),
			want:     []string{`"Which checks should CI run?":"Lint, Race detector"`, `"Which database should we use?":"PostgreSQL (Recommended)"`}},
		{fakeStep: fakeStep{"mcp_askuser_ask_user_question", agentQuestions(agentDBQuestion)},
			question: "Which database should we use?",
			do:       declineCLI,
			want:     []string{socketproto.DeclinedSentence}},
	}
	model := modelPlaying(t, steps)
	home := geminiSetup(t, e)
	env := geminiEnv(e, home, model)
	integrateAgent(t, env, "gemini")
	agent := startAgent(t, e.Root, env, gemini, geminiArgs("Set up the new service; ask me what you need to know.")...)
	lat := playScript(t, e, w, model, agent, geminiClientName, steps)
	agent.wait(t)
	logLatency(t, lat)
}

// geminiClientName is how Gemini CLI's MCP client names itself, and so the
// agent the pane shows.
const geminiClientName = "gemini-cli-mcp-client"

// answerSocket answers through the daemon's socket as the pane does; a
// refusal fails the test.
func answerSocket(answers ...string) func(*testing.T, *testenv.Env, socketproto.Pending) {
	return func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
		t.Helper()
		if m := testenv.AnswerRaw(t, e, p.RequestID, answers...); m.MessageType() != "ok" {
			t.Fatalf("answer %v: %#v", answers, m)
		}
	}
}

// TestAgentGeminiMCPProxy: Gemini CLI has no MCP elicitation of its own; a
// server that elicits, wrapped by `askuser-client integrate gemini --wrap`,
// gets its forms answered in askuser: accepted with every field kind (after
// a value the form's rules refuse), declined, and a URL step finished.
func TestAgentGeminiMCPProxy(t *testing.T) {
	gemini, e, w := agentTest(t, "gemini")
	const form = "Build settings\n\nColour\nthe build's colour"
	steps := []agentStep{
		{fakeStep: fakeStep{"mcp_elicit_configure", map[string]any{}},
			question: form,
			do: func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
				t.Helper()
				bad := testenv.AnswerRaw(t, e, p.RequestID, `"blue"`, `"7"`, `0.25`, `"No"`, `"widget"`, `["b"]`, `"ops@example.com"`)
				if perr, ok := bad.(*socketproto.Error); !ok || perr.Code != socketproto.CodeInvalidAnswer || !strings.Contains(perr.Message, "7 is more than 5") {
					t.Errorf("a count over the form's maximum: %#v", bad)
				}
				answerSocket(`"blue"`, `"4"`, `0.25`, `"No"`, `"widget"`, `["b"]`, `"ops@example.com"`)(t, e, p)
			},
			want: []string{`"action":"accept"`, `"color":"blue"`, `"count":4`, `"ratio":0.25`, `"ok":false`, `"name":"widget"`,
				`"tags":["b"]`, `"email":"ops@example.com"`}},
		{fakeStep: fakeStep{"mcp_elicit_configure", map[string]any{}},
			question: form,
			do:       declineCLI,
			want:     []string{`{"action":"decline"}`}},
		{fakeStep: fakeStep{"mcp_elicit_signin", map[string]any{}},
			question: "Sign in to the tracker\n\nOpen this address yourself (askuser does not open it):\nhttps://example.com/auth?state=xyz\n\nDid you finish there?",
			do:       answerCLI(`["I finished there"]`),
			want:     []string{`{"action":"accept"}`}},
	}
	model := modelPlaying(t, steps)
	home := geminiSetup(t, e)
	env := geminiEnv(e, home, model)
	// The user's own server, then askuser's setup with the server wrapped.
	addGeminiServer(t, home, "elicit", testenv.ElicitServer(t))
	cmd := exec.Command(testenv.Bin("askuser-client"), "integrate", "gemini", "--wrap", "elicit", "--write")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("askuser-client integrate gemini --wrap elicit --write: %v\n%s", err, out)
	}
	// The wrapped server is the user's own to trust (askuser allows only
	// its own tools): this run trusts every tool, as a user may.
	agent := startAgent(t, e.Root, env, gemini, append(geminiArgs("Configure the build; ask me what you need to know."), "--approval-mode", "yolo")...)
	lat := playScript(t, e, w, model, agent, geminiClientName, steps)
	agent.wait(t)
	logLatency(t, lat)
}

// addGeminiServer adds an stdio MCP server to Gemini CLI's settings.
func addGeminiServer(t *testing.T, home, name, command string) {
	t.Helper()
	path := filepath.Join(home, ".gemini", "settings.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	s["mcpServers"] = map[string]any{name: map[string]any{"command": command, "args": []any{}}}
	if b, err = json.Marshal(s); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
