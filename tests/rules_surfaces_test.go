package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/tests/termpane"
	"askuser/tests/testenv"
	"askuser/tests/webpane"
)

// The "remember" option on the other surfaces (docs/contract.md §13): the
// pending file and the CLI. The prompt comes through `askuser-client ask`
// as OpenCode's plugin sends it (the "permission" marker in the request);
// the rule made records the surface; `rules --json` and revoke from the CLI.
func TestRulesFromTheFileAndTheCLI(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := testenv.Watch(t, e)
	dir := filepath.Join(e.Root, "shop")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	req := func(cmd string) string {
		preview, _ := json.MarshalIndent(map[string]any{"permission": "bash", "patterns": []string{cmd}, "metadata": map[string]any{"command": cmd}}, "", "  ")
		b, _ := json.Marshal(map[string]any{
			"questions": []any{map[string]any{"question": "Allow OpenCode to use bash: " + cmd + "?", "header": "Permission", "multiSelect": false,
				"options": []any{
					map[string]any{"label": "Allow once", "preview": string(preview), "approvesPreview": true},
					map[string]any{"label": "Reject"},
				}}},
			"agent":      map[string]any{"id": "opencode-s1", "name": "opencode", "cwd": dir},
			"permission": map[string]any{"agent": "opencode", "tool": "bash", "allow": "Allow once"},
		})
		return string(b)
	}

	// The file: the remember option's label as the answer.
	cmd, out, errb := e.StartClient(req("make test"), "ask", "-", "--tool", "ask_user_question")
	p := testenv.NextAdded(t, w)
	var label string
	for _, o := range p.Questions[0].Options {
		if strings.HasPrefix(o.Label, socketproto.RememberPrefix) && strings.HasSuffix(o.Label, "for OpenCode") {
			label = o.Label
		}
	}
	if label == "" {
		t.Fatalf("no remember option: %+v", p.Questions[0].Options)
	}
	f := testenv.PendingFile(t, e, p.RequestID)
	a, _ := json.Marshal(label)
	testenv.SavePending(t, e, f, p.RequestID, string(a))
	if code := testenv.Finish(t, cmd); code != 0 {
		t.Fatalf("ask: exit %d; %s", code, errb)
	}
	var resp socketproto.Response
	if err := json.Unmarshal(out.Bytes(), &resp); err != nil || resp.Answers[0].SelectedOption != "Allow once" || resp.RuleID != 1 {
		t.Fatalf("the asker got %s (%v); want Allow once and rule 1", out, err)
	}

	// The identical prompt: answered by the rule, the CLI sees it.
	_, errOut, code := e.Client(req("make test"), "ask", "-", "--tool", "ask_user_question", "--format", "json")
	if code != 0 {
		t.Fatalf("the second ask: exit %d %s", code, errOut)
	}
	jsonOut, _, _ := e.Client("", "rules", "--json")
	var list socketproto.Rules
	if err := json.Unmarshal([]byte(jsonOut), &list); err != nil || len(list.Rules) != 1 {
		t.Fatalf("rules --json: %s (%v)", jsonOut, err)
	}
	if r := list.Rules[0]; r.MadeVia != "file" || r.Answered != 1 || r.Agents != "opencode" || r.Command != "make test" || r.Dir != dir {
		t.Errorf("rule %+v", r)
	}
	if o, _, code := e.Client("", "rules", "revoke", "9"); code == 0 {
		t.Errorf("revoking a rule that does not exist: exit 0, %s", o)
	}
	if _, _, code := e.Client("", "rules", "revoke", "1"); code != 0 {
		t.Errorf("rules revoke 1: exit %d", code)
	}
	if o, _, _ := e.Client("", "rules"); !strings.Contains(o, "no rules") {
		t.Errorf("after revoke: %s", o)
	}
}

// The page (docs/contract.md §12, §13): a prompt a rule answered is one
// line among the notices; the Rules button lists the rules, and Revoke
// removes one.
func TestWebRulesView(t *testing.T) {
	t.Parallel()
	e, _, b := webpane.Setup(t, 390, 844)
	w := testenv.Watch(t, e)
	dir := filepath.Join(e.Root, "shop")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	preview, _ := json.MarshalIndent(map[string]any{"command": "make test", "description": "Run the tests"}, "", "  ")
	req, _ := json.Marshal(map[string]any{
		"questions": []any{map[string]any{"question": "Allow the agent to use Bash with the input shown?", "header": "Permission", "multiSelect": false,
			"options": []any{map[string]any{"label": "Allow", "preview": string(preview), "approvesPreview": true}, map[string]any{"label": "Deny"}}}},
		"agent":      map[string]any{"id": "codex-s1", "name": "codex", "cwd": dir},
		"permission": map[string]any{"agent": "codex", "tool": "Bash", "allow": "Allow"},
	})
	cmd, _, errb := e.StartClient(string(req), "ask", "-")
	p := testenv.NextAdded(t, w)
	testenv.ChooseInAskuser(socketproto.RememberPrefix+"Bash: make test (and with more arguments) in ", ", for Codex")(t, e, p)
	if code := testenv.Finish(t, cmd); code != 0 {
		t.Fatalf("ask: exit %d %s", code, errb)
	}
	if _, errOut, code := e.Client(string(req), "ask", "-"); code != 0 {
		t.Fatalf("the identical prompt: exit %d %s", code, errOut)
	}
	b.WaitText("allowed by rule 1: Bash: make test (and with more arguments) in ")
	b.Click("#rules")
	b.WaitText("Rule 1: Bash: make test (and with more arguments)", "answered 1×", "Revoke rule 1")
	b.Click("button.revoke")
	b.WaitText("No rules.")
	b.Click("#rules")
	b.WaitGone("No rules.")
	if errs := b.ScriptErrors(); len(errs) > 0 {
		t.Errorf("script errors: %q", errs)
	}
}

