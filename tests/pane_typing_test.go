package tests

import (
	"fmt"
	"strings"
	"syscall"
	"testing"

	"askuser/tests/termpane"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

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
			p := termpane.StartTmuxPane(t, e, 100, 30)
			p.WaitFor("What should we name this service?")
			p.TypeText("order-proc")
			p.WaitFor("order-proc")
			pid := p.Pid()
			if how == "Ctrl-C" {
				p.Keys("C-c")
			} else {
				p.Tmux("kill-server") // the terminal goes away: SIGHUP
			}
			// The pane ends either way, with no terminal left to draw on.
			testdaemon.Eventually(t, fmt.Sprintf("the pane (pid %d) to end after %s", pid, how), func() (bool, string) {
				return syscall.Kill(pid, 0) != nil, "still running"
			})
			got := testenv.WaitTyping(t, e, "name-1", "order-proc")
			if got.Status == "" || len(got.Draft) != 1 {
				t.Fatalf("pending %+v", got)
			}

			q := termpane.StartTmuxPane(t, e, 100, 30)
			q.WaitFor("> order-proc")
			q.TypeText("essor")
			q.Keys("Enter")
			out, errs, code := e.Client("", "wait", "name-1")
			if code != 0 || !strings.Contains(out, "order-processor") {
				t.Fatalf("wait: exit %d\n%s%s", code, out, errs)
			}
		})
	}
}
