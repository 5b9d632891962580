package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"askuser/daemon/pendingfile"
	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// pfAsk sends an ask_user_request on its own connection and returns the
// connection, on which the ask_user_response will arrive.
func pfAsk(t *testing.T, e *Env, id string, qs ...socketproto.Question) *socketproto.Conn {
	t.Helper()
	c := e.Dial()
	if err := c.Send(socketproto.AskUserRequest{Request: socketproto.Request{RequestID: id, Questions: qs,
		Agent: &socketproto.Agent{ID: "agent-1", Name: "claude-main"}}}); err != nil {
		t.Fatal(err)
	}
	q, ok := testdaemon.RecvType(t, c, "ask_user_queued", testenv.ClientWait).(socketproto.Queued)
	if !ok || q.PendingFile != e.Pending {
		t.Fatalf("queued %+v, want pendingFile %s", q, e.Pending)
	}
	return c
}

func pfResponse(t *testing.T, c *socketproto.Conn) socketproto.Response {
	t.Helper()
	return testdaemon.RecvType(t, c, "ask_user_response", testenv.ClientWait).(socketproto.Response)
}

var (
	pfDB = socketproto.Question{Question: "Which database should we use?", Header: "Database",
		Options: []socketproto.Option{{Label: "PostgreSQL (Recommended)"}, {Label: "SQLite"}, {Label: "MongoDB"}}}
	pfName = socketproto.Question{Question: "What should we name this service?"}
)

func TestPendingFileAnswersAWaitingAgent(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := testenv.Watch(t, e)
	c := pfAsk(t, e, "req-123", pfDB, pfName)
	f := testenv.PendingFile(t, e, "req-123")
	if f.Instructions != pendingfile.Instructions || f.Requests[0].Agent != "claude-main" {
		t.Errorf("file header: %+v", f)
	}
	for path, want := range map[string]os.FileMode{e.Pending: 0o600, filepath.Dir(e.Pending): 0o700} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}

	// A first save answers one question: a draft, shown to subscribers.
	testenv.SavePending(t, e, f, "req-123", "", `"order-processor"`)
	upd := testdaemon.RecvType(t, w, "request_updated", testenv.ClientWait).(socketproto.RequestUpdated)
	if len(upd.Request.Draft) != 2 || string(upd.Request.Draft[1]) != `"order-processor"` {
		t.Errorf("draft %s", upd.Request.Draft)
	}
	// The rewrite keeps it; the second save answers the rest by number.
	f = testenv.PendingFile(t, e, "req-123")
	if string(f.Requests[0].Questions[1].Answer) != `"order-processor"` {
		t.Errorf("the draft did not survive the rewrite: %s", f.Requests[0].Questions[1].Answer)
	}
	testenv.SavePending(t, e, f, "req-123", `1`)
	resp := pfResponse(t, c)
	if !resp.Answered || resp.AnsweredVia != socketproto.ViaFile ||
		resp.AnswersByQuestion[pfDB.Question] != "PostgreSQL (Recommended)" ||
		resp.AnswersByQuestion[pfName.Question] != "order-processor" {
		t.Errorf("response %+v", resp)
	}
	res := testdaemon.RecvType(t, w, "request_resolved", testenv.ClientWait).(socketproto.RequestResolved)
	if res.RequestID != "req-123" || res.Outcome != socketproto.OutcomeAnswered || res.Via != socketproto.ViaFile {
		t.Errorf("resolved %+v", res)
	}
	f = testenv.PendingFile(t, e)
	if f.Requests == nil {
		t.Error(`an empty pending set is not written as "requests": []`)
	}
}

func TestPendingFileClientAskAnsweredInTheFile(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := testenv.Watch(t, e)
	cmd, out, errb := e.StartClient("", "ask", "--question", "Which database should we use?",
		"--option", "PostgreSQL (Recommended)", "--option", "SQLite", "--request-id", "cli-1", "--format", "json")
	testenv.NextAdded(t, w)
	f := testenv.PendingFile(t, e, "cli-1")
	testenv.SavePending(t, e, f, "cli-1", `"sqlite"`)
	if code := testenv.Finish(t, cmd); code != 0 {
		t.Fatalf("askuser-client ask exited %d: %s", code, errb)
	}
	var resp socketproto.Response
	decodeJSON(t, out.String(), &resp)
	if resp.AnsweredVia != "file" || resp.Answers[0].SelectedOption != "SQLite" {
		t.Errorf("result %s", out)
	}
}

