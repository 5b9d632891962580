package tests

import (
	"testing"
)

// The draft message of SPEC §4 through the real daemon: an answer given so
// far reaches every subscriber and the pending file, a bad index or answer is
// refused naming the field, null clears it, and it outlives the daemon.
func TestDraftMessage(t *testing.T) {
	e := NewEnv(t)
	e.StartDaemon()
	a := dmDial(t, e)
	a.send(`{"type":"ask_user_request","requestId":"d1","wait":false,"questions":[` +
		`{"question":"Which database?","options":[{"label":"PostgreSQL"},{"label":"SQLite"}]},` +
		`{"question":"Name?"}]}` + "\n")
	a.expect("ask_user_queued requestId=d1")
	w := dmDial(t, e)
	w.send(`{"type":"subscribe","role":"watch"}` + "\n")
	w.expect("snapshot")

	p := dmDial(t, e)
	p.send(`{"type":"draft","requestId":"d1","index":0,"answer":{"selected":["SQLite"],"notes":"small"},"via":"pane"}` + "\n")
	p.expect("ok requestId=d1")
	w.expect(`request_updated request.requestId=d1 request.draft.0.selected.0=SQLite request.draft.0.notes=small request.draft.1=null`)
	fileHas(t, e.Pending, `"notes": "small"`)

	p.send(`{"type":"draft","requestId":"d1","index":2,"answer":"x"}` + "\n")
	p.expect("error code=invalid_answer field=index requestId=d1")
	p.send(`{"type":"draft","requestId":"d1","index":0,"answer":{"selected":["Oracle"]}}` + "\n")
	m := p.expect("error code=invalid_answer field=answer requestId=d1")
	if msg, _ := m["message"].(string); msg != `answer: question 0: selected[0]: "Oracle" is not an option of this question` {
		t.Errorf("message %q", msg)
	}
	p.send(`{"type":"draft","requestId":"nope","index":0,"answer":null}` + "\n")
	p.expect("error code=not_found requestId=nope")

	p.send(`{"type":"draft","requestId":"d1","index":0,"answer":null}` + "\n")
	p.expect("ok requestId=d1")
	w.expect(`request_updated request.draft.0=null request.draft.1=null`)
	p.send(`{"type":"draft","requestId":"d1","index":1,"answer":"billing"}` + "\n")
	p.expect("ok requestId=d1")
	w.expect(`request_updated request.draft.0=null request.draft.1=billing`)

	// The last draft is in the journal and in the pending file (which the
	// daemon reads at start as the user's) before the crash.
	journaled(t, e, "billing")
	fileHas(t, e.Pending, `"answer": "billing"`)
	e.killDaemon()
	e.StartDaemon()
	got := listedAs(t, e, "d1", "parked")
	if len(got.Draft) != 2 || string(got.Draft[0]) != "null" || string(got.Draft[1]) != `"billing"` {
		t.Fatalf("draft after a restart: %s", got.Draft)
	}
}
