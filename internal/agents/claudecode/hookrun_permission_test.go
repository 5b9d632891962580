package claudecode_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"askuser/internal/agents/hookio/hooktest"
	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testdaemon/inproc"
)

// Claude Code's permission prompts answered from askuser by the
// PermissionRequest hook, fed the inputs Claude Code 2.1.330 sends
// (testdata/permissionrequest-*.json: as recorded, with the paths and
// ids of an example), against a real daemon.

// permissionOut is the hook's output, read strictly.
type permissionOut struct {
	HookSpecificOutput struct {
		HookEventName string `json:"hookEventName"`
		Decision      struct {
			Behavior           string            `json:"behavior"`
			Message            string            `json:"message"`
			UpdatedPermissions []json.RawMessage `json:"updatedPermissions"`
			UpdatedInput       map[string]any    `json:"updatedInput"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

func readPermissionOut(t *testing.T, stdout string) permissionOut {
	t.Helper()
	var out permissionOut
	decodeHookOutput(t, stdout, &out)
	if out.HookSpecificOutput.HookEventName != "PermissionRequest" {
		t.Fatalf("hook output %s: want hookEventName PermissionRequest", stdout)
	}
	return out
}

// decodeHookOutput reads a hook's output line into out, as strictly as the
// agent's schema for it: a field out does not have fails the test.
func decodeHookOutput(t *testing.T, stdout string, out any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		t.Fatalf("hook output %q: %v", stdout, err)
	}
}

func TestClaudeHookPermissionRequest(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	dirs := claudeTestdata(t, "permissionrequest-bash.json")
	rule := claudeTestdata(t, "permissionrequest-bash-rule.json")

	// ask runs the hook on input and answers its question with answer ("":
	// declines) once it is checked.
	ask := func(t *testing.T, input []byte, answer string, check func(socketproto.Pending)) hooktest.Result {
		t.Helper()
		ch := runHookAsync(sock, input)
		p := watch("request_added").(socketproto.RequestAdded).Request
		if check != nil {
			check(p)
		}
		if answer == "" {
			testdaemon.SendOK(t, sock, socketproto.Cancel{RequestID: p.RequestID, Via: socketproto.ViaCLI})
		} else {
			testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI,
				Answers: []json.RawMessage{testdaemon.Seen(p.Questions[0], json.RawMessage(answer))}})
		}
		return awaitHook(t, ch)
	}

	t.Run("the question: agent, directory, tool, whole input, suggestion", func(t *testing.T) {
		ask(t, dirs, `"Allow"`, func(p socketproto.Pending) {
			if p.Agent == nil || p.Agent.ID != "claude-code-5d1c2b7e-8a41-4f0e-9a53-0c6e2d4f1b9a" || p.Agent.Cwd != "/home/you/app" {
				t.Errorf("agent = %+v", p.Agent)
			}
			q := p.Questions[0]
			want := []string{"Allow", "Deny", "Allow, and don't ask again: allow access to /home/you/app for this session"}
			var got []string
			for _, o := range q.Options {
				got = append(got, o.Label)
			}
			if q.Question != "Allow the agent to use Bash with the input shown?" || !reflect.DeepEqual(got, want) {
				t.Errorf("question %q, options %q", q.Question, got)
			}
			if !strings.Contains(q.Options[0].Preview, `"command": "echo hello > marker-file && cat marker-file"`) || !q.Options[0].ApprovesPreview {
				t.Errorf("Allow's preview %q", q.Options[0].Preview)
			}
		})
	})

	t.Run("allowed: exactly the decision", func(t *testing.T) {
		r := ask(t, dirs, `"Allow"`, nil)
		want := `{"hookSpecificOutput":{"decision":{"behavior":"allow"},"hookEventName":"PermissionRequest"}}` + "\n"
		if r.Stdout != want {
			t.Errorf("stdout\n got %s\nwant %s", r.Stdout, want)
		}
	})

	t.Run("don't ask again: the suggestion handed back as given", func(t *testing.T) {
		var in struct {
			Suggestions []json.RawMessage `json:"permission_suggestions"`
		}
		if err := json.Unmarshal(rule, &in); err != nil {
			t.Fatal(err)
		}
		out := readPermissionOut(t, ask(t, rule, `3`, nil).Stdout).HookSpecificOutput.Decision
		if out.Behavior != "allow" || len(out.UpdatedPermissions) != 1 || string(out.UpdatedPermissions[0]) != string(in.Suggestions[0]) {
			t.Errorf("decision %+v; want allow with updatedPermissions [%s]", out, in.Suggestions[0])
		}
	})

	t.Run("denied with a note: the note is the message", func(t *testing.T) {
		out := readPermissionOut(t, ask(t, dirs, `{"selected":["Deny"],"notes":"use pnpm instead"}`, nil).Stdout).HookSpecificOutput.Decision
		if out.Behavior != "deny" || out.Message != "The user denied permission to use Bash. Note: use pnpm instead" || out.UpdatedPermissions != nil {
			t.Errorf("decision %+v", out)
		}
	})

	t.Run("typed text denies with it", func(t *testing.T) {
		out := readPermissionOut(t, ask(t, dirs, `"run it in the container"`, nil).Stdout).HookSpecificOutput.Decision
		if out.Behavior != "deny" || out.Message != "The user did not allow Bash and said: run it in the container" {
			t.Errorf("decision %+v", out)
		}
	})

	t.Run("declined in askuser: denied", func(t *testing.T) {
		out := readPermissionOut(t, ask(t, dirs, "", nil).Stdout).HookSpecificOutput.Decision
		if out.Behavior != "deny" || !strings.Contains(out.Message, "declined") {
			t.Errorf("decision %+v", out)
		}
	})

	t.Run("AskUserQuestion's prompt: its questions, allowed with the answers", func(t *testing.T) {
		input := strings.Replace(string(claudeTestdata(t, "pretooluse-askuserquestion.json")), `"PreToolUse"`, `"PermissionRequest"`, 1)
		ch := runHookAsync(sock, []byte(input))
		p := watch("request_added").(socketproto.RequestAdded).Request
		if len(p.Questions) != 2 || p.Questions[0].Question != "Which database should we use?" {
			t.Fatalf("queued %+v", p.Questions)
		}
		testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI, Answers: []json.RawMessage{
			json.RawMessage(`"SQLite"`), json.RawMessage(`["Authentication"]`)}})
		out := readPermissionOut(t, awaitHook(t, ch).Stdout).HookSpecificOutput.Decision
		answers, _ := out.UpdatedInput["answers"].(map[string]any)
		if out.Behavior != "allow" || answers["Which database should we use?"] != "SQLite" {
			t.Errorf("decision %+v", out)
		}
	})

	t.Run("another hook event: nothing", func(t *testing.T) {
		input := strings.Replace(string(dirs), `"PermissionRequest"`, `"PostToolUse"`, 1)
		if r := awaitHook(t, runHookAsync(sock, []byte(input))); r.Stdout != "" {
			t.Errorf("stdout = %q, want nothing", r.Stdout)
		}
	})
}

func TestClaudeHookPermissionWithoutDaemon(t *testing.T) {
	r := awaitHook(t, runHookAsync(noDaemonSocket(t), claudeTestdata(t, "permissionrequest-bash.json")))
	if r.Stdout != "" || !strings.Contains(r.Stderr, "Claude Code asks in its own dialog") {
		t.Errorf("stdout %q, stderr %q; want nothing on stdout", r.Stdout, r.Stderr)
	}
}
