package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// docs/contract.md §10 end to end: the real askuserd killed with SIGKILL and started
// again on the same state dir.

// journaled checks that state.jsonl holds want. The daemon acknowledges only
// after the record is written, so after an acknowledgement it is there.
func journaled(t *testing.T, e *Env, want string) {
	t.Helper()
	testenv.FileHas(t, e.StateFile("state.jsonl"), want)
}

// decodeResult reads the result an `ask` or `wait` printed with --format json.
func decodeResult(t *testing.T, out string) socketproto.Response {
	t.Helper()
	var r socketproto.Response
	decodeJSON(t, out, &r)
	return r
}

var deployQ = []string{"--question", "Deploy now?", "--option", "yes", "--option", "no"}

// A request whose agent waits when the daemon is killed comes back orphaned:
// in list, in the pending file; answered, "wait" delivers it.
func TestDurablePendingSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	c := e.Dial()
	if err := c.Send(socketproto.AskUserRequest{Request: socketproto.Request{RequestID: "k1",
		Questions: []socketproto.Question{{Question: "Deploy now?", Options: []socketproto.Option{{Label: "yes"}, {Label: "no"}}}},
		Agent:     &socketproto.Agent{ID: "agent-k", Name: "sh"}}}); err != nil {
		t.Fatal(err)
	}
	testdaemon.RecvType(t, c, "ask_user_queued", testenv.ClientWait)
	journaled(t, e, `"id":"k1"`)
	e.KillDaemon()
	c.Close()

	e.StartDaemon()
	p := testenv.ListedAs(t, e, "k1", socketproto.StatusOrphaned)
	if p.Agent == nil || p.Agent.ID != "agent-k" {
		t.Errorf("restored request lost its agent: %+v", p)
	}
	out := mustClient(t, e, "", "list")
	if !strings.Contains(out, "k1") || !strings.Contains(out, "Deploy now?") {
		t.Errorf("list after restart:\n%s", out)
	}
	testenv.FileHas(t, e.Pending, `"k1"`)

	mustClient(t, e, "", "answer", "k1", "2")
	res := decodeResult(t, mustClient(t, e, "", "wait", "k1", "--no-autostart"))
	if !res.Answered || res.RequestID != "k1" || res.AnswersByQuestion["Deploy now?"] != "no" || res.AnsweredVia != "cli" {
		t.Errorf("wait after restart: %+v", res)
	}
	e.StopDaemon() // its log is complete only once it stopped
	if !strings.Contains(e.DaemonLog(), "restored") {
		t.Errorf("the daemon does not say what it restored:\n%s", e.DaemonLog())
	}
}

// An answer given while the agent is away (parked, answered, daemon killed)
// is delivered by "wait" after the restart; a new request from the same agent
// with the same questions gets a kept answer at once.
func TestDurableAnswerWhileAwayAndSameQuestions(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	ask := append([]string{"ask", "--no-wait", "--no-autostart", "--agent-id", "agent-p"}, deployQ...)
	mustClient(t, e, "", append(ask, "--request-id", "p1")...)
	mustClient(t, e, "", append(ask, "--request-id", "p2")...)
	mustClient(t, e, "", "answer", "p1", "yes")
	mustClient(t, e, "", "answer", "p2", "no")
	journaled(t, e, `"op":"resolve","id":"p2"`)
	e.KillDaemon()

	e.StartDaemon()
	res := decodeResult(t, mustClient(t, e, "", "wait", "p1", "--no-autostart"))
	if !res.Answered || res.AnswersByQuestion["Deploy now?"] != "yes" {
		t.Errorf("wait p1 after restart: %+v", res)
	}
	// p2 is still kept and undelivered: the same agent asking the same
	// question again gets it, under the new id, without the user seeing it.
	w := testenv.Watch(t, e)
	out := mustClient(t, e, "", append([]string{"ask", "--no-autostart", "--agent-id", "agent-p", "--request-id", "p3"}, deployQ...)...)
	res = decodeResult(t, out)
	if !res.Answered || res.RequestID != "p3" || res.AnswersByQuestion["Deploy now?"] != "no" {
		t.Errorf("repeated ask: %+v", res)
	}
	// Only once: asked again, it waits for the user. p3 never did, so the
	// first request added (shown to the user) is p4.
	again, aout, aerr := e.StartClient("", append([]string{"ask", "--no-autostart", "--agent-id", "agent-p", "--request-id", "p4", "--format", "text"}, deployQ...)...)
	if p := testenv.NextAdded(t, w); p.RequestID != "p4" {
		t.Fatalf("the user was asked %s, want p4 (p3 came from the kept answer)", p.RequestID)
	}
	mustClient(t, e, "", "answer", "p4", "yes")
	if code := testenv.Finish(t, again); code != 0 || aout.String() != "Deploy now?: yes\n" {
		t.Errorf("p4: exit %d, %q, %s", code, aout, aerr)
	}
}

