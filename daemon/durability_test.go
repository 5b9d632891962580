package daemon

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"askuser/internal/config"
	"askuser/tests/skips"
	"askuser/tests/testdaemon"
)

// A requestId names one request for as long as its result is kept: asking
// again under the id of a resolved request is duplicate_request_id, so the
// first agent's wait can never receive an answer to someone else's question.
func TestResolvedRequestIDStaysTaken(t *testing.T) {
	t.Parallel()
	sock := testDaemon(t, nil)
	a := testdaemon.DialRaw(t, sock)
	a.Send(ask1)
	a.Expect("ask_user_queued requestId=r1")
	b := testdaemon.DialRaw(t, sock)
	b.Send(answer1)
	b.Expect("ok requestId=r1")
	a.Expect("ask_user_response requestId=r1 answers.0.answer=SQLite")

	c := testdaemon.DialRaw(t, sock)
	c.Send(strings.Replace(ask1, "Which database?", "Delete the production data?", 1))
	c.Expect("error code=duplicate_request_id requestId=r1 field=requestId")
	c.Send(`{"type":"wait","requestId":"r1"}` + "\n")
	c.Expect("ask_user_response requestId=r1 answers.0.answer=SQLite")
}

// Two daemons on different sockets never share one state dir: the second
// refuses to start and names the first's pid and socket.
func TestSecondDaemonOnTheSameStateDirIsRefused(t *testing.T) {
	t.Parallel()
	root := testdaemon.ShortRoot(t)
	first, _ := daemonAt(t, root, nil)
	c := config.Default()
	c.Daemon.StateDir = filepath.Join(root, "state")
	other := filepath.Join(root, "other", "askuserd.sock")
	err := Run(context.Background(), Options{Config: c, SocketPath: other, Logger: testdaemon.TestLogger(t)})
	if !errors.Is(err, ErrAlreadyRunning) || !strings.Contains(err.Error(), first) ||
		!strings.Contains(err.Error(), "pid ") || !strings.Contains(err.Error(), c.Daemon.StateDir) {
		t.Fatalf("second daemon: %v", err)
	}
	// Its starter is told it refused, not that it lost a start-up race.
	if !errors.Is(err, ErrStateDirInUse) {
		t.Errorf("the refusal is not ErrStateDirInUse: %v", err)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("the refused daemon left its socket behind: %v", err)
	}
}

// A full state dir: the ask is refused with state_unavailable naming the
// cause, nothing is queued, other clients go on, and once there is room the
// same ask is accepted. Needs root (a small tmpfs).
func TestFullStateDirRefusesWhatItCannotKeep(t *testing.T) {
	t.Parallel()
	root := testdaemon.ShortRoot(t)
	state := filepath.Join(root, "state")
	os.MkdirAll(state, 0o700)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", state).CombinedOutput(); err != nil {
		skips.Skipf(t, "a full disk is simulated with a small tmpfs, and mounting one failed (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", state).Run() })
	sock, _ := daemonAt(t, root, nil)
	filler := filepath.Join(state, "filler")
	f, _ := os.Create(filler)
	f.Write(make([]byte, 128<<10)) // fills it: the write stops at the limit
	f.Close()

	a := testdaemon.DialRaw(t, sock)
	// Larger than a page, so that it cannot fit in the journal's last one.
	a.Send(strings.Replace(ask1, `"requestId":"r1",`, `"requestId":"r1","metadata":{"pad":"`+strings.Repeat("x", 10000)+`"},`, 1))
	m := a.Expect("error code=state_unavailable requestId=r1")
	if msg := testdaemon.Lookup(m, "message"); !strings.Contains(msg, "no space left") {
		t.Errorf("message: %s", msg)
	}
	a.Send(`{"type":"list"}` + "\n")
	a.Expect("list pending=[]")

	os.Remove(filler)
	a.Send(ask1)
	a.Expect("ask_user_queued requestId=r1")
}

// An acknowledgement follows the history line of what it acknowledges
// (docs/contract.md §10): history.jsonl holds the answer the moment the
// answerer's ok arrives, with no waiting, in both sync modes. The agent's
// own answer may leave before the line; the ok never does.
func TestAnswerIsInHistoryWhenItsOKArrives(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{config.SyncBatch, config.SyncAlways} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			d := testdaemon.Serve(t, runForTest, "", func(c *config.Config) { c.Daemon.Sync = mode })
			a := testdaemon.DialRaw(t, d.Socket)
			a.Send(ask1)
			a.Expect("ask_user_queued requestId=r1")
			b := testdaemon.DialRaw(t, d.Socket)
			b.Send(answer1)
			b.Expect("ok requestId=r1")
			hist, err := os.ReadFile(filepath.Join(d.StateDir, "history.jsonl"))
			if err != nil || !strings.Contains(string(hist), `"requestId":"r1"`) {
				t.Fatalf("history.jsonl when the ok arrived (%v): %q", err, hist)
			}
			a.Expect("ask_user_response requestId=r1 answers.0.answer=SQLite")
		})
	}
}
