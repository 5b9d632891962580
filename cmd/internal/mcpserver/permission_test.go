package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/socketproto/previewform"
	"askuser/tests/testdaemon"
	"askuser/tests/testdaemon/inproc"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The permission_prompt tool fed the inputs Claude Code sends
// (testdata/claude: as recorded from Claude Code 2.1.330, with the questions,
// ids and paths of an example), against a real daemon.

func claudeTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "claude", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// permissionCall calls permission_prompt with a recorded input.
func permissionCall(t *testing.T, cs *mcp.ClientSession, input []byte) <-chan callResult {
	t.Helper()
	var args map[string]any
	if err := json.Unmarshal(input, &args); err != nil {
		t.Fatal(err)
	}
	return callAsync(context.Background(), cs, &mcp.CallToolParams{Name: "permission_prompt", Arguments: args})
}

func permissionResult(t *testing.T, ch <-chan callResult) map[string]any {
	t.Helper()
	res := await(t, ch)
	if res.IsError {
		t.Fatalf("tool error: %s", textOf(t, res, 0))
	}
	if res.StructuredContent != nil {
		t.Errorf("structured content %v: Claude Code reads the decision from the text", res.StructuredContent)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(textOf(t, res, 0)), &got); err != nil {
		t.Fatalf("result text is not JSON: %v", err)
	}
	return got
}

func TestPermissionPromptAskUserQuestion(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	cs := newSession(t, testConfig(sock), nil)
	input := claudeTestdata(t, "permission-askuserquestion.json")
	var recorded struct {
		Input map[string]any `json:"input"`
	}
	if err := json.Unmarshal(input, &recorded); err != nil {
		t.Fatal(err)
	}

	ch := permissionCall(t, cs, input)
	p := watch("request_added").(socketproto.RequestAdded).Request
	if p.Tool != socketproto.ToolAskUserQuestion || len(p.Questions) != 1 || p.Questions[0].Question != "Which database should we use?" {
		t.Fatalf("queued: %+v", p)
	}
	testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI, Answers: []json.RawMessage{json.RawMessage(`"I'd rather use DynamoDB"`)}})
	got := permissionResult(t, ch)
	want := map[string]any{"behavior": "allow", "updatedInput": map[string]any{
		"questions": recorded.Input["questions"],
		"answers":   map[string]any{"Which database should we use?": "I'd rather use DynamoDB"},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decision:\n got %v\nwant %v", got, want)
	}

	// A decline is answers that say so, as in the hook.
	ch = permissionCall(t, cs, input)
	p = watch("request_added").(socketproto.RequestAdded).Request
	testdaemon.SendOK(t, sock, socketproto.Cancel{RequestID: p.RequestID, Via: socketproto.ViaCLI})
	got = permissionResult(t, ch)
	upd, _ := got["updatedInput"].(map[string]any)
	if got["behavior"] != "allow" || !reflect.DeepEqual(upd["answers"], map[string]any{"Which database should we use?": socketproto.DeclinedSentence}) {
		t.Errorf("declined: %v", got)
	}
}

func TestPermissionPromptOtherToolsAreAYesNoQuestion(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	cs := newSession(t, testConfig(sock), nil)
	input := claudeTestdata(t, "permission-bash.json")
	bashInput := map[string]any{"command": "rm -rf build", "description": "Remove the build directory"}

	cases := []struct {
		name   string
		answer string // "" declines
		want   map[string]any
	}{
		{"allowed", `"Allow"`, map[string]any{"behavior": "allow", "updatedInput": bashInput}},
		{"denied", `2`, map[string]any{"behavior": "deny", "message": "The user denied permission to use Bash."}},
		{"denied with a note", `{"selected":["Deny"],"notes":"clean only build/tmp"}`,
			map[string]any{"behavior": "deny", "message": "The user denied permission to use Bash. Note: clean only build/tmp"}},
		{"typed answer", `"use make clean instead"`,
			map[string]any{"behavior": "deny", "message": "The user did not allow Bash and said: use make clean instead"}},
		{"declined", "",
			map[string]any{"behavior": "deny", "message": "The user declined to answer the permission prompt; Bash was not run."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch := permissionCall(t, cs, input)
			p := watch("request_added").(socketproto.RequestAdded).Request
			q := p.Questions[0]
			if q.Header != "Permission" || len(q.Options) != 2 || q.Options[0].Label != "Allow" || q.Options[1].Label != "Deny" ||
				!strings.Contains(q.Question, "Bash") || !strings.Contains(q.Options[0].Preview, `"command": "rm -rf build"`) {
				t.Fatalf("question: %+v", q)
			}
			if c.answer == "" {
				testdaemon.SendOK(t, sock, socketproto.Cancel{RequestID: p.RequestID, Via: socketproto.ViaCLI})
			} else {
				testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI, Answers: []json.RawMessage{testdaemon.Seen(q, json.RawMessage(c.answer))}})
			}
			if got := permissionResult(t, ch); !reflect.DeepEqual(got, c.want) {
				t.Errorf("decision:\n got %v\nwant %v", got, c.want)
			}
		})
	}
}

// claude -p's permission_prompt for a file tool: the question names the
// form its input is drawn in, a Write's as the file's text; Allow, with the
// preview's digest, gives Claude Code the input back unchanged.
func TestPermissionPromptWriteNamesItsForm(t *testing.T) {
	sock := inproc.Start(t, nil).Socket
	watch := testdaemon.WatchNext(t, sock)
	cs := newSession(t, testConfig(sock), nil)
	input := map[string]any{"file_path": "/src/notes.txt", "content": "one\ntwo\n"}
	call, _ := json.Marshal(map[string]any{"tool_name": "Write", "input": input, "tool_use_id": "toolu_01Write"})
	ch := permissionCall(t, cs, call)
	p := watch("request_added").(socketproto.RequestAdded).Request
	q := p.Questions[0]
	if q.Options[0].PreviewForm != previewform.Write {
		t.Fatalf("Allow names the form %q, want %q", q.Options[0].PreviewForm, previewform.Write)
	}
	if drawn := previewform.Plain(previewform.Render(q.Options[0].PreviewForm, q.Options[0].Preview)); !strings.Contains(drawn, "1  one\n2  two\n") {
		t.Errorf("the Write is drawn as\n%s", drawn)
	}
	testdaemon.SendOK(t, sock, socketproto.AnswerRequest{RequestID: p.RequestID, Via: socketproto.ViaCLI, Answers: []json.RawMessage{testdaemon.Seen(q, json.RawMessage(`"Allow"`))}})
	if got, want := permissionResult(t, ch), (map[string]any{"behavior": "allow", "updatedInput": input}); !reflect.DeepEqual(got, want) {
		t.Errorf("decision:\n got %v\nwant %v", got, want)
	}
}