// The answer given in the pane or CLI while an asking client is cut off from
// a restarted daemon reaches that client when it reconnects.
func TestDurableAnswerBeforeTheAgentReconnects(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := testenv.Watch(t, e)
	ask, out, errb := e.StartClient("", "ask", "--question", "Still there?", "--no-autostart",
		"--request-id", "gone-1", "--format", "text")
	testenv.NextAdded(t, w)
	w.Close()
	journaled(t, e, `"id":"gone-1"`)
	e.KillDaemon()
	// The client is now retrying to connect; the new daemon accepts the
	// answer before it can be back, and keeps it for the client's wait.
	e.StartDaemon()
	mustClient(t, e, "", "answer", "gone-1", "still here")
	wantAnswered(t, ask, out, errb, "Still there?: still here\n")
}

// A daemon that lost its state dir forgets the question; the client asks it
// again under the same id (the fallback in askclient).
func TestLostStateDirFallsBackToAskingAgain(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := testenv.Watch(t, e)
	ask, out, errb := e.StartClient("", "ask", "--question", "Still there?", "--no-autostart",
		"--request-id", "lost-1", "--format", "text")
	testenv.NextAdded(t, w)
	w.Close()
	e.StopDaemon()
	if err := os.RemoveAll(filepath.Join(e.State, "askuser")); err != nil {
		t.Fatal(err)
	}
	e.StartDaemon()
	// Nothing was restored, so a waiting lost-1 is the client's new ask
	// (a watcher could subscribe after it and see it only in its snapshot).
	testenv.ListedAs(t, e, "lost-1", socketproto.StatusWaiting)
	mustClient(t, e, "", "answer", "lost-1", "yes")
	wantAnswered(t, ask, out, errb, "Still there?: yes\n")
}

