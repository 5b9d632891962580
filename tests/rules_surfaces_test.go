package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"askuser/socketproto"
)

// The "remember" option on the other surfaces (docs/contract.md §13): the
// pending file and the CLI. The prompt comes through `askuser-client ask`
// as OpenCode's plugin sends it (the "permission" marker in the request);
// the rule made records the surface; `rules --json` and revoke from the CLI.
func TestRulesFromTheFileAndTheCLI(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := watcher(t, e)
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
	p := nextAdded(t, w)
	var label string
	for _, o := range p.Questions[0].Options {
		if strings.HasPrefix(o.Label, socketproto.RememberPrefix) && strings.HasSuffix(o.Label, "for OpenCode") {
			label = o.Label
		}
	}
	if label == "" {
		t.Fatalf("no remember option: %+v", p.Questions[0].Options)
	}
	f := pfFile(t, e, p.RequestID)
	a, _ := json.Marshal(label)
	pfSave(t, e, f, p.RequestID, string(a))
	if code := finish(t, cmd); code != 0 {
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
