package agents

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/socketproto/previewform"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// End to end with the real OpenCode (docs/contract.md §11): the plugin of
// internal/agents/opencode, installed by `askuser-client integrate opencode
// --write`, sends OpenCode's own questions (its `question` tool) and its
// permission prompts to askuser; the fake model (OpenAI chat completions,
// through OpenCode's bundled openai-compatible provider) makes the calls.
//
// `opencode run` denies the question tool and answers every permission
// prompt itself (it rejects them unless told to skip them), so the tests
// drive `opencode serve` over HTTP, as OpenCode's own UIs (TUI, web,
// desktop) do.

// opencodeSetup writes OpenCode's config (a provider at the fake model;
// bash asks permission) into a fresh HOME and XDG directories, installs the
// plugin and the MCP server with `askuser-client integrate opencode --write`,
// and returns OpenCode's environment.
func opencodeSetup(t *testing.T, e *testenv.Env, model *fakeModel) []string {
	t.Helper()
	home := filepath.Join(e.Root, "home")
	dirs := map[string]string{"XDG_DATA_HOME": filepath.Join(e.Root, "data"), "XDG_CACHE_HOME": filepath.Join(e.Root, "cache")}
	for _, d := range append([]string{home, filepath.Join(e.Config, "opencode")}, dirs["XDG_DATA_HOME"], dirs["XDG_CACHE_HOME"]) {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg := map[string]any{
		"$schema":     "https://opencode.ai/config.json",
		"model":       "fake/fake-model",
		"small_model": "fake/fake-model",
		"autoupdate":  false,
		"share":       "disabled",
		"permission":  map[string]any{"bash": "ask", "edit": "ask"},
		"provider": map[string]any{"fake": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Fake",
			"options": map[string]any{"baseURL": model.URL() + "/v1", "apiKey": "dummy"},
			"models":  map[string]any{"fake-model": map[string]any{"name": "Fake model", "tool_call": true}},
		}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(e.Config, "opencode", "opencode.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	// OpenCode installs its plugin package from npm into each config
	// directory before it loads plugins, unless node_modules is there and
	// the lock file names the package: a test needs no network, and starts
	// seconds sooner.
	seed := map[string]string{
		"package-lock.json": `{"packages":{"":{"dependencies":{"@opencode-ai/plugin":"*"}}}}`,
		"package.json":      `{"dependencies":{"@opencode-ai/plugin":"*"}}`,
	}
	if err := os.MkdirAll(filepath.Join(e.Config, "opencode", "node_modules"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range seed {
		if err := os.WriteFile(filepath.Join(e.Config, "opencode", name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := e.Environ(
		"HOME="+home,
		"XDG_DATA_HOME="+dirs["XDG_DATA_HOME"],
		"XDG_CACHE_HOME="+dirs["XDG_CACHE_HOME"],
		"TMPDIR="+agentTmp(e),
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_CLAUDE_CODE=1",
	)
	integrateAgent(t, env, "opencode")
	return env
}

// opencodeQuestion is the input of OpenCode's question tool.
func opencodeQuestion(qs ...map[string]any) map[string]any {
	list := make([]any, len(qs))
	for i, q := range qs {
		list[i] = q
	}
	return map[string]any{"questions": list}
}

var (
	opencodeDBQuestion = map[string]any{
		"question": "Which database should we use?", "header": "Database",
		"options": []any{
			map[string]any{"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
			map[string]any{"label": "SQLite", "description": "Lightweight, file-based"},
		}}
	opencodeFeaturesQuestion = map[string]any{
		"question": "Which features should we include?", "header": "Features", "multiple": true,
		"options": []any{
			map[string]any{"label": "Authentication", "description": "OAuth2 + JWT"},
			map[string]any{"label": "REST API", "description": "OpenAPI spec included"},
			map[string]any{"label": "Admin Dashboard", "description": "Internal tools"},
		}}
)

const opencodePrompt = "Set up the new service; ask me what you need to know."

// TestAgentOpenCodeQuestions: OpenCode with the plugin; OpenCode's
// question tool asks, askuser answers (a choice with a note, a multi-select
// with typed text), and the model reads the answers. A decline in askuser
// rejects the question in OpenCode, which ends the turn with the tool's
// error (the model is not called again).
func TestAgentOpenCodeQuestions(t *testing.T) {
	opencode, e, w := agentTest(t, "opencode")
	steps := []agentStep{
		{fakeStep: fakeStep{"question", opencodeQuestion(opencodeDBQuestion, opencodeFeaturesQuestion)},
			question: "Which database should we use?",
			do:       answerCLI(`[{"selected":["SQLite"],"notes":"keep it small"}, {"selected":["Authentication","REST API"],"custom":"Use Redis too"}]`),
			want: []string{`"Which database should we use?"="SQLite, Note: keep it small"`,
				`"Which features should we include?"="Authentication, REST API, Use Redis too"`}},
		{fakeStep: fakeStep{"question", opencodeQuestion(opencodeDBQuestion)},
			question: "Which database should we use?"},
	}
	model := modelPlaying(t, steps)
	env := opencodeSetup(t, e, model)
	srv := startOpencodeServe(t, e, env, opencode)
	session := srv.prompt(opencodePrompt)
	lat := playScript(t, e, w, model, srv.agent, "opencode", steps[:1])
	logLatency(t, lat)

	p := nextAddedWithin(t, w, srv.agent)
	declineCLI(t, e, p)
	got := srv.waitToolPart(session, 1, "error")
	t.Logf("declined: OpenCode's question tool ended with: %s", got)
	if !strings.Contains(got, "dismissed") {
		t.Errorf("the declined question ended with %q, want OpenCode's dismissal", got)
	}
}

// --- opencode serve ---------------------------------------------------------

// opencodeServer is `opencode serve` on a free port, spoken to as OpenCode's
// own UIs do.
type opencodeServer struct {
	t     *testing.T
	agent *agentRun
	url   string
	dir   string // the project directory, sent with every request
}

var opencodeListening = regexp.MustCompile(`listening on (http://[0-9.]+:[0-9]+)`)

func startOpencodeServe(t *testing.T, e *testenv.Env, env []string, opencode string) *opencodeServer {
	t.Helper()
	agent := startAgent(t, e.Root, env, opencode, "serve", "--port", "0", "--hostname", "127.0.0.1", "--log-level", "INFO")
	// OpenCode logs (the plugin's warnings too) to files of its own.
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		logs, _ := filepath.Glob(filepath.Join(e.Root, "data", "opencode", "log", "*.log"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			t.Logf("OpenCode's log %s:\n%s", filepath.Base(l), b)
		}
	})
	var url string
	testdaemon.EventuallyWithin(t, agentWait, "opencode serve to say where it listens", func() (bool, string) {
		if m := opencodeListening.FindStringSubmatch(agent.out.String()); m != nil {
			url = m[1]
			return true, ""
		}
		select {
		case <-agent.done:
			t.Fatalf("opencode serve exited: %v; output:\n%s", agent.err, agent.out)
		default:
		}
		return false, agent.out.String()
	})
	return &opencodeServer{t: t, agent: agent, url: url, dir: e.Root}
}

// call sends a request to the server and decodes a JSON reply into out (if not nil).
func (s *opencodeServer) call(method, path string, body any, out any) {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-opencode-directory", url.PathEscape(s.dir))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		s.t.Fatalf("%s %s: %s\n%s", method, path, resp.Status, b)
	}
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			s.t.Fatalf("%s %s: %v\n%s", method, path, err, b)
		}
	}
}

// prompt starts a session's turn with text and returns the session's id.
func (s *opencodeServer) prompt(text string) string {
	s.t.Helper()
	var session struct {
		ID string `json:"id"`
	}
	s.call("POST", "/session", map[string]any{}, &session)
	s.call("POST", fmt.Sprintf("/session/%s/prompt_async", session.ID), map[string]any{
		"model": map[string]any{"providerID": "fake", "modelID": "fake-model"},
		"parts": []any{map[string]any{"type": "text", "text": text}},
	}, nil)
	return session.ID
}

// waitToolPart waits until the session's n-th tool call (from 0) has the
// status and returns its output (or error).
func (s *opencodeServer) waitToolPart(session string, n int, status string) string {
	s.t.Helper()
	var output string
	testdaemon.EventuallyWithin(s.t, agentWait, fmt.Sprintf("tool call %d of session %s to be %q", n, session, status), func() (bool, string) {
		var msgs []struct {
			Parts []struct {
				Type  string `json:"type"`
				Tool  string `json:"tool"`
				State struct {
					Status string `json:"status"`
					Output string `json:"output"`
					Error  string `json:"error"`
				} `json:"state"`
			} `json:"parts"`
		}
		s.call("GET", "/session/"+session+"/message", nil, &msgs)
		i := 0
		for _, m := range msgs {
			for _, p := range m.Parts {
				if p.Type != "tool" {
					continue
				}
				if i == n {
					if p.State.Status == status {
						output = p.State.Output + p.State.Error
						return true, ""
					}
					return false, fmt.Sprintf("status %q", p.State.Status)
				}
				i++
			}
		}
		return false, fmt.Sprintf("%d tool calls", i)
	})
	return output
}

// TestAgentOpenCodeAnsweredInOpenCodeFirst: a question, then a permission
// prompt, answered in OpenCode itself (its HTTP API, as its TUI and web UI
// answer) are withdrawn from askuser, and the model reads OpenCode's answer.
func TestAgentOpenCodeAnsweredInOpenCodeFirst(t *testing.T) {
	opencode, e, w := agentTest(t, "opencode")
	model := newFakeModel(t,
		fakeStep{"question", opencodeQuestion(opencodeDBQuestion)},
		fakeStep{"bash", map[string]any{"command": "echo allowed-in-opencode", "description": "Say so"}})
	env := opencodeSetup(t, e, model)
	t0 := time.Now()
	srv := startOpencodeServe(t, e, env, opencode)
	t.Logf("opencode serve listening after %v", time.Since(t0).Round(time.Millisecond))
	srv.prompt(opencodePrompt)

	p := nextAddedWithin(t, w, srv.agent)
	t.Logf("asked in askuser %v after the start", time.Since(t0).Round(time.Millisecond))
	if p.Agent.DisplayName() != "opencode" {
		t.Errorf("the pane names the agent %q, want opencode", p.Agent.DisplayName())
	}
	id := srv.onlyPending("/question", p.RequestID)
	start := time.Now()
	srv.call("POST", "/question/"+id+"/reply", map[string]any{"answers": [][]string{{"PostgreSQL (Recommended)"}}}, nil)
	expectWithdrawn(w, p.RequestID)(t)
	t.Logf("question answered in OpenCode: askuser's copy withdrawn %v after the reply was sent", time.Since(start).Round(time.Millisecond))
	r := model.Result(0, agentWait)
	if want := `"Which database should we use?"="PostgreSQL (Recommended)"`; !strings.Contains(r.Text, want) {
		t.Errorf("the model received %q, want %q", r.Text, want)
	}

	p = nextAddedWithin(t, w, srv.agent)
	id = srv.onlyPending("/permission", p.RequestID)
	start = time.Now()
	srv.call("POST", "/permission/"+id+"/reply", map[string]any{"reply": "once"}, nil)
	expectWithdrawn(w, p.RequestID)(t)
	t.Logf("permission answered in OpenCode: askuser's copy withdrawn %v after the reply was sent", time.Since(start).Round(time.Millisecond))
	if r := model.Result(1, agentWait); !strings.Contains(r.Text, "allowed-in-opencode") {
		t.Errorf("the model received %q, want the command's output", r.Text)
	}
}

// onlyPending is the id of the one prompt OpenCode lists at path (/question
// or /permission), checked against the request askuser has.
func (s *opencodeServer) onlyPending(path, requestID string) string {
	s.t.Helper()
	var pending []struct {
		ID string `json:"id"`
	}
	s.call("GET", path, nil, &pending)
	if len(pending) != 1 || "opencode-"+pending[0].ID != requestID {
		s.t.Fatalf("OpenCode's %s lists %+v; askuser has %s", path, pending, requestID)
	}
	return pending[0].ID
}

// TestAgentOpenCodePermissions: OpenCode's permission prompts for bash wait
// in askuser as Allow once / Allow always / Reject, with the permission
// whole as what Allow approves; allowed, the command ran; rejected with a
// note, it did not, and the model read the note; allowed always, the same
// kind of command ran again without asking.
func TestAgentOpenCodePermissions(t *testing.T) {
	opencode, e, w := agentTest(t, "opencode")
	allowQ := "Allow OpenCode to use bash: touch allowed.txt && echo opencode-was-allowed?"
	rejectQ := "Allow OpenCode to use bash: touch rejected.txt && echo never-printed?"
	steps := []agentStep{
		{fakeStep: fakeStep{"bash", map[string]any{"command": "touch allowed.txt && echo opencode-was-allowed", "description": "Make a file"}},
			question: allowQ,
			do: func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
				checkOpencodePermission(t, p, "touch allowed.txt && echo opencode-was-allowed")
				answerCLI(`["Allow once"]`)(t, e, p)
			},
			want: []string{"opencode-was-allowed"}},
		{fakeStep: fakeStep{"bash", map[string]any{"command": "touch rejected.txt && echo never-printed", "description": "Make another file"}},
			question: rejectQ,
			do:       answerCLI(`[{"selected":["Reject"],"notes":"use make instead"}]`),
			want:     []string{"use make instead"},
			wantNot:  []string{"never-printed\n"}},
		{fakeStep: fakeStep{"bash", map[string]any{"command": "echo always-one", "description": "Say one"}},
			question: "Allow OpenCode to use bash: echo always-one?",
			do:       answerCLI(`["Allow always"]`),
			want:     []string{"always-one"}},
		// Not asked: "Allow always" let every echo run from then on. Its
		// output reaching the model is the proof, since OpenCode runs a
		// command only once its permission is answered.
		{fakeStep: fakeStep{"bash", map[string]any{"command": "echo always-two", "description": "Say two"}}},
	}
	model := modelPlaying(t, steps)
	env := opencodeSetup(t, e, model)
	srv := startOpencodeServe(t, e, env, opencode)
	srv.prompt(opencodePrompt)
	lat := playScript(t, e, w, model, srv.agent, "opencode", steps[:3])
	logLatency(t, lat)
	if r := model.Result(3, agentWait); !strings.Contains(r.Text, "always-two") {
		t.Errorf("after Allow always, the second echo gave the model %q", r.Text)
	}
	if _, err := os.Stat(filepath.Join(e.Root, "allowed.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.Root, "rejected.txt")); err == nil {
		t.Errorf("the rejected command ran")
	}
}

// checkOpencodePermission checks what the pane shows of a permission prompt:
// three choices, and Allow approving the permission with its pattern.
func checkOpencodePermission(t *testing.T, p socketproto.Pending, pattern string) {
	t.Helper()
	q := p.Questions[0]
	var labels []string
	for _, o := range q.Options {
		labels = append(labels, o.Label)
	}
	if strings.Join(labels, "|") != "Allow once|Allow always|Reject" {
		t.Errorf("the permission prompt offers %q", labels)
	}
	allow := q.Options[0]
	if !allow.ApprovesPreview || !strings.Contains(allow.Preview, `"permission": "bash"`) || !strings.Contains(allow.Preview, pattern) {
		t.Errorf("Allow once approves %v the preview:\n%s", allow.ApprovesPreview, allow.Preview)
	}
}

// TestAgentOpenCodeWriteDrawnAsADiff: OpenCode's write tool asks its "edit"
// permission with the change as a unified diff (metadata.diff); the
// plugin names the form ("previewForm": "patch"), so the file's lines are
// drawn as lines put in, numbered, and Allow once with the preview's
// digest writes the file.
func TestAgentOpenCodeWriteDrawnAsADiff(t *testing.T) {
	opencode, e, w := agentTest(t, "opencode")
	steps := []agentStep{
		{fakeStep: fakeStep{"write", map[string]any{"filePath": filepath.Join(e.Root, "notes.txt"), "content": "first line\nsecond line\n"}},
			// The pattern is the path from OpenCode's worktree: "/" here, no git.
			question: "Allow OpenCode to use edit: " + strings.TrimPrefix(filepath.Join(e.Root, "notes.txt"), "/") + "?",
			do: func(t *testing.T, e *testenv.Env, p socketproto.Pending) {
				for _, o := range p.Questions[0].Options[:2] {
					if o.PreviewForm != previewform.Patch {
						t.Errorf("%q names the form %q, want %q", o.Label, o.PreviewForm, previewform.Patch)
					}
					drawn := previewform.Plain(previewform.Render(o.PreviewForm, o.Preview))
					if !strings.Contains(drawn, "1 + first line") || !strings.Contains(drawn, "2 + second line") {
						t.Errorf("%q is drawn as\n%s\nfrom the preview\n%s", o.Label, drawn, o.Preview)
					}
				}
				answerCLI(`["Allow once"]`)(t, e, p)
			}},
	}
	model := modelPlaying(t, steps)
	env := opencodeSetup(t, e, model)
	srv := startOpencodeServe(t, e, env, opencode)
	srv.prompt(opencodePrompt)
	playScript(t, e, w, model, srv.agent, "opencode", steps)
	if b, err := os.ReadFile(filepath.Join(e.Root, "notes.txt")); err != nil || string(b) != "first line\nsecond line\n" {
		t.Errorf("the allowed write left %q (%v)", b, err)
	}
}