// A journal torn by a crash mid-append, or with garbage in it, never stops
// the daemon: what was good comes back, a damaged file is kept aside.
func TestDurableDamagedJournal(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	mustClient(t, e, "", append([]string{"ask", "--no-wait", "--no-autostart", "--request-id", "d1"}, deployQ...)...)
	journaled(t, e, `"id":"d1"`)
	e.KillDaemon()
	f, err := os.OpenFile(e.StateFile("state.jsonl"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\x00\x00garbage\n" + `{"op":"add","id":"d2","pending":{"requestId":"d2","questi`)
	f.Close()

	e.StartDaemon()
	testenv.ListedAs(t, e, "d1", socketproto.StatusParked)
	e.StopDaemon()
	if _, err := os.Stat(e.StateFile("state.jsonl.corrupt")); err != nil {
		t.Errorf("the damaged journal was not kept: %v", err)
	}
	log := e.DaemonLog()
	if !strings.Contains(log, "cut short") || !strings.Contains(log, "skipped 1 damaged") {
		t.Errorf("the daemon's log does not say what it recovered:\n%s", log)
	}
	if fi, err := os.Stat(e.StateFile("state.jsonl")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("state.jsonl: %v %v", fi, err)
	}
}

// askuser-client history reads history.jsonl, with or without a daemon.
func TestHistoryEndToEnd(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	out := mustClient(t, e, "", "history")
	if out != "No history yet.\n" {
		t.Errorf("history on a fresh state dir: %q", out)
	}
	e.StartDaemon()
	for i, a := range []string{"yes", "no", "decline"} {
		id := "h" + string(rune('1'+i))
		mustClient(t, e, "", append([]string{"ask", "--no-wait", "--no-autostart", "--request-id", id,
			"--agent-id", "agent-" + id, "--metadata", "ticket=42"}, deployQ...)...)
		if a == "decline" {
			mustClient(t, e, "", "cancel", id)
		} else {
			mustClient(t, e, "", "answer", id, a)
		}
	}
	testenv.FileHas(t, e.StateFile("history.jsonl"), `"requestId":"h3"`)
	e.StopDaemon() // no daemon needed to read it

	out = mustClient(t, e, "", "history")
	for _, want := range []string{"  cli  agent-h1  h1\n  Deploy now?: yes\n", "  Deploy now?: no\n", "cancelled via cli  agent-h3  h3\n  Deploy now?: (cancelled)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("history lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "yes") > strings.Index(out, "(cancelled)") {
		t.Errorf("history is not newest last:\n%s", out)
	}
	out = mustClient(t, e, "", "history", "-n", "2", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("history -n 2 --json: %q", out)
	}
	var h struct {
		RequestID string            `json:"requestId"`
		Outcome   string            `json:"outcome"`
		Via       string            `json:"via"`
		Agent     socketproto.Agent `json:"agent"`
		Metadata  map[string]any    `json:"metadata"`
		Answers   []json.RawMessage `json:"answers"`
		Questions []json.RawMessage `json:"questions"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil {
		t.Fatal(err)
	}
	if h.RequestID != "h2" || h.Outcome != "answered" || h.Via != "cli" || h.Agent.ID != "agent-h2" ||
		h.Metadata["ticket"] != "42" || len(h.Answers) != 1 || len(h.Questions) != 1 {
		t.Errorf("history entry: %s", lines[0])
	}
}

// resolveViaCLI asks each id without waiting and answers it, as a user
// would from the CLI.
func resolveViaCLI(t *testing.T, e *Env, ids ...string) {
	t.Helper()
	for _, id := range ids {
		mustClient(t, e, "", append([]string{"ask", "--no-wait", "--no-autostart", "--request-id", id}, deployQ...)...)
		mustClient(t, e, "", "answer", id, "yes")
	}
}

// historyOnce checks that `askuser-client history --json` shows every id
// exactly once, nothing else, and skips no damaged line.
func historyOnce(t *testing.T, e *Env, ids ...string) {
	t.Helper()
	out, errOut, code := e.Client("", "history", "-n", "0", "--json")
	if code != 0 || errOut != "" {
		t.Errorf("history: exit %d, stderr %q", code, errOut)
	}
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var h struct {
			RequestID string `json:"requestId"`
		}
		decodeJSON(t, line, &h)
		seen[h.RequestID]++
	}
	for _, id := range ids {
		if seen[id] != 1 {
			t.Errorf("%s is %d times in history", id, seen[id])
		}
		delete(seen, id)
	}
	if len(seen) > 0 {
		t.Errorf("history has more: %v\n%s", seen, out)
	}
}

// A torn last line in history.jsonl (cut by truncation after a crash, or a
// fragment appended) never swallows what follows: after more answers and two
// restarts, every resolved request is in `askuser-client history` once.
func TestDurableHistoryTornTail(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	history := e.StateFile("history.jsonl")
	e.StartDaemon()
	resolveViaCLI(t, e, "t1", "t2", "t3")
	testenv.FileHas(t, history, `"requestId":"t3"`)
	e.KillDaemon()
	fi, err := os.Stat(history)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(history, fi.Size()-15); err != nil { // t3's line cut short
		t.Fatal(err)
	}

	e.StartDaemon()
	resolveViaCLI(t, e, "t4", "t5")
	testenv.FileHas(t, history, `"requestId":"t5"`)
	e.KillDaemon()
	f, err := os.OpenFile(history, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"requestId":"t9","questions":[{"quest`)
	f.Close()

	e.StartDaemon()
	resolveViaCLI(t, e, "t6")
	e.StopDaemon()
	e.StartDaemon()
	e.StopDaemon()
	historyOnce(t, e, "t1", "t2", "t3", "t4", "t5", "t6")
}

// The state dir deleted while requests wait is written back at once: a
// SIGKILL right after (before any other change) loses none of them.
func TestDurableDeletedStateDirIsWrittenBack(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	for _, id := range []string{"s1", "s2", "s3"} {
		mustClient(t, e, "", append([]string{"ask", "--no-wait", "--no-autostart", "--request-id", id}, deployQ...)...)
	}
	journaled(t, e, `"id":"s3"`)
	// The pending file is written again as soon as it goes, so an rm -rf
	// can find the dir not empty at its end: the user runs it again.
	for try := 0; ; try++ {
		err := os.RemoveAll(filepath.Join(e.State, "askuser"))
		if err == nil {
			break
		}
		if try == 10 {
			t.Fatal(err)
		}
	}
	// Nothing else happens: the daemon writes it back of its own accord.
	for _, id := range []string{"s1", "s2", "s3"} {
		journaled(t, e, `"id":"`+id+`"`)
	}
	e.KillDaemon()

	e.StartDaemon()
	for _, id := range []string{"s1", "s2", "s3"} {
		testenv.ListedAs(t, e, id, socketproto.StatusParked)
	}
}

// A read-only state dir (docs/contract.md §10): the daemon starts, restores what it
// holds, refuses an ask with state_unavailable naming the reason, tells a
// subscriber with state_dir_error, and once the dir is writable again says
// so and accepts. The read-only dir is a tmpfs remounted read-only (as root
// chmod does not stop writes); without root the test is skipped.
func TestDurableReadOnlyStateDir(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	dir := filepath.Join(e.State, "askuser")
	os.MkdirAll(dir, 0o700)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		if os.Getuid() == 0 && os.Getenv("CI") == "true" {
			t.Fatalf("mounting a tmpfs as root: %v %s", err, out)
		}
		t.Skipf("a read-only state dir is a tmpfs remounted read-only, and mounting one failed (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	remount := func(mode string) {
		t.Helper()
		if out, err := exec.Command("mount", "-o", "remount,"+mode, dir).CombinedOutput(); err != nil {
			t.Fatalf("remount %s: %v %s", mode, err, out)
		}
	}
	e.StartDaemon()
	mustClient(t, e, "", append([]string{"ask", "--no-wait", "--no-autostart", "--request-id", "ro1"}, deployQ...)...)
	e.StopDaemon()
	remount("ro")

	e.StartDaemon()
	w := testenv.Watch(t, e)
	ev := testdaemon.RecvType(t, w, "state_dir_error", testenv.ClientWait).(socketproto.StateDirError)
	if ev.Path != dir || !strings.Contains(ev.Error, "read-only file system") {
		t.Errorf("state_dir_error: %+v", ev)
	}
	if out := mustClient(t, e, "", "list"); !strings.Contains(out, "ro1") {
		t.Errorf("list on a read-only state dir:\n%s", out)
	}
	_, errOut, code := e.Client("", append([]string{"ask", "--no-wait", "--no-autostart", "--request-id", "ro2"}, deployQ...)...)
	if code == 0 || !strings.Contains(errOut, "read-only file system") {
		t.Errorf("ask on a read-only state dir: exit %d, stderr %q", code, errOut)
	}

	remount("rw")
	if ev := testdaemon.RecvType(t, w, "state_dir_error", testenv.ClientWait).(socketproto.StateDirError); ev.Error != "" {
		t.Errorf("after the remount: %+v, want the cleared form", ev)
	}
	mustClient(t, e, "", append([]string{"ask", "--no-wait", "--no-autostart", "--request-id", "ro2"}, deployQ...)...)
	testenv.ListedAs(t, e, "ro2", socketproto.StatusParked)
	e.StopDaemon()
}