func TestPendingFileCancelAndFirstResolutionWins(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := testenv.Watch(t, e)
	c1 := pfAsk(t, e, "one", pfName)
	c2 := pfAsk(t, e, "two", pfName)
	f := testenv.PendingFile(t, e, "one", "two")

	// "two" is answered from the CLI while the user's buffer still has it.
	cli := e.Dial()
	if err := cli.Send(socketproto.AnswerRequest{RequestID: "two", Answers: []json.RawMessage{json.RawMessage(`"from the cli"`)}, Via: "cli"}); err != nil {
		t.Fatal(err)
	}
	testdaemon.RecvType(t, cli, "ok", testenv.ClientWait)
	if r := pfResponse(t, c2); r.AnsweredVia != "cli" {
		t.Errorf("two: %+v", r)
	}

	f.Requests[0].Cancel = true
	testenv.SavePending(t, e, f, "two", `"from the file"`)
	if r := pfResponse(t, c1); !r.Cancelled || r.Answered {
		t.Errorf("one: %+v, want cancelled", r)
	}
	pfe := testdaemon.RecvType(t, w, "pending_file_error", testenv.ClientWait).(socketproto.PendingFileError)
	if pfe.Path != e.Pending || !strings.Contains(pfe.Error, `request "two" is not waiting`) {
		t.Errorf("pending_file_error %+v", pfe)
	}
	testenv.PendingFile(t, e)
}

func TestPendingFileSyntaxErrorThenCorrected(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := testenv.Watch(t, e)
	c := pfAsk(t, e, "req-1", pfName)
	f := testenv.PendingFile(t, e, "req-1")
	good, _ := json.MarshalIndent(f, "", "  ")
	good = bytes.Replace(good, []byte(`"answer": null`), []byte(`"answer": "orders"`), 1)
	bad := bytes.Replace(good, []byte(`"orders"`), []byte(`"orders",`), 1)
	testenv.RenamePending(t, e, bad)
	pfe := testdaemon.RecvType(t, w, "pending_file_error", testenv.ClientWait).(socketproto.PendingFileError)
	rejected := e.Pending + ".rejected"
	if !strings.HasPrefix(pfe.Error, "line ") || !strings.Contains(pfe.Error, ", column ") ||
		!strings.Contains(pfe.Error, "kept as "+rejected) {
		t.Errorf("pending_file_error %+v: want line, column and where the save is kept", pfe)
	}
	if kept, err := os.ReadFile(rejected); err != nil || !bytes.Equal(kept, bad) {
		t.Errorf("%s: %v\n%s", rejected, err, kept)
	}
	// A new request rewrites the file; the user's broken version stays kept.
	pfAsk(t, e, "req-2", pfName)
	testenv.PendingFile(t, e, "req-1", "req-2")
	testenv.RenamePending(t, e, good)
	if r := pfResponse(t, c); r.AnswersByQuestion[pfName.Question] != "orders" {
		t.Errorf("response %+v", r)
	}
	testenv.PendingFile(t, e, "req-2")
	e.StopDaemon() // its log is complete (and safe to read) once it has exited
	if log := e.DaemonLog(); !strings.Contains(log, rejected) {
		t.Errorf("the daemon log does not say where the rejected save is:\n%s", log)
	}
}

