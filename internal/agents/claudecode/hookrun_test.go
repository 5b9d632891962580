package claudecode_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"askuser/internal/agents/claudecode"
	"askuser/internal/agents/hookio/hooktest"
	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testdaemon/inproc"
)

// Claude Code's own AskUserQuestion answered from askuser by the PreToolUse
// hook, fed the inputs Claude Code sends (testdata: as recorded from
// Claude Code 2.1.330, with the questions, ids and paths of an example),
// against a real daemon. The permission_prompt MCP tool, the other way in,
// is tested in package mcpserver.

func claudeTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runHookAsync runs claude-hook in-process, reaching the daemon at sock,
// with input on stdin.
func runHookAsync(sock string, input []byte) <-chan hooktest.Result {
	return hooktest.Start(claudecode.RunHook, sock, input)
}

func awaitHook(t *testing.T, ch <-chan hooktest.Result) hooktest.Result {
	t.Helper()
	return hooktest.Await(t, ch, testdaemon.Wait)
}

// hookUpdatedInput checks the output's frame and returns its updatedInput.
func hookUpdatedInput(t *testing.T, stdout string) map[string]any {
	t.Helper()
	var out struct {
		HookSpecificOutput struct {
			HookEventName      string         `json:"hookEventName"`
			PermissionDecision string         `json:"permissionDecision"`
			UpdatedInput       map[string]any `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("hook output %q: %v", stdout, err)
	}
	h := out.HookSpecificOutput
	if h.HookEventName != "PreToolUse" || h.PermissionDecision != "allow" {
		t.Fatalf("hook output %s: want hookEventName PreToolUse and permissionDecision allow", stdout)
	}
	return h.UpdatedInput
}

func TestClaudeHookAnswersAskUserQuestion(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	input := claudeTestdata(t, "pretooluse-askuserquestion.json")
	var recorded struct {
		ToolInput map[string]any `json:"tool_input"`
	}
	if err := json.Unmarshal(input, &recorded); err != nil {
		t.Fatal(err)
	}

	t.Run("answered, with a typed answer and a note", func(t *testing.T) {
		ch := runHookAsync(sock, input)
		p := watch("request_added").(socketproto.RequestAdded).Request
		if p.Tool != socketproto.ToolAskUserQuestion || len(p.Questions) != 2 || !p.Questions[1].IsMulti() {
			t.Fatalf("queued: %+v", p)
		}
		if p.Agent == nil || p.Agent.ID != "claude-code-5d1c2b7e-8a41-4f0e-9a53-0c6e2d4f1b9a" || p.Agent.Cwd != "/home/you/app" {
			t.Errorf("agent = %+v", p.Agent)
		}
		testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI, Answers: []json.RawMessage{
			json.RawMessage(`{"selected":["SQLite"],"notes":"keep it small"}`),
			json.RawMessage(`{"selected":["Authentication","Admin Dashboard"],"custom":"Use Redis too"}`),
		}})
		r := awaitHook(t, ch)
		got := hookUpdatedInput(t, r.Stdout)
		want := map[string]any{
			"questions": recorded.ToolInput["questions"],
			"answers": map[string]any{
				"Which database should we use?":     "SQLite",
				"Which features should we include?": "Authentication, Admin Dashboard, Use Redis too",
			},
			"annotations": map[string]any{"Which database should we use?": map[string]any{"notes": "keep it small"}},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("updatedInput:\n got %v\nwant %v", got, want)
		}
	})

	t.Run("numbers Go cannot hold are passed through byte for byte", func(t *testing.T) {
		big := strings.Replace(string(input), `"tool_input":{`, `"tool_input":{"limit":1e400,"id":9223372036854775809,`, 1)
		if big == string(input) {
			t.Fatal("the recorded input has no tool_input to add to")
		}
		ch := runHookAsync(sock, []byte(big))
		p := watch("request_added").(socketproto.RequestAdded).Request
		testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI, Answers: []json.RawMessage{
			json.RawMessage(`"SQLite"`), json.RawMessage(`["Authentication"]`),
		}})
		r := awaitHook(t, ch)
		for _, want := range []string{`"limit":1e400`, `"id":9223372036854775809`, `"Which database should we use?":"SQLite"`} {
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("hook output lacks %s:\n%s\nstderr: %s", want, r.Stdout, r.Stderr)
			}
		}
	})

	t.Run("declined: answers that say so", func(t *testing.T) {
		ch := runHookAsync(sock, input)
		p := watch("request_added").(socketproto.RequestAdded).Request
		testdaemon.SendOK(t, sock, socketproto.Cancel{RequestID: p.RequestID, Via: socketproto.ViaCLI})
		got := hookUpdatedInput(t, awaitHook(t, ch).Stdout)
		want := map[string]any{
			"Which database should we use?":     socketproto.DeclinedSentence,
			"Which features should we include?": socketproto.DeclinedSentence,
		}
		if !reflect.DeepEqual(got["answers"], want) || got["annotations"] != nil {
			t.Errorf("updatedInput = %v, want answers %v", got, want)
		}
	})

	t.Run("another tool: nothing", func(t *testing.T) {
		r := awaitHook(t, runHookAsync(sock, claudeTestdata(t, "pretooluse-bash.json")))
		if r.Stdout != "" {
			t.Errorf("stdout = %q, want nothing", r.Stdout)
		}
	})

	t.Run("not a hook input: nothing", func(t *testing.T) {
		r := awaitHook(t, runHookAsync(sock, []byte("{oops")))
		if r.Stdout != "" || !strings.Contains(r.Stderr, "not a Claude Code hook input") {
			t.Errorf("stdout %q, stderr %q", r.Stdout, r.Stderr)
		}
	})
}

func TestClaudeHookWithoutDaemonLeavesClaudeCodeToAsk(t *testing.T) {
	sock := noDaemonSocket(t)
	r := awaitHook(t, runHookAsync(sock, claudeTestdata(t, "pretooluse-askuserquestion.json")))
	if r.Stdout != "" {
		t.Errorf("stdout = %q, want nothing", r.Stdout)
	}
	if !strings.Contains(r.Stderr, "Claude Code asks in its own dialog") {
		t.Errorf("stderr = %q", r.Stderr)
	}
	if _, err := os.Stat(sock); err == nil {
		t.Errorf("the hook started a daemon at %s", sock)
	}
}

func TestClaudeHookTooStrictQuestionsAreAskedFlexibly(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	input := `{"hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","tool_input":{"questions":[` +
		`{"question":"Which deployment target suits this service?","header":"Deployment target","multiSelect":false,` +
		`"options":[{"label":"Kubernetes"},{"label":"Fly.io"},{"label":"A VM"},{"label":"Lambda"},{"label":"Cloud Run"}]}]}}`
	ch := runHookAsync(sock, []byte(input))
	p := watch("request_added").(socketproto.RequestAdded).Request
	if p.Tool != socketproto.ToolAskUser {
		t.Errorf("tool = %q, want the flexible profile for a 17-character header and 5 options", p.Tool)
	}
	testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI, Answers: []json.RawMessage{json.RawMessage(`5`)}})
	got := hookUpdatedInput(t, awaitHook(t, ch).Stdout)
	if a, _ := got["answers"].(map[string]any); a["Which deployment target suits this service?"] != "Cloud Run" {
		t.Errorf("answers = %v", got["answers"])
	}
}

// noDaemonSocket is a socket path where no daemon listens, in a directory
// only the user may enter, as every client requires (docs/contract.md §2): a wider one
// is refused, which is not what these tests test.
func noDaemonSocket(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "none.sock")
}
