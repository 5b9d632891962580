package journal

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"askuser/internal/history"
	"askuser/socketproto"
	"askuser/tests/skips"
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

type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, strings.TrimSpace(fmt.Sprintf(format, args...)))
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// rig is a journal with a stand-in for the queue: the live state the
// records add up to, which is what Snapshot hands compaction.
type rig struct {
	*Journal
	live *model
	log  *logs
	now  time.Time
}

func open(t *testing.T, dir string, now time.Time, tweak ...func(*Options)) (*rig, State) {
	t.Helper()
	r := &rig{live: newModel(), log: &logs{}, now: now}
	opts := Options{Dir: dir, Logf: r.log.logf, Now: func() time.Time { return r.now },
		Snapshot: func() []Record { return r.snapshot() }}
	for _, f := range tweak {
		f(&opts)
	}
	j, st := Open(opts)
	r.Journal = j
	for _, p := range st.Pending {
		pp := p.Pending
		r.live.apply(Record{Op: OpAdd, ID: pp.RequestID, Pending: &pp, Parked: p.Parked})
	}
	for _, res := range st.Results {
		asked := res.Asked
		r.live.apply(Record{Op: OpResult, ID: res.ID, Pending: &asked, Outcome: res.Outcome, Via: res.Via,
			Response: res.Response, Expires: res.Expires, Delivered: res.Delivered})
	}
	if err := j.Compact(); err != nil {
		t.Logf("compact at open: %v", err)
	}
	t.Cleanup(j.Close)
	return r, st
}

func (r *rig) snapshot() []Record {
	st := r.live.state(r.now)
	var recs []Record
	for _, p := range st.Pending {
		pp := p.Pending
		recs = append(recs, Record{Op: OpAdd, ID: pp.RequestID, At: r.now, Pending: &pp, Parked: p.Parked})
	}
	for _, res := range st.Results {
		asked := res.Asked
		recs = append(recs, Record{Op: OpResult, ID: res.ID, At: r.now, Pending: &asked, Outcome: res.Outcome,
			Via: res.Via, Response: res.Response, Expires: res.Expires, Delivered: res.Delivered})
	}
	return recs
}

