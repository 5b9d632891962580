package agents

import (
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
)

// TestAgentClaudeCodeAllowedInItsDialogThenDeniedInAskuser: interactive
// Claude Code 2.1.330, a long command allowed in its own dialog. askuser's
// copy is withdrawn while the command still runs (Claude Code's session
// record says the dialog was answered; the call's result comes only when
// the command ends), saying how it was settled; a Deny given in askuser
// afterwards is refused with that, and history records Claude Code's
// outcome, not the Deny.
func TestAgentClaudeCodeAllowedInItsDialogThenDeniedInAskuser(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	long := map[string]any{"command": "sleep 6 && echo hello > marker-file && cat marker-file", "description": "Write the marker file slowly"}
	model := newFakeModel(t, fakeStep{"Bash", long})
	p := startClaudeInteractive(t, claude, e, model, "Write the marker file.")
	q := testdaemon.RecvType(t, w, "request_added", agentWait).(socketproto.RequestAdded).Request
	if q.Questions[0].Question != permissionQuestion {
		t.Fatalf("asked %+v", q.Questions)
	}
	waitScreen(t, p, "Do you want to proceed?", "sleep 6")
	// A user reads the dialog before answering; the hook, polling Claude
	// Code's session record, must see it up before it sees it answered.
	// The time under test is the real hook's own polling: no event says
	// it saw the dialog.
	time.Sleep(time.Second)
	start := time.Now()
	p.RawKeys("Enter") // "1. Yes"
	var r socketproto.RequestResolved
	for r.RequestID != q.RequestID {
		r = testdaemon.RecvType(t, w, "request_resolved", agentWait).(socketproto.RequestResolved)
	}
	t.Logf("allowed in Claude Code's dialog: askuser's copy withdrawn %v later", time.Since(start).Round(time.Millisecond))
	model.mu.Lock()
	_, ran := model.results[0]
	model.mu.Unlock()
	if ran {
		t.Errorf("askuser's copy was withdrawn only once the command's result reached the model")
	}
	const how = "allowed in Claude Code's own dialog, the call running"
	if r.Outcome != socketproto.OutcomeWithdrawn || r.Settled != how {
		t.Errorf("resolved %+v; want withdrawn, settled %q", r, how)
	}
	if _, errOut, code := e.Client("", "answer", q.RequestID, "Deny"); code == 0 || !strings.Contains(errOut, how) {
		t.Errorf("a Deny in askuser after Claude Code's dialog allowed the call: exit %d, %s", code, errOut)
	}
	res := model.Result(0, agentWait)
	if !strings.Contains(res.Text, "hello") || res.IsError {
		t.Errorf("the model received (is_error %v) %q", res.IsError, res.Text)
	}
	if out, errOut, _ := e.Client("", "history", "--json"); !strings.Contains(out, `"settled":"`+how+`"`) {
		t.Errorf("history does not record Claude Code's outcome:\n%s%s", out, errOut)
	}
}

// TestAgentClaudeCodeTwinCallsEachTheirOwn: the model makes the same call
// twice in a row. The first, allowed in Claude Code's own dialog, settles
// only its own copy; the second call's copy stays up in askuser until it is
// answered there, and that answer is the one Claude Code takes.
func TestAgentClaudeCodeTwinCallsEachTheirOwn(t *testing.T) {
	claude, e, w := agentTest(t, "claude-code")
	model := newFakeModel(t, fakeStep{"Bash", markerCommand}, fakeStep{"Bash", markerCommand})
	p := startClaudeInteractive(t, claude, e, model, "Write the marker file twice.")
	first := testdaemon.RecvType(t, w, "request_added", agentWait).(socketproto.RequestAdded).Request
	waitScreen(t, p, "Do you want to proceed?", "echo hello > marker-file")
	time.Sleep(time.Second) // a user reads the dialog, as above: the real hook's polling under test
	p.RawKeys("Enter")      // "1. Yes"
	model.Result(0, agentWait)
	second := testdaemon.RecvType(t, w, "request_added", agentWait).(socketproto.RequestAdded).Request
	if second.RequestID == first.RequestID {
		t.Fatalf("the second call was not asked")
	}
	// The first call's result may reach the transcript only now; it must
	// not take the second's copy with it. What is under test is that
	// nothing happens, over the real hook's polling of the transcript:
	// no event can say so sooner.
	time.Sleep(2 * time.Second)
	answerCLI(`["Allow"]`)(t, e, second)
	if r := model.Result(1, agentWait); !strings.Contains(r.Text, "hello") || r.IsError {
		t.Errorf("the second call: the model received (is_error %v) %q", r.IsError, r.Text)
	}
	waitScreen(t, p, "Allowed by PermissionRequest hook")
}
