package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// A withdrawal that says how the user settled the question in the agent's
// own prompt (docs/contract.md §4, "settled"): every surface hears it, a
// later answer is refused with it, and history keeps it — across a restart
// of the daemon too. Only the asker may say it.
func TestWithdrawnSettledInTheAgentsOwnPrompt(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.StartDaemon()
	w := testenv.Watch(t, e)
	asker := testdaemon.DialRaw(t, e.Socket)
	asker.Send(testdaemon.AskLine("perm-1", ""))
	asker.Expect("ask_user_queued")
	testdaemon.RecvType(t, w, "request_added", 10*time.Second)

	other := testdaemon.DialRaw(t, e.Socket)
	other.Send(`{"type":"cancel","requestId":"perm-1","settled":"allowed in the agent's own dialog"}` + "\n")
	if m := other.Recv(); m["code"] != string(socketproto.CodeInvalidRequest) || m["field"] != "settled" {
		t.Errorf("another connection's settled cancel: %v", m)
	}
	asker.Send(`{"type":"cancel","requestId":"perm-1","settled":"allowed in ` + strings.Repeat("x", 200) + `"}` + "\n")
	if m := asker.Recv(); m["code"] != string(socketproto.CodeInvalidRequest) || m["field"] != "settled" {
		t.Errorf("an over-long settled: %v", m)
	}

	asker.Send(`{"type":"cancel","requestId":"perm-1","settled":"allowed in Claude Code's own dialog"}` + "\n")
	asker.Expect("ok requestId=perm-1")
	r := testdaemon.RecvType(t, w, "request_resolved", 10*time.Second).(socketproto.RequestResolved)
	if r.Outcome != socketproto.OutcomeWithdrawn || r.Settled != "allowed in Claude Code's own dialog" {
		t.Errorf("request_resolved %+v", r)
	}

	lateDeny := func(when string) {
		t.Helper()
		_, errOut, code := e.Client("", "answer", "perm-1", "SQLite")
		if code == 0 || !strings.Contains(errOut, "settled in its agent's own prompt: allowed in Claude Code's own dialog") {
			t.Errorf("%s: a late answer exited %d: %s", when, code, errOut)
		}
	}
	lateDeny("at once")
	e.StopDaemon()
	e.StartDaemon()
	lateDeny("after a restart")

	hist, err := os.ReadFile(filepath.Join(e.State, "askuser", "history.jsonl"))
	if err != nil || !strings.Contains(string(hist), `"settled":"allowed in Claude Code's own dialog"`) {
		t.Errorf("history (%v):\n%s", err, hist)
	}
	out, _, _ := e.Client("", "history")
	if !strings.Contains(out, "settled in the agent's own prompt") || !strings.Contains(out, "(allowed in Claude Code's own dialog)") {
		t.Errorf("askuser-client history:\n%s", out)
	}
}