// write is what the queue does: journal first, then the change.
func (r *rig) write(t *testing.T, recs ...Record) {
	t.Helper()
	var hist []history.Entry
	for _, rec := range recs {
		if rec.Op == OpResolve {
			if p := r.live.pending[rec.ID]; p != nil {
				hist = append(hist, HistoryOf(&p.Pending, rec))
			}
		}
	}
	if err := r.Write(recs, hist...); err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		r.live.apply(rec)
	}
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

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// A sequence of records, replayed after a close, gives the live state:
// pending in asked order with their drafts, results with their responses.
func TestReplayGivesTheLiveState(t *testing.T) {
	dir := t.TempDir()
	j, _ := open(t, dir, t0)
	exp := t0.Add(24 * time.Hour)
	j.write(t, Record{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Q1?", "Q2?")})
	j.write(t, Record{Op: OpAdd, ID: "b", At: t0, Pending: pending("b", "Q?"), Parked: true})
	j.write(t, Record{Op: OpDraft, ID: "a", At: t0, Draft: []json.RawMessage{json.RawMessage(`"x"`), nil}})
	j.write(t, Record{Op: OpAdd, ID: "c", At: t0, Pending: pending("c", "Q?")})
	j.write(t, Record{Op: OpResolve, ID: "c", At: t0, Outcome: "answered", Via: "pane", Response: answered("c", "Q?", "yes"), Expires: exp})
	j.write(t, Record{Op: OpDelivered, ID: "c", At: t0})
	j.Close()

	_, st := open(t, dir, t0.Add(time.Hour))
	p, r := ids(st)
	if strings.Join(p, ",") != "a,b" || strings.Join(r, ",") != "c" {
		t.Fatalf("pending %v results %v", p, r)
	}
	if string(st.Pending[0].Pending.Draft[0]) != `"x"` || !st.Pending[1].Parked {
		t.Errorf("pending: %+v", st.Pending)
	}
	if res := st.Results[0]; !res.Delivered || res.Response.Answers[0].Answer.Text != "yes" ||
		res.Asked.Questions[0].Question != "Q?" || res.Asked.Agent.ID != "agent-1" {
		t.Errorf("result: %+v", res)
	}
}

// A resolve record whose response comes already encoded (ResponseJSON, the
// bytes the daemon also sends the agent) is the same line as one encoded
// here, and replays to the same response.
func TestResponseWrittenFromItsJSON(t *testing.T) {
	resp := answered("c", "Q?", "yes")
	body, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	rec := Record{Op: OpResolve, ID: "c", At: t0, Outcome: "answered", Via: "pane", Response: resp, Expires: t0.Add(time.Hour)}
	plain, err := encodeRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	rec.ResponseJSON = body
	spliced, err := encodeRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	var a, b Record
	var lr lineReader
	if r, problem, _ := lr.decode(spliced); problem != "" {
		t.Fatalf("the spliced line does not read back: %s\n%s", problem, spliced)
	} else {
		b = r
	}
	lr = lineReader{}
	a, _, _ = lr.decode(plain)
	if !reflect.DeepEqual(a, b) || b.Response.Answers[0].Answer.Text != "yes" {
		t.Errorf("read back differently:\n%+v\n%+v", a, b)
	}

	dir := t.TempDir()
	j, _ := open(t, dir, t0)
	j.write(t, Record{Op: OpAdd, ID: "c", At: t0, Pending: pending("c", "Q?")})
	j.write(t, rec)
	j.Close()
	_, st := open(t, dir, t0.Add(time.Minute))
	if len(st.Results) != 1 || !reflect.DeepEqual(st.Results[0].Response, resp) {
		t.Errorf("replayed result: %+v", st.Results)
	}
}

// An add record whose request comes already encoded (PendingJSON, the
// bytes the daemon also sends the panes) replays as one encoded here.
func TestPendingWrittenFromItsJSON(t *testing.T) {
	p := pending("a", "Q1?", "Q2?")
	body, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	replayed := func(rec Record) State {
		dir := t.TempDir()
		j, _ := open(t, dir, t0)
		j.write(t, rec)
		j.Close()
		_, st := open(t, dir, t0.Add(time.Minute))
		return st
	}
	rec := Record{Op: OpAdd, ID: "a", At: t0, Pending: p, Parked: true}
	plain := replayed(rec)
	rec.PendingJSON = body
	spliced := replayed(rec)
	if len(spliced.Pending) != 1 || !reflect.DeepEqual(plain, spliced) || !spliced.Pending[0].Parked {
		t.Errorf("replayed:\n%+v\nwant\n%+v", spliced, plain)
	}
}

// Write returns only once its record is in the file: a crash of the process
// right after (nothing flushed, nothing closed) loses nothing.
func TestWriteIsInTheFileWhenItReturns(t *testing.T) {
	dir := t.TempDir()
	j, _ := open(t, dir, t0)
	for i := range 50 {
		id := fmt.Sprintf("r%d", i)
		j.write(t, Record{Op: OpAdd, ID: id, At: t0, Pending: pending(id, "Q?")})
		if got := read(t, filepath.Join(dir, StateFile)); !strings.Contains(got, `"id":"`+id+`"`) {
			t.Fatalf("after Write(%s) the file lacks it:\n%s", id, got)
		}
	}
	// Another reader sees the same without Close: replay a copy.
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, StateFile), []byte(read(t, filepath.Join(dir, StateFile))), 0o600); err != nil {
		t.Fatal(err)
	}
	_, st := open(t, other, t0)
	if p, _ := ids(st); len(p) != 50 {
		t.Fatalf("replayed %d of 50", len(p))
	}
}

