package tests

import (
	"encoding/json"
	"fmt"
	"testing"

	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// Found by the crash loop (bench/crashloop, "not given"): an editor buffer
// loaded from a revision the daemon no longer remembers (it keeps 32 while
// it runs, 8 across a restart) was merged against the newest state, so the
// drafts the daemon itself had written into that buffer, changed since,
// counted as the user's edits, and a one-question request was sent with an
// old draft as its answer. docs/contract.md §5: drafts are never a submission by
// themselves. Now the daemon remembers every answer it wrote into the file
// for each pending request (in the ledger too), and such a save takes only
// what it never wrote: the user answered s, and only s is sent.
func TestPendingFileStaleBufferSendsNoOldDraft(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		restart  bool
		rewrites int
	}{
		{"40 rewrites since the buffer was loaded", false, 40},
		{"9 rewrites since, then a restart", true, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := NewEnv(t)
			e.StartDaemon()
			a := testdaemon.DialRaw(t, e.Socket)
			for _, id := range []string{"r", "s"} {
				a.Send(`{"type":"ask_user_request","requestId":"` + id + `","wait":false,"questions":[` +
					`{"question":"Which database?","options":[{"label":"PostgreSQL"},{"label":"SQLite"}]}]}` + "\n")
				a.Expect("ask_user_queued requestId=" + id)
			}
			var p *testdaemon.Raw
			draft := func(v string) {
				p.Send(`{"type":"draft","requestId":"r","index":0,"answer":"` + v + `","via":"pane"}` + "\n")
				p.Expect("ok requestId=r")
				testenv.FileHas(t, e.Pending, `"answer": "`+v+`"`) // one rewrite each
			}

			// A pane drafts r; the user's editor loads the file, the
			// pane's draft in it.
			p = testdaemon.DialRaw(t, e.Socket)
			draft("draft-0")
			buffer := testenv.PendingFile(t, e, "r", "s")
			// The user goes on choosing in the pane; the file is
			// rewritten each time.
			last := ""
			for i := 1; i <= tc.rewrites; i++ {
				last = fmt.Sprintf("draft-%d", i)
				draft(last)
			}
			if tc.restart {
				e.KillDaemon()
				e.StartDaemon()
				a = testdaemon.DialRaw(t, e.Socket)
			}

			// The user answers s in the old buffer and saves it.
			testenv.SavePending(t, e, buffer, "s", `"SQLite"`)
			a.Send(`{"type":"wait","requestId":"s"}` + "\n")
			a.Expect("ask_user_response requestId=s answered=true answeredVia=file answers.0.answer=SQLite")

			// r was not answered by anyone: it must still be pending,
			// with the pane's newest draft.
			for _, got := range clientList(t, e) {
				if got.RequestID == "r" {
					if len(got.Draft) != 1 || string(got.Draft[0]) != fmt.Sprintf("%q", last) {
						t.Errorf("r's draft is %s, want [%q]", got.Draft, last)
					}
					return
				}
			}
			a.Send(`{"type":"wait","requestId":"r"}` + "\n")
			res, _ := json.Marshal(a.Until("ask_user_response"))
			t.Fatalf("r was resolved, though the save only answered s: %s", res)
		})
	}
}
