package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"askuser/internal/history"
)

// resolveN adds and answers requests ids, each with its history line.
func (r *rig) resolveN(t *testing.T, ids ...string) {
	t.Helper()
	for _, id := range ids {
		r.write(t, Record{Op: OpAdd, ID: id, At: t0, Pending: pending(id, "Q?")})
		r.write(t, Record{Op: OpResolve, ID: id, At: t0, Outcome: "answered", Via: "pane",
			Response: answered(id, "Q?", "answer of "+id), Expires: t0.Add(24 * time.Hour)})
	}
}

// historyCounts reads history.jsonl as `askuser-client history` does and
// counts each request id; unreadable lines are counted under "".
func historyCounts(t *testing.T, dir string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, line := range strings.Split(read(t, filepath.Join(dir, history.File)), "\n") {
		if line == "" {
			continue
		}
		var h history.Entry
		if json.Unmarshal([]byte(line), &h) != nil || h.RequestID == "" {
			counts[""]++
			continue
		}
		counts[h.RequestID]++
	}
	return counts
}

// wantOnce fails unless every id is in history.jsonl exactly once and no
// line is unreadable.
func wantOnce(t *testing.T, dir string, ids ...string) {
	t.Helper()
	counts := historyCounts(t, dir)
	for _, id := range ids {
		if counts[id] != 1 {
			t.Errorf("%s is %d times in history.jsonl", id, counts[id])
		}
		delete(counts, id)
	}
	if len(counts) > 0 {
		t.Errorf("history.jsonl has more than it should (\"\": unreadable lines): %v\n%s", counts, read(t, filepath.Join(dir, history.File)))
	}
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// A torn last line in history.jsonl, by a crash or by hand, never swallows
// what follows: after it, more resolutions and two restarts, every resolved
// request is readable exactly once.
func TestHistoryTornTail(t *testing.T) {
	cases := []struct {
		name string
		tear func(t *testing.T, path string)
	}{
		{"cut mid-line", func(t *testing.T, path string) {
			fi, _ := os.Stat(path)
			if err := os.Truncate(path, fi.Size()-20); err != nil {
				t.Fatal(err)
			}
		}},
		{"a fragment appended", func(t *testing.T, path string) {
			appendTo(t, path, `{"requestId":"ghost","questions":[{"quest`)
		}},
		{"the newline lost", func(t *testing.T, path string) {
			fi, _ := os.Stat(path)
			if err := os.Truncate(path, fi.Size()-1); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			j, _ := open(t, dir, t0)
			j.resolveN(t, "a", "b", "c")
			j.Close() // as a crash: nothing is done at Close but an fsync
			c.tear(t, filepath.Join(dir, history.File))

			j, _ = open(t, dir, t0)
			j.resolveN(t, "d", "e")
			j.Close()
			for range 2 {
				j, _ = open(t, dir, t0)
				j.Close()
			}
			wantOnce(t, dir, "a", "b", "c", "d", "e")
		})
	}
}

// A fragment that appears at the end of history.jsonl while the journal
// runs (a write of ours cut short that could not be cut back, anything
// else) is made whole before the next line goes on.
func TestHistoryFragmentWhileRunning(t *testing.T) {
	dir := t.TempDir()
	j, _ := open(t, dir, t0)
	j.resolveN(t, "a")
	appendTo(t, filepath.Join(dir, history.File), `{"requestId":"ghost","quest`)
	j.resolveN(t, "b")
	j.Close()
	wantOnce(t, dir, "a", "b")
	if !strings.Contains(j.log.String(), "cut away a last line cut short") {
		t.Errorf("the log does not say what was cut:\n%s", j.log)
	}
}

// history.jsonl cut shorter than the journal's mark (lines from before the
// last compaction lost) or removed: every resolved request the journal still
// keeps is written back, once.
func TestHistoryCutBeforeTheMark(t *testing.T) {
	for _, how := range []string{"cut", "removed"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			j, _ := open(t, dir, t0)
			j.resolveN(t, "a", "b")
			j.Close()
			j, _ = open(t, dir, t0) // compacts: the mark is after a and b
			j.resolveN(t, "c")
			j.Close()
			path := filepath.Join(dir, history.File)
			if how == "cut" {
				data := read(t, path)
				if err := os.WriteFile(path, []byte(data[:strings.Index(data, "\n")+10]), 0o600); err != nil {
					t.Fatal(err)
				}
			} else {
				os.Remove(path)
			}
			for range 2 {
				j, _ = open(t, dir, t0)
				j.Close()
			}
			wantOnce(t, dir, "a", "b", "c")
		})
	}
}