// Open drops results past their expiry; compaction writes a mark and the
// live state only.
func TestOpenCompactsAndDropsExpiredResults(t *testing.T) {
	dir := t.TempDir()
	j, _ := open(t, dir, t0)
	for i, exp := range []time.Duration{time.Hour, 48 * time.Hour} {
		id := fmt.Sprintf("r%d", i)
		j.write(t, Record{Op: OpAdd, ID: id, At: t0, Pending: pending(id, "Q?")})
		j.write(t, Record{Op: OpResolve, ID: id, At: t0, Outcome: "answered", Response: answered(id, "Q?", "y"), Expires: t0.Add(exp)})
	}
	j.write(t, Record{Op: OpAdd, ID: "live", At: t0, Pending: pending("live", "Q?")})
	j.Close()

	j2, st := open(t, dir, t0.Add(2*time.Hour))
	p, r := ids(st)
	if strings.Join(p, ",") != "live" || strings.Join(r, ",") != "r1" {
		t.Fatalf("pending %v results %v", p, r)
	}
	lines := strings.Split(strings.TrimSpace(read(t, filepath.Join(dir, StateFile))), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"op":"mark"`) {
		t.Fatalf("compacted journal:\n%s", strings.Join(lines, "\n"))
	}
	j2.Close()
}

// Past CompactBytes the journal is rewritten at a commit; the state is the same.
func TestCompactionWhileRunning(t *testing.T) {
	dir := t.TempDir()
	j, _ := open(t, dir, t0, func(o *Options) { o.CompactBytes = 4 << 10 })
	for i := range 200 {
		id := fmt.Sprintf("r%d", i)
		j.write(t, Record{Op: OpAdd, ID: id, At: t0, Pending: pending(id, "Q?")})
		j.write(t, Record{Op: OpResolve, ID: id, At: t0, Outcome: "withdrawn", Expires: t0.Add(-time.Hour)})
		if err := j.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	j.write(t, Record{Op: OpAdd, ID: "stays", At: t0, Pending: pending("stays", "Q?")})
	j.Close()
	if fi, _ := os.Stat(filepath.Join(dir, StateFile)); fi.Size() > 16<<10 {
		t.Errorf("journal is %d bytes; compaction did not run", fi.Size())
	}
	_, st := open(t, dir, t0)
	if p, r := ids(st); strings.Join(p, ",") != "stays" || len(r) != 0 {
		t.Fatalf("pending %v results %v", p, r)
	}
	if n := strings.Count(read(t, filepath.Join(dir, history.File)), "\n"); n != 200 {
		t.Errorf("history has %d lines, want 200", n)
	}
}

// Damage is skipped, what is readable is restored, and the damaged file is
// kept aside. A line far longer than any record is skipped without being
// held in memory; a record that names another request than its id (a ghost
// nobody could answer) is skipped too.
func TestDamagedJournalsRecover(t *testing.T) {
	good := func(id string) string {
		b, _ := json.Marshal(Record{Op: OpAdd, ID: id, At: t0, Pending: pending(id, "Q?")})
		return string(b) + "\n"
	}
	ghost, _ := json.Marshal(Record{Op: OpAdd, ID: "ghost", At: t0, Pending: pending("other", "Q?")})
	cases := []struct {
		name, text string
		want       string
		corrupt    bool
	}{
		{"torn last line", good("a") + good("b") + `{"op":"add","id":"c","pend`, "a,b", false},
		{"garbage in the middle", good("a") + "not json\n" + good("b"), "a,b", true},
		{"ghost record", good("a") + string(ghost) + "\n" + good("b"), "a,b", true},
		{"resolve of nothing", good("a") + `{"op":"resolve","id":"zz","at":"2026-11-21T21:00:00Z"}` + "\n", "a", true},
		{"a line longer than any record", good("a") + strings.Repeat("x", 3<<20) + "\n" + good("b"), "a,b", true},
		{"a long last line without newline", good("a") + strings.Repeat("x", 3<<20), "a", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, StateFile), []byte(c.text), 0o600); err != nil {
				t.Fatal(err)
			}
			j, st := open(t, dir, t0, func(o *Options) { o.MaxRecordBytes = 1 << 20 })
			if p, _ := ids(st); strings.Join(p, ",") != c.want {
				t.Fatalf("pending %v, want %s; log:\n%s", p, c.want, j.log)
			}
			_, err := os.Stat(filepath.Join(dir, StateFile+".corrupt"))
			if (err == nil) != c.corrupt {
				t.Errorf(".corrupt kept: %v, want %v; log:\n%s", err == nil, c.corrupt, j.log)
			}
			// The journal goes on: a new record and a restart keep everything.
			j.write(t, Record{Op: OpAdd, ID: "after", At: t0, Pending: pending("after", "Q?")})
			j.Close()
			_, st = open(t, dir, t0)
			if p, _ := ids(st); strings.Join(p, ",") != c.want+",after" {
				t.Fatalf("after a restart pending %v", p)
			}
		})
	}
}

