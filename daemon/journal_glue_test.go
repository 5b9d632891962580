package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"askuser/daemon/journal"
	"askuser/internal/config"
	"askuser/internal/history"
	"askuser/tests/testdaemon"
)

const agentAsk = `{"type":"ask_user_request","requestId":"%s","agent":{"id":"agent-7","name":"claude"},"metadata":{"repo":"askuser"},` + q1 + `%s}` + "\n"

func ask(id, extra string) string {
	return strings.Replace(strings.Replace(agentAsk, "%s", id, 1), "%s", extra, 1)
}

// listUntil lists until key has value (the change comes from another
// connection, so it may take a moment).
func listUntil(c *testdaemon.Raw, key, value string) {
	c.T.Helper()
	testdaemon.Eventually(c.T, "a list with "+key+"="+value, func() (bool, string) {
		c.Send(`{"type":"list"}` + "\n")
		m := c.Recv()
		return testdaemon.Lookup(m, key) == value, fmt.Sprint(m)
	})
}

// A request waiting when the daemon stops comes back orphaned: listed, in
// the pending file, and its agent's "wait" gets the answer given afterwards.
func TestPendingRequestSurvivesRestart(t *testing.T) {
	t.Parallel()
	root := testdaemon.ShortRoot(t)
	sock, stop := daemonAt(t, root, nil)
	a := testdaemon.DialRaw(t, sock)
	a.Send(ask("r1", ""))
	a.Expect("ask_user_queued requestId=r1")
	stop()

	sock, _ = daemonAt(t, root, nil)
	c := testdaemon.DialRaw(t, sock)
	c.Send(`{"type":"list"}` + "\n")
	c.Expect("list pending.0.requestId=r1 pending.0.status=orphaned pending.0.agent.id=agent-7 pending.0.metadata.repo=askuser pending.0.questions.0.options.1.label=SQLite")
	eventually(t, filepath.Join(root, "state", "pending-questions.json"),
		func(s string) bool { return strings.Contains(s, `"r1"`) })

	w := testdaemon.DialRaw(t, sock)
	w.Send(wait1)
	listUntil(c, "pending.0.status", "waiting")
	c.Send(answer1)
	c.Expect("ok requestId=r1")
	w.Expect("ask_user_response requestId=r1 answered=true answers.0.answer=SQLite answeredVia=cli")
}

// An answer given while the agent is away (parked, answered) reaches the
// agent's "wait" after a restart; a parked request comes back parked.
func TestAnswerGivenWhileAwaySurvivesRestart(t *testing.T) {
	t.Parallel()
	root := testdaemon.ShortRoot(t)
	sock, stop := daemonAt(t, root, nil)
	a := testdaemon.DialRaw(t, sock)
	a.Send(ask("r1", `,"wait":false`))
	a.Expect("ask_user_queued requestId=r1")
	a.Send(park2)
	a.Expect("ask_user_queued requestId=r2")
	a.Conn.Close()
	b := testdaemon.DialRaw(t, sock)
	b.Send(answer1)
	b.Expect("ok requestId=r1")
	stop()

	sock, _ = daemonAt(t, root, nil)
	w := testdaemon.DialRaw(t, sock)
	w.Send(wait1)
	w.Expect("ask_user_response requestId=r1 answered=true answers.0.answer=SQLite answeredVia=cli")
	w.Send(`{"type":"list"}` + "\n")
	w.Expect("list pending.0.requestId=r2 pending.0.status=parked")
	w.Send(answer1)
	w.Expect("error code=already_resolved requestId=r1")
}

