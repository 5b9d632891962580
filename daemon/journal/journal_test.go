package journal

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
)

var t0 = time.Date(2026, 11, 21, 21, 0, 0, 0, time.UTC)

func pending(id string, questions ...string) *socketproto.Pending {
	p := &socketproto.Pending{CreatedAt: t0, Status: socketproto.StatusWaiting}
	p.RequestID = id
	p.Agent = &socketproto.Agent{ID: "agent-1", Name: "claude"}
	p.Metadata = json.RawMessage(`{"repo":"askuser"}`)
	for _, q := range questions {
		p.Questions = append(p.Questions, socketproto.Question{Question: q})
	}
	p.Draft = make([]json.RawMessage, len(questions))
	return p
}

func answered(id, q, a string) *socketproto.Response {
	return &socketproto.Response{RequestID: id, Answered: true,
		Answers:           []socketproto.Answer{{Question: q, Answer: socketproto.AnswerValue{Text: a}}},
		AnswersByQuestion: map[string]string{q: a}, AnsweredVia: "pane", AnsweredAt: t0.Add(time.Minute)}
}

type logs struct{ lines []string }

func (l *logs) logf(format string, args ...any) {
	l.lines = append(l.lines, strings.TrimSpace(fmt.Sprintf(format, args...)))
}