// history.jsonl gets one line per resolution, with what was asked.
func TestHistoryLines(t *testing.T) {
	dir := t.TempDir()
	j, _ := open(t, dir, t0)
	j.write(t, Record{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Which DB?")})
	j.write(t, Record{Op: OpResolve, ID: "a", At: t0.Add(time.Minute), Outcome: "answered", Via: "pane",
		Response: answered("a", "Which DB?", "SQLite"), Expires: t0.Add(time.Hour)})
	if got := read(t, filepath.Join(dir, history.File)); got != "" {
		t.Errorf("history appended before the group's end: %s", got)
	}
	// The group's entries are appended together, as it ends.
	if err := j.Commit(); err != nil {
		t.Fatal(err)
	}
	var h history.Entry
	if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, history.File))), &h); err != nil {
		t.Fatal(err)
	}
	if h.RequestID != "a" || h.Outcome != "answered" || h.Via != "pane" || h.Answers[0].Answer.Text != "SQLite" ||
		h.Questions[0].Question != "Which DB?" || h.Agent.ID != "agent-1" || string(h.Metadata) != `{"repo":"askuser"}` {
		t.Errorf("history entry: %+v", h)
	}
}

// A crash between the journal's resolve record and its history line: the
// next start writes the line, once, however often it starts.
func TestHistoryIsRebuiltAfterACrashBetweenTheAppends(t *testing.T) {
	dir := t.TempDir()
	j, _ := open(t, dir, t0)
	j.write(t, Record{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Q?")})
	j.write(t, Record{Op: OpResolve, ID: "a", At: t0, Outcome: "answered", Response: answered("a", "Q?", "y"), Expires: t0.Add(time.Hour)})
	j.write(t, Record{Op: OpAdd, ID: "b", At: t0, Pending: pending("b", "Q?")})
	j.Close()
	// The crash: b's resolve record made it, its history line did not.
	rec, _ := encodeRecord(Record{Op: OpResolve, ID: "b", At: t0, Outcome: "cancelled", Via: "cli", Expires: t0.Add(time.Hour)})
	f, _ := os.OpenFile(filepath.Join(dir, StateFile), os.O_APPEND|os.O_WRONLY, 0)
	f.Write(rec)
	f.Close()
	for range 3 {
		j, _ := open(t, dir, t0)
		j.Close()
	}
	hist := read(t, filepath.Join(dir, history.File))
	if strings.Count(hist, `"requestId":"a"`) != 1 || strings.Count(hist, `"requestId":"b"`) != 1 {
		t.Fatalf("history:\n%s", hist)
	}
}

// A FIFO or a directory at the journal's path is left alone: opening does not
// block, nothing is renamed away, and every write says why it cannot be kept.
func TestNonRegularFilesAreLeftAlone(t *testing.T) {
	for _, kind := range []string{"fifo", "dir", "symlink"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, StateFile)
			switch kind {
			case "fifo":
				if err := syscall.Mkfifo(path, 0o600); err != nil {
					t.Fatal(err)
				}
			case "dir":
				os.Mkdir(path, 0o700)
			case "symlink":
				os.WriteFile(filepath.Join(dir, "elsewhere"), nil, 0o600)
				os.Symlink(filepath.Join(dir, "elsewhere"), path)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				j, _ := open(t, dir, t0)
				err := j.Write([]Record{{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Q?")}})
				if err == nil || !strings.Contains(err.Error(), StateFile) {
					t.Errorf("Write = %v, want an error naming the journal", err)
				}
				j.Close()
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the journal blocked on a " + kind)
			}
			fi, err := os.Lstat(path)
			if err != nil || fi.Mode().IsRegular() {
				t.Fatalf("the %s at %s was replaced (%v)", kind, path, err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 3 {
				t.Errorf("files left in the state dir: %v", entries)
			}
		})
	}
}

// A temporary file of a compaction cut short is removed at start.
func TestLeftoverTemporaryFileIsRemoved(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, StateFile+tmpSuffix), []byte("half a compaction"), 0o600)
	j, _ := open(t, dir, t0)
	j.Close()
	if _, err := os.Stat(filepath.Join(dir, StateFile+tmpSuffix)); !os.IsNotExist(err) {
		t.Fatalf("leftover still there: %v", err)
	}
}

// The state dir deleted under a running journal: the next write puts the
// whole live state back, not only the records since.
func TestDeletedStateDirIsWrittenWhole(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	j, _ := open(t, dir, t0)
	j.write(t, Record{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Q?")})
	j.Commit()
	os.RemoveAll(dir)
	j.write(t, Record{Op: OpAdd, ID: "b", At: t0, Pending: pending("b", "Q?")})
	j.Close()
	_, st := open(t, dir, t0)
	if p, _ := ids(st); strings.Join(p, ",") != "a,b" {
		t.Fatalf("pending %v", p)
	}
}

// The state dir deleted in the middle of a group of writes: the journal
// looks at its file once per group, so the group's later records go to the
// deleted file, and the next group's first write puts the whole live state
// back, those records with it.
func TestStateDirDeletedWithinAGroup(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	j, _ := open(t, dir, t0)
	j.write(t, Record{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Q?")})
	os.RemoveAll(dir)
	j.write(t, Record{Op: OpAdd, ID: "b", At: t0, Pending: pending("b", "Q?")})
	j.Commit()
	j.write(t, Record{Op: OpAdd, ID: "c", At: t0, Pending: pending("c", "Q?")})
	j.Close()
	_, st := open(t, dir, t0)
	if p, _ := ids(st); strings.Join(p, ",") != "a,b,c" {
		t.Fatalf("pending %v", p)
	}
}

// A full state dir refuses the write and leaves no partial record behind;
// once there is room again, writing goes on and a restart has everything
// that was accepted and nothing that was refused. Needs root (tmpfs).
func TestFullStateDir(t *testing.T) {
	dir := tmpfs(t, "64k")
	filler := filepath.Join(dir, "filler")
	if err := os.WriteFile(filler, make([]byte, 16<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	j, _ := open(t, dir, t0)
	big := strings.Repeat("x", 900)
	accepted := 0
	var refused error
	for i := 0; i < 1000 && refused == nil; i++ {
		id := fmt.Sprintf("r%d", i)
		p := pending(id, "Q "+big+"?")
		if refused = j.Write([]Record{{Op: OpAdd, ID: id, At: t0, Pending: p}}); refused == nil {
			j.live.apply(Record{Op: OpAdd, ID: id, Pending: p})
			accepted++
		}
	}
	if refused == nil || !strings.Contains(refused.Error(), "no space left") {
		t.Fatalf("after %d records: %v", accepted, refused)
	}
	// Make room (as a user deleting a big file would); writing goes on.
	os.Remove(filler)
	j.write(t, Record{Op: OpResolve, ID: "r0", At: t0, Outcome: "withdrawn", Expires: t0.Add(time.Hour)})
	j.Close()
	_, st := open(t, dir, t0)
	if p, r := ids(st); len(p) != accepted-1 || len(r) != 1 {
		t.Fatalf("after a restart: %d pending, %d results; accepted %d", len(p), len(r), accepted)
	}
}

// A state dir that is read-only at start with a readable journal: what it
// holds is restored, every write is refused (so nothing is answered that
// could come back), and once it is writable again the journal goes on.
func TestReadOnlyStateDirStillRestores(t *testing.T) {
	dir := tmpfs(t, "1m")
	j, _ := open(t, dir, t0)
	j.write(t, Record{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Q?")})
	j.Close()
	remount(t, dir, "ro")
	j, st := open(t, dir, t0)
	if p, _ := ids(st); strings.Join(p, ",") != "a" {
		t.Fatalf("restored %v from a read-only state dir", p)
	}
	err := j.Write([]Record{{Op: OpResolve, ID: "a", At: t0, Outcome: "cancelled", Expires: t0.Add(time.Hour)}})
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("Write on a read-only state dir: %v", err)
	}
	remount(t, dir, "rw")
	j.write(t, Record{Op: OpResolve, ID: "a", At: t0, Outcome: "cancelled", Expires: t0.Add(time.Hour)})
	j.Close()
	_, st = open(t, dir, t0)
	if p, r := ids(st); len(p) != 0 || strings.Join(r, ",") != "a" {
		t.Fatalf("after a restart: pending %v results %v", p, r)
	}
	if n := strings.Count(read(t, filepath.Join(dir, history.File)), `"requestId":"a"`); n != 1 {
		t.Errorf("history has a %d times", n)
	}
}

func remount(t *testing.T, dir, mode string) {
	t.Helper()
	if out, err := exec.Command("mount", "-o", "remount,"+mode, dir).CombinedOutput(); err != nil {
		t.Fatalf("remount %s: %v %s", mode, err, out)
	}
}

// tmpfs mounts a small tmpfs for the test, or skips saying why.
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		skips.Skipf(t, "a full disk is simulated with a small tmpfs, and mounting one failed (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}