// codexPrompt is Codex's Bash permission prompt for command in dir, as its
// hook asks it.
func codexPrompt(command, dir string) string {
	preview, _ := json.MarshalIndent(map[string]any{"command": command, "description": "Run the tests"}, "", "  ")
	req, _ := json.Marshal(map[string]any{
		"questions": []any{map[string]any{"question": "Allow the agent to use Bash with the input shown?", "header": "Permission", "multiSelect": false,
			"options": []any{map[string]any{"label": "Allow", "preview": string(preview), "approvesPreview": true}, map[string]any{"label": "Deny"}}}},
		"agent":      map[string]any{"id": "codex-s1", "name": "codex", "cwd": dir},
		"permission": map[string]any{"agent": "codex", "tool": "Bash", "allow": "Allow"},
	})
	return string(req)
}

// allowedTwice starts a daemon with rules.propose_after = 2, allows
// Codex's `make test` twice, and asks it a third time: the prompt that
// carries the proposal. It returns the waiting client and that prompt.
func allowedTwice(t *testing.T, e *Env) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer, socketproto.Pending) {
	t.Helper()
	w := testenv.Watch(t, e)
	dir := filepath.Join(e.Root, "shop")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		cmd, _, errb := e.StartClient(codexPrompt("make test", dir), "ask", "-")
		testenv.ChooseInAskuser("Allow", "")(t, e, testenv.NextAdded(t, w))
		if code := testenv.Finish(t, cmd); code != 0 {
			t.Fatalf("ask: exit %d %s", code, errb)
		}
	}
	cmd, out, errb := e.StartClient(codexPrompt("make test", dir), "ask", "-")
	p := testenv.NextAdded(t, w)
	opts := p.Questions[0].Options
	if len(opts) != 4 || opts[0].Label != "Allow" || opts[1].Label != "Deny" ||
		!strings.HasPrefix(opts[2].Description, "You allowed this 2 times.") || !strings.HasSuffix(opts[2].Label, "for Codex") {
		t.Fatalf("after two Allows the options are %+v; want Allow, Deny, then the marked remember options", opts)
	}
	return cmd, out, errb, p
}

// After rules.propose_after Allows, the pane's key 1 still means Allow
// (docs/contract.md §13: the proposal is a mark, never a move).
func TestPaneTmuxProposalLeavesAllowOnKeyOne(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.WriteConfig("[rules]\npropose_after = 2\n")
	e.StartDaemon()
	cmd, out, errb, _ := allowedTwice(t, e)
	p := termpane.StartTmuxPane(t, e, 80, 24)
	p.WaitFor("1. Allow", "2. Deny", "3. Allow, and remember")
	p.Keys("1")
	r, code := testenv.WaitClient(t, cmd, out, errb)
	if code != 0 || r.Answers[0].SelectedOption != "Allow" || r.RuleID != 0 {
		t.Fatalf("key 1: exit %d, result %+v; want Allow and no rule", code, r)
	}
	if o, _, _ := e.Client("", "rules"); !strings.Contains(o, "no rules") {
		t.Errorf("key 1 made a rule:\n%s", o)
	}
}

// The same on the page: the first option is Allow, and tapping it allows.
func TestWebProposalLeavesAllowFirst(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.WriteConfig("[rules]\npropose_after = 2\n")
	e.StartDaemon()
	b := webpane.NewBrowser(t, 390, 844)
	b.Open(webpane.Start(t, e))
	cmd, out, errb, _ := allowedTwice(t, e)
	b.WaitText("You allowed this 2 times.")
	if dir := os.Getenv("ASKUSER_WEB_SCREENSHOTS"); dir != "" { // to look at, as TestWebScreenshots
		b.Screenshot(filepath.Join(dir, "phone-remember.png"))
	}
	if got := webpane.JSValue[string](b, `document.querySelector('button.option[data-option="0"]').innerText`); !strings.Contains(got, "Allow") || strings.Contains(got, "remember") {
		t.Fatalf("the first option on the page is %q; want Allow", got)
	}
	b.Settled()
	b.Click(`button.option[data-option="0"]`)
	b.ClickText("Send")
	r, code := testenv.WaitClient(t, cmd, out, errb)
	if code != 0 || r.Answers[0].SelectedOption != "Allow" || r.RuleID != 0 {
		t.Fatalf("the first option: exit %d, result %+v; want Allow and no rule", code, r)
	}
	if errs := b.ScriptErrors(); len(errs) > 0 {
		t.Errorf("script errors: %q", errs)
	}
}
