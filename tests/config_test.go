package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/termpane"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// A typo in a pane-only key ([ui] input_gaurd) switches nothing off (docs/contract.md
// §9): the daemon starts and logs it, ask is answered, the MCP server
// serves, the pane opens and says it; each names the key and its line.
func TestConfigTypoIsAWarningEverywhere(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.WriteConfig("[ui]\nbell = true\ninput_gaurd = \"1s\"\n")
	const warning = `line 3: ui.input_gaurd: unknown key, ignored`
	e.StartDaemon()
	testenv.Says(t, "the daemon's log", e.DaemonLog, warning) // its output arrives through a pipe

	w := testenv.Watch(t, e)
	ask, out, errb := e.StartClient("", "ask", "--question", "Proceed?", "--option", "Yes", "--option", "No", "--format", "text")
	id := testenv.NextAdded(t, w).RequestID
	mustClient(t, e, "", "answer", id, "Yes")
	wantAnswered(t, ask, out, errb, "Proceed?: Yes\n")
	if !strings.Contains(errb.String(), "askuser-client ask: warning: config ") || !strings.Contains(errb.String(), warning) {
		t.Errorf("ask's stderr does not carry the warning: %q", errb.String())
	}

	p := mcpSpawn(t, e, "claude-code")
	ch := mcpCallInBackground(context.Background(), p, "ask_user", map[string]any{
		"questions": []any{map[string]any{"question": "Ship it?", "options": []any{map[string]any{"label": "Yes"}, map[string]any{"label": "No"}}}}})
	added := testdaemon.RecvType(t, w, "request_added", 10*time.Second).(socketproto.RequestAdded).Request
	mustClient(t, e, "", "answer", added.RequestID, "Yes")
	if text := mcpFirstText(t, mcpResultOf(t, p, ch)); !strings.Contains(text, `"Yes"`) {
		t.Errorf("the MCP server's result: %s", text)
	}
	testenv.Says(t, "the MCP server's stderr", p.stderr.String, warning) // it runs on: its stderr comes through a pipe

	pane := termpane.StartTmuxPane(t, e, 120, 30)
	pane.WaitFor("Warning: config ", "ui.input_gaurd: unknown key, ignored", "No questions waiting")
}
