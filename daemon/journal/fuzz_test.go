package journal

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzReplay: whatever a crash or a person leaves in state.jsonl, opening it
// never panics, and what it restores names itself and asks something (a
// request nobody could answer must not come back).
func FuzzReplay(f *testing.F) {
	add, _ := json.Marshal(Record{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Q?")})
	res, _ := json.Marshal(Record{Op: OpResolve, ID: "a", At: t0, Outcome: "answered", Response: answered("a", "Q?", "y"), Expires: t0.Add(time.Hour)})
	f.Add(append(append(add, '\n'), res...))
	f.Add([]byte(`{"op":"mark","historySize":12}` + "\n" + string(add) + "\n"))
	f.Add([]byte(`{"op":"draft","id":"a","draft":["x","y"]}` + "\n"))
	f.Add([]byte(`{"op":"result","id":"b","pending":{"requestId":"b","questions":[{"question":"Q?"}]},"noHistory":true}` + "\n"))
	f.Add([]byte("garbage\n\x00\xff"))
	// This version's lines: a mark with the format, records with checksums.
	mark, _ := encodeRecord(Record{Op: OpMark, At: t0, Format: Format})
	add2, _ := encodeRecord(Record{Op: OpAdd, ID: "a", At: t0, Pending: pending("a", "Q?")})
	res2, _ := encodeRecord(Record{Op: OpResolve, ID: "a", At: t0, Outcome: "answered", Response: answered("a", "Q?", "y"), Expires: t0.Add(time.Hour)})
	f.Add(append(append(append([]byte{}, mark...), add2...), res2...))
	f.Add(append(append([]byte{}, mark...), add...)) // a record without its checksum
	f.Add(append(append([]byte{}, add2[:len(add2)-5]...), "0\"}\n"...))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, StateFile), data, 0o600); err != nil {
			t.Fatal(err)
		}
		j, st := Open(Options{Dir: dir, Now: func() time.Time { return t0 }, MaxRecordBytes: 1 << 16})
		defer j.Close()
		for _, p := range st.Pending {
			if p.Pending.RequestID == "" || len(p.Pending.Questions) == 0 || len(p.Pending.Draft) > len(p.Pending.Questions) {
				t.Fatalf("restored a request nobody could answer: %+v", p.Pending)
			}
		}
		for _, r := range st.Results {
			if r.ID == "" || r.Asked.RequestID != r.ID {
				t.Fatalf("restored a result under the wrong id: %+v", r)
			}
		}
	})
}
