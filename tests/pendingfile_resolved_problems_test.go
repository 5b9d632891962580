package tests

import (
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// A problem of the last save that is about one request goes with that
// request (issue 23 item 6): answered elsewhere (here with askuser-client
// answer), it leaves the file's "problems", status and every pane, while a
// problem about a request still waiting stays.
func TestPendingFileProblemGoesWithItsRequest(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	pfAsk(t, e, "req-b", pfDB)
	pfAsk(t, e, "req-a", pfDB)
	f := testenv.PendingFile(t, e, "req-b", "req-a")

	pane := testdaemon.Dial(t, e.Socket)
	if err := pane.Send(socketproto.Subscribe{Role: socketproto.RolePane}); err != nil {
		t.Fatal(err)
	}
	testdaemon.RecvType(t, pane, "snapshot", testenv.ClientWait)

	// Option 9 of three: an answer the file cannot take, for each request;
	// req-a's problem is said last, so it is the one status and panes show.
	f.Requests[0].Questions[0].Answer = []byte("9")
	testenv.SavePending(t, e, f, "req-a", "9")
	pfProblems(t, e, func(p []string) bool {
		s := strings.Join(p, "\n")
		return strings.Contains(s, `"req-a"`) && strings.Contains(s, `"req-b"`)
	})
	for {
		ev := testdaemon.RecvType(t, pane, "pending_file_error", testenv.ClientWait).(socketproto.PendingFileError)
		if strings.Contains(ev.Error, `"req-a"`) {
			break // the last of the save's problems
		}
	}

	mustClient(t, e, "", "answer", "req-a", "SQLite")
	got := pfProblems(t, e, func(p []string) bool {
		return !strings.Contains(strings.Join(p, "\n"), `"req-a"`)
	})
	if s := strings.Join(got, "\n"); !strings.Contains(s, `"req-b"`) || !strings.Contains(s, ".rejected") {
		t.Errorf("after req-a was answered the file's problems are %q; want req-b's and where the save is kept", got)
	}
	var st socketproto.Status
	decodeJSON(t, mustClient(t, e, "", "status", "--json"), &st)
	if strings.Contains(st.PendingFileError, `"req-a"`) {
		t.Errorf("status still says %q after req-a was answered", st.PendingFileError)
	}
	wantPaneFileError(t, pane, func(msg string) bool { return strings.Contains(msg, `"req-b"`) })
	if !strings.Contains(st.PendingFileError, `"req-b"`) {
		t.Errorf("status says %q; want req-b's problem, which still stands", st.PendingFileError)
	}

	mustClient(t, e, "", "answer", "req-b", "1")
	pfProblems(t, e, func(p []string) bool { return len(p) == 0 })
	st = socketproto.Status{}
	decodeJSON(t, mustClient(t, e, "", "status", "--json"), &st)
	if st.PendingFileError != "" {
		t.Errorf("status still says %q with every request it named answered", st.PendingFileError)
	}
	wantPaneFileError(t, pane, func(msg string) bool { return msg == "" })
}

// wantPaneFileError waits for a pane's pending_file_error satisfying ok,
// skipping the other events on the way.
func wantPaneFileError(t *testing.T, pane *socketproto.Conn, ok func(string) bool) {
	t.Helper()
	for {
		ev := testdaemon.RecvType(t, pane, "pending_file_error", testenv.ClientWait).(socketproto.PendingFileError)
		if ok(ev.Error) {
			return
		}
		t.Logf("pane heard %q; waiting on", ev.Error)
	}
}