// An answer typed into the pending file while no daemon runs is taken in by
// the next daemon once it has restored the request: the journal comes back
// before the pending file is first read, or the save would name a request
// nobody knows and be dropped.
func TestPendingFileSavedWhileStoppedAnswersTheRestoredRequest(t *testing.T) {
	t.Parallel()
	root := testdaemon.ShortRoot(t)
	pending := filepath.Join(root, "state", "pending-questions.json")
	sock, stop := daemonAt(t, root, nil)
	a := testdaemon.DialRaw(t, sock)
	a.Send(ask("r1", `,"wait":false`))
	a.Expect("ask_user_queued requestId=r1")
	before := eventually(t, pending, func(s string) bool { return strings.Contains(s, `"r1"`) })
	stop()

	saved := strings.Replace(before, `"answer": null`, `"answer": "SQLite"`, 1)
	if saved == before {
		t.Fatalf("no answer to fill in:\n%s", before)
	}
	if err := os.WriteFile(pending, []byte(saved), 0o600); err != nil {
		t.Fatal(err)
	}

	sock, _ = daemonAt(t, root, nil)
	w := testdaemon.DialRaw(t, sock)
	w.Send(wait1)
	w.Expect("ask_user_response requestId=r1 answered=true answers.0.answer=SQLite answeredVia=file")
}

const park2 = `{"type":"ask_user_request","requestId":"r2","wait":false,` + q2 + "}\n"

// The same agent asking exactly the same questions again gets the kept,
// undelivered answer at once, under its new id, once; also after a restart.
func TestSameAgentSameQuestionsGetsTheKeptAnswer(t *testing.T) {
	t.Parallel()
	root := testdaemon.ShortRoot(t)
	sock, stop := daemonAt(t, root, nil)
	a := testdaemon.DialRaw(t, sock)
	a.Send(ask("r1", ""))
	a.Expect("ask_user_queued requestId=r1")
	a.Conn.Close() // the agent goes away; its request is orphaned
	b := testdaemon.DialRaw(t, sock)
	b.Send(`{"type":"list"}` + "\n")
	b.Expect("list pending.0.requestId=r1")
	listUntil(b, "pending.0.status", "orphaned")
	b.Send(answer1)
	b.Expect("ok requestId=r1")
	stop()

	sock, _ = daemonAt(t, root, nil)
	w := testdaemon.DialRaw(t, sock)
	w.Send(`{"type":"subscribe","role":"watch"}` + "\n")
	w.Expect("snapshot state=idle")
	c := testdaemon.DialRaw(t, sock)
	// Other questions, or another agent: asked as usual.
	c.Send(strings.Replace(ask("x1", `,"wait":false`), "Which database?", "Which cache?", 1))
	c.Expect("ask_user_queued requestId=x1 position=1")
	c.Send(strings.Replace(ask("x2", `,"wait":false`), "agent-7", "agent-8", 1))
	c.Expect("ask_user_queued requestId=x2 position=2")
	// The same agent and questions: answered from r1 at once.
	c.Send(ask("r9", ""))
	c.Expect("ask_user_queued requestId=r9")
	c.Expect("ask_user_response requestId=r9 answered=true answers.0.answer=SQLite answeredVia=cli")
	c.Send(`{"type":"wait","requestId":"r9"}` + "\n")
	c.Expect("ask_user_response requestId=r9 answered=true answers.0.answer=SQLite")
	// Only once: the next identical request is queued like any other.
	c.Send(ask("r10", `,"wait":false`))
	c.Expect("ask_user_queued requestId=r10 position=3")
	// r9 never waited for the user: watchers and panes hear only that it was
	// resolved (no request_added, so no bell and no notify.command).
	for _, id := range []string{"x1", "x2", "r10"} {
		if m := w.Until("request_added"); testdaemon.Lookup(m, "request.requestId") != id {
			t.Fatalf("request_added for %s, want %s", testdaemon.Lookup(m, "request.requestId"), id)
		}
	}

	// Asked without waiting, a repeat gets the kept answer (r10's, given
	// while nobody waited) for its own "wait", and hands it to no third.
	b = testdaemon.DialRaw(t, sock)
	b.Send(strings.Replace(answer1, "r1", "r10", 1))
	b.Expect("ok requestId=r10")
	c.Send(ask("r11", `,"wait":false`))
	c.Expect("ask_user_queued requestId=r11 position=0")
	c.Send(ask("r12", `,"wait":false`))
	c.Expect("ask_user_queued requestId=r12 position=3")
	c.Send(`{"type":"wait","requestId":"r11"}` + "\n")
	c.Expect("ask_user_response requestId=r11 answered=true answers.0.answer=SQLite")
	if m := w.Until("request_added"); testdaemon.Lookup(m, "request.requestId") != "r12" {
		t.Fatalf("request_added for %s, want r12 (r11 was answered at once)", testdaemon.Lookup(m, "request.requestId"))
	}

	// history.jsonl has r1 (answered) and r9 (answered from r1).
	hist := eventually(t, filepath.Join(root, "state", history.File),
		func(s string) bool { return strings.Count(s, "\n") >= 2 })
	if !strings.Contains(hist, `"requestId":"r1"`) || !strings.Contains(hist, `"requestId":"r9"`) ||
		!strings.Contains(hist, `"agent":{"id":"agent-7","name":"claude"}`) || !strings.Contains(hist, `"metadata":{"repo":"askuser"}`) {
		t.Errorf("history.jsonl:\n%s", hist)
	}
}

