package tests

import (
	"fmt"
	"testing"

	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// The draft message of docs/contract.md §4 through the real daemon: an answer given so
// far reaches every subscriber and the pending file, a bad index or answer is
// refused naming the field, null clears it, and it outlives the daemon.
func TestDraftMessage(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	a := testdaemon.DialRaw(t, e.Socket)
	a.Send(`{"type":"ask_user_request","requestId":"d1","wait":false,"questions":[` +
		`{"question":"Which database?","options":[{"label":"PostgreSQL"},{"label":"SQLite"}]},` +
		`{"question":"Name?"}]}` + "\n")
	a.Expect("ask_user_queued requestId=d1")
	w := testdaemon.DialRaw(t, e.Socket)
	w.Send(`{"type":"subscribe","role":"watch"}` + "\n")
	w.Expect("snapshot")

	p := testdaemon.DialRaw(t, e.Socket)
	p.Send(`{"type":"draft","requestId":"d1","index":0,"answer":{"selected":["SQLite"],"notes":"small"},"via":"pane"}` + "\n")
	p.Expect("ok requestId=d1")
	w.Expect(`request_updated request.requestId=d1 request.draft.0.selected.0=SQLite request.draft.0.notes=small request.draft.1=null`)
	testenv.FileHas(t, e.Pending, `"notes": "small"`)

	p.Send(`{"type":"draft","requestId":"d1","index":2,"answer":"x"}` + "\n")
	p.Expect("error code=invalid_answer field=index requestId=d1")
	p.Send(`{"type":"draft","requestId":"d1","index":0,"answer":{"selected":["Oracle"]}}` + "\n")
	m := p.Expect("error code=invalid_answer field=answer requestId=d1")
	if msg, _ := m["message"].(string); msg != `answer: question 0: selected[0]: "Oracle" is not an option of this question` {
		t.Errorf("message %q", msg)
	}
	p.Send(`{"type":"draft","requestId":"nope","index":0,"answer":null}` + "\n")
	p.Expect("error code=not_found requestId=nope")

	p.Send(`{"type":"draft","requestId":"d1","index":0,"answer":null}` + "\n")
	p.Expect("ok requestId=d1")
	w.Expect(`request_updated request.draft.0=null request.draft.1=null`)
	p.Send(`{"type":"draft","requestId":"d1","index":1,"answer":"billing"}` + "\n")
	p.Expect("ok requestId=d1")
	w.Expect(`request_updated request.draft.0=null request.draft.1=billing`)

	// The ok came after the journal write: a crash at once loses nothing,
	// even if the pending file has not caught up (the file the previous
	// daemon wrote is not read back as the user's save).
	e.KillDaemon()
	e.StartDaemon()
	got := testenv.ListedAs(t, e, "d1", "parked")
	if len(got.Draft) != 2 || string(got.Draft[0]) != "null" || string(got.Draft[1]) != `"billing"` {
		t.Fatalf("draft after a restart: %s", got.Draft)
	}
}

// An acknowledged draft survives a SIGKILL the instant after its ok, however
// far behind the pending file is: twenty times over.
func TestDraftAcknowledgedThenKilled(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	a := testdaemon.DialRaw(t, e.Socket)
	a.Send(`{"type":"ask_user_request","requestId":"d1","wait":false,"questions":[{"question":"Name?"},{"question":"Owner?"}]}` + "\n")
	a.Expect("ask_user_queued requestId=d1")
	for i := range 20 {
		p := testdaemon.DialRaw(t, e.Socket)
		p.Send(fmt.Sprintf(`{"type":"draft","requestId":"d1","index":%d,"answer":"v%d"}`, i%2, i) + "\n")
		p.Expect("ok requestId=d1")
		e.KillDaemon()
		e.StartDaemon()
		got := testenv.ListedAs(t, e, "d1", "parked")
		t.Logf("round %d log: %s", i, e.DaemonLog())
		if want := fmt.Sprintf(`"v%d"`, i); string(got.Draft[i%2]) != want {
			t.Fatalf("round %d: draft after a restart %s, want %s at %d", i, got.Draft, want, i%2)
		}
	}
}

// Boxes of a multi-select question checked in a pane and not confirmed are
// kept as the draft's "checked", beside the answer and never part of it
// (docs/contract.md §4, §6), so that every pane shows the same boxes.
func TestDraftKeepsUnconfirmedChecks(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	a := testdaemon.DialRaw(t, e.Socket)
	a.Send(`{"type":"ask_user_request","requestId":"c1","wait":false,"questions":[` +
		`{"question":"Which features?","multiSelect":true,"options":[{"label":"Auth"},{"label":"API"}]}]}` + "\n")
	a.Expect("ask_user_queued requestId=c1")
	w := testdaemon.DialRaw(t, e.Socket)
	w.Send(`{"type":"subscribe","role":"watch"}` + "\n")
	w.Expect("snapshot")

	p := testdaemon.DialRaw(t, e.Socket)
	p.Send(`{"type":"draft","requestId":"c1","index":0,"answer":{"checked":["Auth"]},"via":"pane"}` + "\n")
	p.Expect("ok requestId=c1")
	w.Expect(`request_updated request.requestId=c1 request.draft.0.checked.0=Auth`)
	p.Send(`{"type":"draft","requestId":"c1","index":0,"answer":{"checked":[1]},"via":"pane"}` + "\n")
	p.Expect("error requestId=c1 code=invalid_answer")
	// They are no answer: an answer holding only them is refused.
	p.Send(`{"type":"answer","requestId":"c1","answers":[{"checked":["Auth"]}],"via":"pane"}` + "\n")
	p.Expect("error requestId=c1 code=invalid_answer")
}
