package pendingfile

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
)

// TestIdentity: the one question asked of every file read — the daemon's
// own, a save already taken in, or a save to take in — and the base a save
// is merged against, in this run and in the next (from the ledger).
func TestIdentity(t *testing.T) {
	h := func(s string) [32]byte { return sha256.Sum256([]byte(s)) }
	r := pending("r", nameQuestion)
	r.Draft = []json.RawMessage{json.RawMessage(`"x"`)}
	drafted := []socketproto.Pending{r, pending("s", nameQuestion)}
	type check struct {
		file       string
		ours, took bool
	}
	for _, tc := range []struct {
		name    string
		steps   func(id *identity)
		restart bool // the checks are made by a new identity from the ledger
		checks  []check
		bases   map[int64][]string // revision → request ids it held; nil: unknown
	}{
		{name: "nothing written: nothing is ours",
			steps:  func(id *identity) {},
			checks: []check{{file: "", ours: false}, {file: "a"}}},
		{name: "the last write is ours, the one before not",
			steps: func(id *identity) {
				id.writing(1, h("one"), [32]byte{}, nil)
				id.wrote(h("one"), fileID{})
				id.writing(2, h("two"), h("one"), drafted)
				id.wrote(h("two"), fileID{})
			},
			checks: []check{{file: "two", ours: true}, {file: "one"}},
			bases:  map[int64][]string{1: {}, 2: {"r", "s"}, 3: nil, 0: nil}},
		{name: "a crash mid-swap: both sides are the previous run's",
			steps: func(id *identity) {
				id.writing(1, h("one"), [32]byte{}, nil)
				id.wrote(h("one"), fileID{})
				id.writing(2, h("two"), h("one"), drafted) // killed before the swap
			},
			restart: true,
			checks:  []check{{file: "one", ours: true}, {file: "two", ours: true}, {file: "user"}},
			bases:   map[int64][]string{2: {"r", "s"}}},
		{name: "a save taken in is known after a restart",
			steps: func(id *identity) {
				id.writing(1, h("one"), [32]byte{}, nil)
				id.wrote(h("one"), fileID{})
				id.take(h("save"))
			},
			restart: true,
			checks:  []check{{file: "save", took: true}, {file: "one", ours: true}, {file: "other"}}},
		{name: "only the last saves are remembered",
			steps: func(id *identity) {
				for i := range maxTaken + 1 {
					id.take(h(itoa(i)))
				}
			},
			checks: []check{{file: "0"}, {file: "1", took: true}, {file: itoa(maxTaken), took: true}}},
		{name: "a request that leaves and comes back is in the revisions that held it",
			steps: func(id *identity) {
				id.writing(1, h("one"), [32]byte{}, drafted)
				id.writing(2, h("two"), [32]byte{}, drafted[1:])
				id.writing(3, h("three"), [32]byte{}, drafted)
			},
			bases: map[int64][]string{1: {"r", "s"}, 2: {"s"}, 3: {"r", "s"}}},
		{name: "the same after a restart",
			steps: func(id *identity) {
				id.writing(1, h("one"), [32]byte{}, drafted)
				id.writing(2, h("two"), [32]byte{}, drafted[1:])
				id.writing(3, h("three"), [32]byte{}, drafted)
			},
			restart: true,
			bases:   map[int64][]string{1: {"r", "s"}, 2: {"s"}, 3: {"r", "s"}}},
		{name: "only the last revisions are kept",
			steps: func(id *identity) {
				for i := range maxBases + 1 {
					id.writing(id.nextRevision(), h(itoa(i)), [32]byte{}, drafted)
				}
			},
			bases: map[int64][]string{1: nil, 2: {"r", "s"}, maxBases + 1: {"r", "s"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pending-questions.json")
			id := newIdentity(path)
			tc.steps(id)
			if tc.restart {
				id = newIdentity(path)
				id.load(0)
			}
			for _, c := range tc.checks {
				hc := h(c.file)
				if c.file == "" {
					hc = [32]byte{}
				}
				if got := id.ours(hc); got != c.ours {
					t.Errorf("ours(%q) = %v, want %v", c.file, got, c.ours)
				}
				if got := id.wasTaken(hc); got != c.took {
					t.Errorf("wasTaken(%q) = %v, want %v", c.file, got, c.took)
				}
			}
			for rev, ids := range tc.bases {
				b := id.baseOf(rev)
				if (b == nil) != (ids == nil) || len(b) != len(ids) {
					t.Errorf("baseOf(%d) = %v, want requests %q", rev, b, ids)
				}
				for _, x := range ids {
					if _, ok := b[x]; !ok {
						t.Errorf("baseOf(%d) lacks %s", rev, x)
					}
				}
				if d, ok := b["r"]; ok && (len(d) != 1 || string(d[0]) != `"x"`) {
					t.Errorf("baseOf(%d) holds r's answers as %q, want the draft written", rev, d)
				}
			}
		})
	}
}

// TestLedgerBeforeHeld: a ledger written before the bases kept which
// requests they held apart from their drafts lists them all in its drafts,
// and is read as it was meant.
func TestLedgerBeforeHeld(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending-questions.json")
	id := newIdentity(path)
	old := `{"revision":3,"ours":[],"bases":[{"revision":2,"drafts":{"r":["x"],"s":null}},{"revision":3,"drafts":{"s":null}}]}`
	if err := os.WriteFile(id.ledgerPath, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	id.load(0)
	for rev, want := range map[int64]string{2: `r:["x"] s:[]`, 3: `s:[]`} {
		if got := describeBase(id.baseOf(rev)); got != want {
			t.Errorf("baseOf(%d) = %s, want %s", rev, got, want)
		}
	}
}

// describeBase lists a base's requests and their drafts, in order.
func describeBase(b map[string][]json.RawMessage) string {
	var out []string
	for reqID, d := range b {
		out = append(out, fmt.Sprintf("%s:%s", reqID, d))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// TestSaveTakenInOnceAcrossACrash: a save taken in, then a newer draft from
// a pane (acknowledged), then the daemon killed before it rewrote the file:
// the next start must not take the save in again over the pane's draft.
func TestSaveTakenInOnceAcrossACrash(t *testing.T) {
	r := newStoppedRig(t)
	r.s.removeLeftovers()
	r.s.id.load(revisionOnDisk(r.path))
	done := r.ask("r", nameQuestion, dbQuestion)
	r.s.write()
	saveVim(t, r.path, answerIn(t, r.read(), "r", `"from file"`))
	r.s.read(false) // taken in; the rewrite that would follow never happens
	r.waitDraft("r", `"from file"`, ``)
	r.paneDraft("r", `"pane"`, ``) // acknowledged, then SIGKILL

	// The next start, on the same queue (the journal's state).
	s := New(Options{Path: r.path, Queue: r.q})
	r.q.changed = s.Changed
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r.fileShows("r", `"pane"`, ``)
	r.stillPending("r", done, `"pane"`, ``)
	r.q.mu.Lock()
	applies := r.q.applies
	r.q.mu.Unlock()
	if applies != 1 {
		t.Errorf("the save was taken in %d times", applies)
	}
}

// With its ledger lost, the daemon numbers revisions from the clock: a
// buffer loaded before the loss (revision 5, say) never names a revision
// given again to other contents, which would make its merge base wrong.
func TestRevisionsAfterALostLedgerAreNew(t *testing.T) {
	id := newIdentity(filepath.Join(t.TempDir(), "pending-questions.json"))
	before := time.Now().UnixMilli()
	id.load(5)
	if next := id.nextRevision(); next <= before {
		t.Errorf("next revision %d after a lost ledger; want one above %d", next, before)
	}
}