func open(t *testing.T, dir string, l *logs, now time.Time) (*Journal, State) {
	t.Helper()
	if l == nil {
		l = &logs{}
	}
	j, st, err := Open(Options{Dir: dir, Logf: l.logf, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Close)
	return j, st
}

func ids(st State) (p, r []string) {
	for _, x := range st.Pending {
		p = append(p, x.Pending.RequestID)
	}
	for _, x := range st.Results {
		r = append(r, x.ID)
	}
	return strings.Fields(strings.Join(p, " ")), strings.Fields(strings.Join(r, " "))
}

// A sequence of records, replayed after a close, gives the live state:
// pending in asked order with their drafts, results with their responses.
func TestReplayGivesTheLiveState(t *testing.T) {
	dir := t.TempDir()
	j, st := open(t, dir, nil, t0)
	if len(st.Pending)+len(st.Results) != 0 {
		t.Fatalf("fresh journal: %+v", st)
	}
	exp := t0.Add(24 * time.Hour)
	j.Append(
		Record{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Which DB?")},
		Record{Op: OpAdd, ID: "b", At: t0, Pending: pending("b", "Name?"), Parked: true},
		Record{Op: OpAdd, ID: "c", At: t0, Pending: pending("c", "Go?")},
		Record{Op: OpDraft, ID: "c", At: t0, Draft: []json.RawMessage{json.RawMessage(`"yes"`)}},
		Record{Op: OpResolve, ID: "a", At: t0, Outcome: "answered", Via: "pane", Response: answered("a", "Which DB?", "SQLite"), Expires: exp},
		Record{Op: OpAdd, ID: "d", At: t0, Pending: pending("d", "Gone?")},
		Record{Op: OpResolve, ID: "d", At: t0, Outcome: "withdrawn", Via: "agent", Expires: exp, Delivered: true},
		Record{Op: OpDelivered, ID: "nobody", At: t0}, // ignored: never seen
	)
	j.Flush()
	j.Close()

	_, st = open(t, dir, nil, t0.Add(time.Hour))
	p, r := ids(st)
	if strings.Join(p, ",") != "b,c" || strings.Join(r, ",") != "a,d" {
		t.Fatalf("pending %v results %v, want b,c and a,d", p, r)
	}
	if !st.Pending[0].Parked || st.Pending[1].Parked {
		t.Errorf("parked flags: %+v", st.Pending)
	}
	if d := st.Pending[1].Pending.Draft; len(d) != 1 || string(d[0]) != `"yes"` {
		t.Errorf("draft of c: %s", d)
	}
	a := st.Results[0]
	if a.Outcome != "answered" || a.Response == nil || a.Response.AnswersByQuestion["Which DB?"] != "SQLite" ||
		!a.Expires.Equal(exp) || a.Delivered || a.Agent == nil || a.Agent.ID != "agent-1" || len(a.Questions) != 1 {
		t.Errorf("result a: %+v", a)
	}
	if d := st.Results[1]; d.Response != nil || !d.Delivered {
		t.Errorf("result d: %+v", d)
	}
}

// Opening compacts: the journal then holds one record per live thing, and
// results past their expiry are gone.
func TestOpenCompactsAndDropsExpiredResults(t *testing.T) {
	dir := t.TempDir()
	j, _ := open(t, dir, nil, t0)
	for i := range 50 {
		id := "r" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		j.Append(Record{Op: OpAdd, ID: id, At: t0, Pending: pending(id, "Q?")},
			Record{Op: OpResolve, ID: id, At: t0, Outcome: "answered", Via: "cli",
				Response: answered(id, "Q?", "x"), Expires: t0.Add(time.Duration(i) * time.Minute)})
	}
	j.Append(Record{Op: OpAdd, ID: "live", At: t0, Pending: pending("live", "Q?")})
	j.Close()

	// At t0+30m the results expiring at 0..30 minutes are gone: 19 stay.
	_, st := open(t, dir, nil, t0.Add(30*time.Minute))
	if len(st.Pending) != 1 || len(st.Results) != 19 {
		t.Fatalf("got %d pending, %d results; want 1 and 19", len(st.Pending), len(st.Results))
	}
	data, err := os.ReadFile(filepath.Join(dir, StateFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != 20 {
		t.Errorf("compacted journal has %d lines, want 20", n)
	}
	if fi, _ := os.Stat(filepath.Join(dir, StateFile)); fi.Mode().Perm() != 0o600 {
		t.Errorf("state.jsonl mode %v, want 0600", fi.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(dir, StateFile+".tmp")); !os.IsNotExist(err) {
		t.Errorf("the compaction's temporary file is left: %v", err)
	}
}

// Compaction while running keeps the same state and shrinks the file.
func TestCompactionWhileRunning(t *testing.T) {
	dir := t.TempDir()
	j, _, err := Open(Options{Dir: dir, CompactBytes: 4 << 10, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		id := "n" + strings.Repeat("x", i%7) + string(rune('A'+i%50))
		j.Append(Record{Op: OpAdd, ID: id, At: t0, Pending: pending(id, "Q?")},
			Record{Op: OpResolve, ID: id, At: t0, Outcome: "withdrawn", Via: "agent", Expires: t0})
		j.Flush()
	}
	j.Append(Record{Op: OpAdd, ID: "stays", At: t0, Pending: pending("stays", "Q?")})
	j.Close()
	fi, err := os.Stat(filepath.Join(dir, StateFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 8<<10 {
		t.Errorf("journal is %d bytes after compactions, want at most 8 KiB", fi.Size())
	}
	_, st := open(t, dir, nil, t0.Add(time.Second))
	if p, r := ids(st); len(p) != 1 || p[0] != "stays" || len(r) != 0 {
		t.Errorf("after compactions: pending %v results %v", p, r)
	}
}

// Damage never stops Open: a torn last line is dropped, garbage lines are
// skipped (the file kept as .corrupt), an unreadable file is moved aside.
func TestDamagedJournalsRecover(t *testing.T) {
	good := func(id string) string {
		b, _ := json.Marshal(Record{Op: OpAdd, ID: id, At: t0, Pending: pending(id, "Q?")})
		return string(b) + "\n"
	}
	for _, tc := range []struct {
		name        string
		content     string
		wantPending string
		wantCorrupt bool
		wantLog     string
	}{
		{"torn tail", good("a") + good("b") + `{"op":"add","id":"c","pend`, "a,b", false, "cut short"},
		{"torn tail after newline-less garbage", good("a") + "\x00\x00\x00", "a", false, "cut short"},
		{"garbage in the middle", good("a") + "this is not json\n" + good("b"), "a,b", true, "skipped 1"},
		{"record for an unknown id", good("a") + `{"op":"resolve","id":"zz","outcome":"answered"}` + "\n", "a", true, "fits nothing"},
		{"unknown op", good("a") + `{"op":"explode","id":"a"}` + "\n", "a", true, "skipped 1"},
		{"empty lines", "\n" + good("a") + "\n\n", "a", false, ""},
		{"all garbage", "{{{{\n]]]]\n", "", true, "skipped 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, StateFile), []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			l := &logs{}
			j, st := open(t, dir, l, t0)
			p, _ := ids(st)
			if strings.Join(p, ",") != tc.wantPending {
				t.Errorf("pending %v, want %s", p, tc.wantPending)
			}
			_, err := os.Stat(filepath.Join(dir, StateFile+".corrupt"))
			if (err == nil) != tc.wantCorrupt {
				t.Errorf(".corrupt kept: %v, want %v", err == nil, tc.wantCorrupt)
			}
			if tc.wantLog != "" && !strings.Contains(strings.Join(l.lines, "\n"), tc.wantLog) {
				t.Errorf("log %q lacks %q", l.lines, tc.wantLog)
			}
			// The journal works on after the damage, and the damage is gone.
			j.Append(Record{Op: OpAdd, ID: "after", At: t0, Pending: pending("after", "Q?")})
			j.Close()
			l2 := &logs{}
			_, st = open(t, dir, l2, t0)
			p, _ = ids(st)
			if want := strings.Trim(tc.wantPending+",after", ","); strings.Join(p, ",") != want {
				t.Errorf("after reopening: %v, want %s", p, want)
			}
			if len(l2.lines) != 0 {
				t.Errorf("a compacted journal still logs damage: %q", l2.lines)
			}
		})
	}
}

func TestUnreadableJournalIsMovedAside(t *testing.T) {
	dir := t.TempDir()
	// A directory where the file belongs cannot be read as a journal.
	if err := os.Mkdir(filepath.Join(dir, StateFile), 0o700); err != nil {
		t.Fatal(err)
	}
	l := &logs{}
	j, st := open(t, dir, l, t0)
	if len(st.Pending) != 0 {
		t.Errorf("state from an unreadable journal: %+v", st)
	}
	if fi, err := os.Stat(filepath.Join(dir, StateFile+".corrupt")); err != nil || !fi.IsDir() {
		t.Errorf("the unreadable journal was not kept aside: %v", err)
	}
	j.Append(Record{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Q?")})
	j.Flush()
	if len(l.lines) == 0 || !strings.Contains(l.lines[0], "moved it to") {
		t.Errorf("log: %q", l.lines)
	}
}

// Every resolve appends one history line with what was asked and answered.
func TestHistoryLines(t *testing.T) {
	dir := t.TempDir()
	j, _ := open(t, dir, nil, t0)
	j.Append(
		Record{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Which DB?")},
		Record{Op: OpAdd, ID: "b", At: t0, Pending: pending("b", "Name?")},
		Record{Op: OpResolve, ID: "a", At: t0.Add(time.Minute), Outcome: "answered", Via: "pane", Response: answered("a", "Which DB?", "SQLite")},
		Record{Op: OpResolve, ID: "b", At: t0.Add(2 * time.Minute), Outcome: "withdrawn", Via: "agent"},
	)
	j.Flush()
	data, err := os.ReadFile(filepath.Join(dir, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("history: %q", data)
	}
	var h HistoryEntry
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil {
		t.Fatal(err)
	}
	if h.RequestID != "a" || h.Outcome != "answered" || h.Via != "pane" || len(h.Questions) != 1 ||
		len(h.Answers) != 1 || h.Answers[0].Answer.Text != "SQLite" || h.Agent.ID != "agent-1" ||
		string(h.Metadata) != `{"repo":"askuser"}` || !h.Time.Equal(t0.Add(time.Minute)) {
		t.Errorf("history entry: %+v", h)
	}
	if !strings.Contains(lines[1], `"answers":[]`) || !strings.Contains(lines[1], `"outcome":"withdrawn"`) {
		t.Errorf("withdrawn entry: %s", lines[1])
	}
	if fi, _ := os.Stat(filepath.Join(dir, HistoryFile)); fi.Mode().Perm() != 0o600 {
		t.Errorf("history mode %v", fi.Mode().Perm())
	}
}

// Append never waits for the writer: records pile up in memory while the
// goroutine is busy, and all of them arrive.
func TestAppendFromManyGoroutines(t *testing.T) {
	dir := t.TempDir()
	j, _ := open(t, dir, nil, t0)
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 100 {
				id := string(rune('a'+g)) + "-" + strings.Repeat("i", i%5) + string(rune('A'+i%26)) + string(rune('A'+i/26))
				j.Append(Record{Op: OpAdd, ID: id, At: t0, Pending: pending(id, "Q?")})
			}
		}()
	}
	for range 8 {
		<-done
	}
	j.Close()
	_, st := open(t, dir, nil, t0)
	if len(st.Pending) != 800 {
		t.Errorf("%d pending after 800 appends", len(st.Pending))
	}
}

// A state dir deleted while the daemon runs comes back whole at the next
// batch: the journal then holds the live state, not a tail of it.
func TestDeletedStateDirIsWrittenWhole(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "askuser")
	j, _ := open(t, dir, nil, t0)
	j.Append(Record{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Q?")})
	j.Flush()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	j.Append(Record{Op: OpAdd, ID: "b", At: t0, Pending: pending("b", "Q?")},
		Record{Op: OpResolve, ID: "a", At: t0, Outcome: "answered", Via: "cli", Response: answered("a", "Q?", "x"), Expires: t0.Add(time.Hour)})
	j.Flush()
	j.Close()
	l := &logs{}
	_, st := open(t, dir, l, t0)
	if p, r := ids(st); strings.Join(p, ",") != "b" || strings.Join(r, ",") != "a" || len(l.lines) != 0 {
		t.Errorf("after the state dir was deleted: pending %v results %v, log %q", p, r, l.lines)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("state dir recreated as %v (%v), want 0700", fi.Mode().Perm(), err)
	}
}