// Every record carries a checksum: a record with one byte changed that
// still parses (another answer, another question) is damage, skipped and
// reported, never taken for data.
func TestChecksumDamageIsSkipped(t *testing.T) {
	dir := t.TempDir()
	j, _ := open(t, dir, t0)
	j.write(t, Record{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Deploy to staging?")})
	j.write(t, Record{Op: OpAdd, ID: "b", At: t0, Pending: pending("b", "Q?")})
	j.write(t, Record{Op: OpAdd, ID: "c", At: t0, Pending: pending("c", "Q?")})
	j.Close()
	path := filepath.Join(dir, StateFile)
	data := []byte(read(t, path))
	i := bytes.Index(data, []byte("staging"))
	data[i] = 'S' // "Staging": still valid JSON, still a record
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var r Record
	line := data[bytes.LastIndexByte(data[:i], '\n')+1 : i+bytes.IndexByte(data[i:], '\n')]
	if err := json.Unmarshal(line, &r); err != nil || r.Pending.Questions[0].Question != "Deploy to Staging?" {
		t.Fatalf("the damaged line should still parse: %v %+v", err, r)
	}

	j, st := open(t, dir, t0)
	if p, _ := ids(st); strings.Join(p, ",") != "b,c" {
		t.Fatalf("restored %v; the damaged record must not come back", p)
	}
	if !strings.Contains(j.log.String(), "checksum does not match") {
		t.Errorf("the log does not say why the record was skipped:\n%s", j.log)
	}
	if _, err := os.Stat(path + ".corrupt"); err != nil {
		t.Errorf("the damaged journal was not kept aside: %v", err)
	}
}

// Every line of a journal this version writes carries its checksum, and its
// first line (the mark) the format.
func TestEveryLineHasAChecksumAndTheFormat(t *testing.T) {
	dir := t.TempDir()
	j, _ := open(t, dir, t0)
	j.resolveN(t, "a")
	j.Close()
	lines := strings.Split(strings.TrimSuffix(read(t, filepath.Join(dir, StateFile)), "\n"), "\n")
	if len(lines) < 3 || !strings.Contains(lines[0], `"op":"mark"`) || !strings.Contains(lines[0], fmt.Sprintf(`"format":%d`, Format)) {
		t.Fatalf("journal:\n%s", strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		if _, had, ok := splitChecksum([]byte(l)); !had || !ok {
			t.Errorf("line without a valid checksum: %s", l)
		}
	}
}

// A journal written before checksums (no format, no checksums) is read as
// it is, and rewritten in this format at once.
func TestOldJournalIsReadAndUpgraded(t *testing.T) {
	dir := t.TempDir()
	var old strings.Builder
	for _, r := range []Record{
		{Op: OpMark, At: t0, HistorySize: 0},
		{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Q?")},
		{Op: OpAdd, ID: "b", At: t0, Pending: pending("b", "Q?"), Parked: true},
		{Op: OpResolve, ID: "a", At: t0, Outcome: "answered", Response: answered("a", "Q?", "y"), Expires: t0.Add(time.Hour)},
	} {
		b, _ := json.Marshal(r)
		old.Write(append(b, '\n'))
	}
	os.WriteFile(filepath.Join(dir, StateFile), []byte(old.String()), 0o600)
	j, st := open(t, dir, t0)
	if p, r := ids(st); strings.Join(p, ",") != "b" || strings.Join(r, ",") != "a" {
		t.Fatalf("pending %v results %v", p, r)
	}
	if _, err := os.Stat(filepath.Join(dir, StateFile+".corrupt")); err == nil {
		t.Errorf("an old journal was taken for damage:\n%s", j.log)
	}
	wantOnce(t, dir, "a")
	j.Close()
	first, _, _ := strings.Cut(read(t, filepath.Join(dir, StateFile)), "\n")
	if !strings.Contains(first, `"format":2`) {
		t.Errorf("not upgraded: %s", first)
	}
}

// A journal of a newer format is neither replayed nor written over: every
// write says why.
func TestNewerFormatIsLeftAlone(t *testing.T) {
	dir := t.TempDir()
	line, _ := encodeRecord(Record{Op: OpMark, At: t0, Format: Format + 1})
	add, _ := encodeRecord(Record{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Q?")})
	text := string(line) + string(add)
	os.WriteFile(filepath.Join(dir, StateFile), []byte(text), 0o600)
	j, st := open(t, dir, t0)
	if len(st.Pending) != 0 {
		t.Errorf("replayed a newer format: %+v", st)
	}
	err := j.Write([]Record{{Op: OpAdd, ID: "b", At: t0, Pending: pending("b", "Q?")}})
	if err == nil || !strings.Contains(err.Error(), "newer askuserd") {
		t.Errorf("Write = %v", err)
	}
	j.Close()
	if got := read(t, filepath.Join(dir, StateFile)); got != text {
		t.Errorf("the newer journal was written over:\n%s", got)
	}
}

// A fragment at the end of state.jsonl while the journal runs (anything
// but us wrote it, or our own write could not be cut back) does not
// swallow the next record: the journal is rewritten first.
func TestStateFragmentWhileRunning(t *testing.T) {
	dir := t.TempDir()
	j, _ := open(t, dir, t0)
	j.write(t, Record{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Q?")})
	j.Commit()
	appendTo(t, filepath.Join(dir, StateFile), `{"op":"add","id":"x","pend`)
	j.write(t, Record{Op: OpAdd, ID: "b", At: t0, Pending: pending("b", "Q?")})
	j.Close()
	_, st := open(t, dir, t0)
	if p, _ := ids(st); strings.Join(p, ",") != "a,b" {
		t.Fatalf("pending %v", p)
	}
}