// A result its agent already received is not handed out again.
func TestDeliveredAnswerIsNotReused(t *testing.T) {
	t.Parallel()
	root := testdaemon.ShortRoot(t)
	sock, _ := daemonAt(t, root, nil)
	a := testdaemon.DialRaw(t, sock)
	a.Send(ask("r1", ""))
	a.Expect("ask_user_queued requestId=r1")
	b := testdaemon.DialRaw(t, sock)
	b.Send(answer1)
	b.Expect("ok requestId=r1")
	a.Expect("ask_user_response requestId=r1")
	a.Send(ask("r2", ""))
	a.Expect("ask_user_queued requestId=r2 position=1")
	a.Quiet()
}

// A journal cut short mid-line by a crash loses only that line.
func TestTornJournalTailRecovers(t *testing.T) {
	t.Parallel()
	root := testdaemon.ShortRoot(t)
	sock, stop := daemonAt(t, root, nil)
	a := testdaemon.DialRaw(t, sock)
	a.Send(park1)
	a.Expect("ask_user_queued requestId=r1")
	stop()
	path := filepath.Join(root, "state", journal.StateFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"op":"add","id":"r2","at":"2026-11-21T21:00:00Z","pending":{"requestId":"r2","quest`)
	f.Close()

	sock, _ = daemonAt(t, root, nil)
	c := testdaemon.DialRaw(t, sock)
	c.Send(`{"type":"list"}` + "\n")
	c.Expect("list pending.0.requestId=r1 pending.0.status=parked")
	c.Send(`{"type":"status"}` + "\n")
	c.Expect("status pending=1")
	if data, _ := os.ReadFile(path); strings.Contains(string(data), `"r2"`) {
		t.Errorf("the torn line survived compaction:\n%s", data)
	}
}

// A restored orphaned request whose agent never comes back is withdrawn
// after orphan_grace, counted from the daemon's start.
func TestRestoredOrphanIsWithdrawnAfterGrace(t *testing.T) {
	t.Parallel()
	root := testdaemon.ShortRoot(t)
	grace := func(c *config.Config) { c.Daemon.OrphanGrace.Duration = time.Hour }
	sock, stop := daemonAt(t, root, grace)
	a := testdaemon.DialRaw(t, sock)
	a.Send(ask("r1", ""))
	a.Expect("ask_user_queued requestId=r1")
	stop()

	sock, _ = daemonAt(t, root, func(c *config.Config) { c.Daemon.OrphanGrace.Duration = 50 * time.Millisecond })
	w := testdaemon.DialRaw(t, sock)
	w.Send(`{"type":"subscribe","role":"watch"}` + "\n")
	if m := w.Recv(); testdaemon.Lookup(m, "pending.0.requestId") == "r1" {
		w.Expect("request_resolved requestId=r1 outcome=withdrawn via=agent")
	}
	w.Send(wait1)
	w.Until("error")
}