func TestPendingFileTruncateThenWriteInPlace(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	c := pfAsk(t, e, "req-1", pfDB)
	f := testenv.PendingFile(t, e, "req-1")
	f.Requests[0].Questions[0].Answer = json.RawMessage(`"MongoDB"`)
	data, _ := json.MarshalIndent(f, "", "  ")
	fh, err := os.OpenFile(e.Pending, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Two writes with a pause, as an editor saving in place may make: the
	// pause is the editor's own timing, played.
	if _, err := fh.Write(data[:len(data)/2]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	if _, err := fh.Write(data[len(data)/2:]); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	if r := pfResponse(t, c); r.AnsweredVia != "file" || r.AnswersByQuestion[pfDB.Question] != "MongoDB" {
		t.Errorf("response %+v", r)
	}
}

// TestPendingFileDirectoryDeleted: the state dir deleted under the daemon is
// made again, and a save into it is still taken in.
//
// The state dir deleted under a running daemon: the next ask writes it
// again, and a save into the new directory is taken in, even one that lands
// before the new directory is watched.
func TestPendingFileDirectoryDeleted(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	c := pfAsk(t, e, "req-1", pfName)
	f := testenv.PendingFile(t, e, "req-1")
	if err := os.RemoveAll(filepath.Dir(e.Pending)); err != nil {
		t.Fatal(err)
	}
	pfAsk(t, e, "req-2", pfName)
	testenv.PendingFile(t, e, "req-1", "req-2")
	testenv.SavePending(t, e, f, "req-1", `"orders"`)
	if r := pfResponse(t, c); r.AnsweredVia != "file" {
		t.Errorf("response %+v", r)
	}
	testenv.PendingFile(t, e, "req-2")
}

// TestPendingFileFollowsWithdrawAndOrphan: a request its agent withdraws, and
// one whose agent went away and never came back within orphan_grace, leave
// the file; a parked one stays, and an orphaned one stays while its agent
// may still come back.
func TestPendingFileFollowsWithdrawAndOrphan(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.WriteConfig("[daemon]\norphan_grace = \"1s\"\n")
	e.StartDaemon()
	w := testenv.Watch(t, e)

	parked := e.Dial()
	wait := false
	if err := parked.Send(socketproto.AskUserRequest{Request: socketproto.Request{RequestID: "parked", Questions: []socketproto.Question{pfName}}, Wait: &wait}); err != nil {
		t.Fatal(err)
	}
	testdaemon.RecvType(t, parked, "ask_user_queued", testenv.ClientWait)
	parked.Close()

	withdrawn := pfAsk(t, e, "withdrawn", pfName)
	orphan := pfAsk(t, e, "orphan", pfName)
	testenv.PendingFile(t, e, "parked", "withdrawn", "orphan")

	if err := withdrawn.Send(socketproto.Cancel{RequestID: "withdrawn"}); err != nil {
		t.Fatal(err)
	}
	testdaemon.RecvType(t, withdrawn, "ok", testenv.ClientWait)
	testenv.PendingFile(t, e, "parked", "orphan")

	orphan.Close()
	for {
		u := testdaemon.RecvType(t, w, "request_updated", testenv.ClientWait).(socketproto.RequestUpdated)
		if u.Request.RequestID == "orphan" && u.Request.Status == socketproto.StatusOrphaned {
			break
		}
	}
	testenv.PendingFile(t, e, "parked", "orphan") // still shown while it may come back
	for {
		r := testdaemon.RecvType(t, w, "request_resolved", testenv.ClientWait).(socketproto.RequestResolved)
		if r.RequestID == "orphan" {
			if r.Outcome != socketproto.OutcomeWithdrawn {
				t.Errorf("orphan: %+v", r)
			}
			break
		}
	}
	testenv.PendingFile(t, e, "parked")
}

// A save that does not parse is reported to panes; the next save that parses
// says the problem is over (an empty error), even when it changes no answer,
// so the pane's notice goes as soon as it is no longer true.
func TestPendingFileErrorIsClearedWhenTheFileParsesAgain(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	pfAsk(t, e, "req-1", pfName)
	testenv.PendingFile(t, e, "req-1")
	w := testenv.Watch(t, e)
	good, err := os.ReadFile(e.Pending)
	if err != nil {
		t.Fatal(err)
	}
	testenv.RenamePending(t, e, good[:len(good)/2])
	bad := testdaemon.RecvType(t, w, "pending_file_error", testenv.ClientWait).(socketproto.PendingFileError)
	if bad.Error == "" || bad.Path != e.Pending {
		t.Fatalf("the broken save was reported as %+v", bad)
	}
	// The user's fixed save: the same requests, laid out another way.
	var fixed bytes.Buffer
	if err := json.Compact(&fixed, good); err != nil {
		t.Fatal(err)
	}
	testenv.RenamePending(t, e, fixed.Bytes())
	if fine := testdaemon.RecvType(t, w, "pending_file_error", testenv.ClientWait).(socketproto.PendingFileError); fine.Error != "" {
		t.Fatalf("after a save that parses: %+v, want an empty error", fine)
	}
}
