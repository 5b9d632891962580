package codex_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"askuser/internal/agents/codex"
	"askuser/internal/agents/hookio"
	"askuser/internal/agents/hookio/hooktest"
	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testdaemon/inproc"
)

// Codex's approval prompts answered from askuser by its PermissionRequest
// hook, fed the input Codex 0.169.0 sends for a shell command
// (testdata/permissionrequest-bash.json: as recorded, with the paths
// of an example), against a real daemon.

// codexPermissionOut is the hook's output, read as strictly as Codex's
// schema for it (no field beyond these).
type codexPermissionOut struct {
	HookSpecificOutput struct {
		HookEventName string `json:"hookEventName"`
		Decision      struct {
			Behavior string `json:"behavior"`
			Message  string `json:"message"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

func readCodexOut(t *testing.T, stdout string) codexPermissionOut {
	t.Helper()
	var out codexPermissionOut
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("hook output %q: %v", stdout, err)
	}
	if out.HookSpecificOutput.HookEventName != "PermissionRequest" {
		t.Fatalf("hook output %s: want hookEventName PermissionRequest", stdout)
	}
	return out
}

func codexTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func runCodexHookAsync(sock string, input []byte) <-chan hooktest.Result {
	return hooktest.Start(codex.RunHook, sock, input)
}

func TestCodexHookPermissionRequest(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	input := codexTestdata(t, "permissionrequest-bash.json")

	ask := func(t *testing.T, answer string, check func(socketproto.Pending)) hooktest.Result {
		t.Helper()
		ch := runCodexHookAsync(sock, input)
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
		return hooktest.Await(t, ch, testdaemon.Wait)
	}

	t.Run("the question: Codex's session, directory, whole command, Allow and Deny only", func(t *testing.T) {
		r := ask(t, `"Allow"`, func(p socketproto.Pending) {
			if p.Agent == nil || p.Agent.ID != "codex-01a21324-f1d3-7ab0-93c8-6c4db2d62f9b" || p.Agent.Name != "codex" || p.Agent.Cwd != "/home/you/app" {
				t.Errorf("agent = %+v", p.Agent)
			}
			q := p.Questions[0]
			if q.Question != "Allow the agent to use Bash with the input shown?" || len(q.Options) != 2 ||
				q.Options[0].Label != "Allow" || q.Options[1].Label != "Deny" || !q.Options[0].ApprovesPreview {
				t.Fatalf("question %+v", q)
			}
			for _, want := range []string{`"command": "touch marker-file && echo ran"`, `"description": "probe wants to write"`} {
				if !strings.Contains(q.Options[0].Preview, want) {
					t.Errorf("Allow's preview lacks %s:\n%s", want, q.Options[0].Preview)
				}
			}
		})
		if d := readCodexOut(t, r.Stdout).HookSpecificOutput.Decision; d.Behavior != "allow" || d.Message != "" {
			t.Errorf("decision %+v, want allow", d)
		}
	})
	t.Run("Deny with a note: the note is the message", func(t *testing.T) {
		r := ask(t, `{"selected":["Deny"],"notes":"use pnpm instead"}`, nil)
		d := readCodexOut(t, r.Stdout).HookSpecificOutput.Decision
		if d.Behavior != "deny" || d.Message != "The user denied permission to use Bash. Note: use pnpm instead" {
			t.Errorf("decision %+v", d)
		}
	})
	t.Run("typed text instead of a choice denies with it", func(t *testing.T) {
		r := ask(t, `"run it in the container instead"`, nil)
		d := readCodexOut(t, r.Stdout).HookSpecificOutput.Decision
		if d.Behavior != "deny" || !strings.Contains(d.Message, "run it in the container instead") {
			t.Errorf("decision %+v", d)
		}
	})
	t.Run("declined in askuser: denied, and the model is told", func(t *testing.T) {
		r := ask(t, "", nil)
		d := readCodexOut(t, r.Stdout).HookSpecificOutput.Decision
		if d.Behavior != "deny" || !strings.Contains(d.Message, "declined") {
			t.Errorf("decision %+v", d)
		}
	})
}

// With no daemon to reach, the hook steps aside: nothing on stdout, exit 0,
// and Codex shows its own approval prompt.
func TestCodexHookStepsAsideWithoutDaemon(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "none.sock")
	select {
	case r := <-runCodexHookAsync(sock, codexTestdata(t, "permissionrequest-bash.json")):
		if r.Code != hookio.ExitOK || r.Stdout != "" {
			t.Errorf("exit %d, stdout %q; want 0 and nothing", r.Code, r.Stdout)
		}
		if !strings.Contains(r.Stderr, "Codex asks in its own prompt") {
			t.Errorf("stderr %q", r.Stderr)
		}
	case <-time.After(testdaemon.Wait):
		t.Fatalf("codex-hook did not end within %v", testdaemon.Wait)
	}
}

// Inputs that are not an approval prompt get no decision.
func TestCodexHookIgnoresOtherInput(t *testing.T) {
	for _, input := range []string{``, `not json`, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"hook_event_name":"PermissionRequest","tool_input":{"command":"ls"}}`} {
		r := hooktest.Run(codex.RunHook, filepath.Join(t.TempDir(), "none.sock"), []byte(input))
		if r.Code != hookio.ExitOK || r.Stdout != "" {
			t.Errorf("input %q: exit %d, stdout %q", input, r.Code, r.Stdout)
		}
	}
}
