package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
)

// waitTyping waits until the daemon's draft of request id's question 0
// keeps typed text not yet accepted.
func waitTyping(t *testing.T, e *Env, id, want string) socketproto.Pending {
	t.Helper()
	var kept socketproto.Pending
	testdaemon.Eventually(t, fmt.Sprintf("the daemon to keep %q as text typed in %s", want, id), func() (bool, string) {
		pending := clientList(t, e)
		for _, p := range pending {
			var d struct {
				Typing string `json:"typing"`
			}
			if p.RequestID == id && len(p.Draft) > 0 && json.Unmarshal(p.Draft[0], &d) == nil && d.Typing == want {
				kept = p
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", pending)
	})
	return kept
}

// Text typed and not yet accepted is not lost when the pane closes — by
// Ctrl-C or by its terminal going away — it is the daemon's draft, marked
// as not accepted ("typing"), and the next pane opens the input with it;
// nothing is sent to the agent (issue 16 item 3).
func TestPaneTmuxTypedTextSurvivesClosing(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"Ctrl-C", "closed terminal"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			e := NewEnv(t)
			e.StartDaemon()
			if _, _, code := e.Client("", "ask", "--no-wait", "--request-id", "name-1", "--question", "What should we name this service?"); code != 0 {
				t.Fatalf("ask --no-wait: exit %d", code)
			}
			p := startTmuxPane(t, e, 100, 30)
			p.waitFor("What should we name this service?")
			p.typeText("order-proc")
			p.waitFor("order-proc")
			pid := p.pid()
			if how == "Ctrl-C" {
				p.keys("C-c")
			} else {
				p.tmux("kill-server") // the terminal goes away: SIGHUP
			}
			// The pane ends either way, with no terminal left to draw on.
			testdaemon.Eventually(t, fmt.Sprintf("the pane (pid %d) to end after %s", pid, how), func() (bool, string) {
				return syscall.Kill(pid, 0) != nil, "still running"
			})
			got := waitTyping(t, e, "name-1", "order-proc")
			if got.Status == "" || len(got.Draft) != 1 {
				t.Fatalf("pending %+v", got)
			}

			q := startTmuxPane(t, e, 100, 30)
			q.waitFor("> order-proc")
			q.typeText("essor")
			q.keys("Enter")
			out, errs, code := e.Client("", "wait", "name-1")
			if code != 0 || !strings.Contains(out, "order-processor") {
				t.Fatalf("wait: exit %d\n%s%s", code, out, errs)
			}
		})
	}
}
