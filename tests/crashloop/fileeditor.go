package crashloop

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
)

// fileEditor is a person answering in an editor: it keeps the last few
// versions of the pending file it read (buffers loaded earlier, a few
// revisions old) and saves one of them with one answer filled in, by
// write-to-temp and rename as most editors do, or in place (truncate and
// write) as vim with backupcopy=yes does.
//
// Every value a save fills in is reported to gave before the save is
// written: that one answer is the save's whole edit relative to the copy
// it came from, so it is the only answer the save gives.
type fileEditor struct {
	path  string
	gave  func(id, via, value string)
	trace *tracer

	mu     sync.Mutex // held across a save: two saves never interleave their writes
	copies [][]byte   // versions the daemon wrote, oldest first
	mine   map[[32]byte]bool
	tmpN   int

	saves, stale, inPlace int
}

// keptCopies is how many versions of the file the editor keeps: a buffer a
// few revisions old, as a user who reads before answering has.
const keptCopies = 5

func newFileEditor(path string, gave func(id, via, value string), trace *tracer) *fileEditor {
	return &fileEditor{path: path, gave: gave, trace: trace, mine: map[[32]byte]bool{}}
}

// look reads the file and keeps it as a copy when it is a version the
// daemon wrote that parses (not one of the editor's own saves).
func (e *fileEditor) look() {
	data, err := os.ReadFile(e.path)
	if err != nil || !json.Valid(data) {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.mine[sha256.Sum256(data)] {
		return
	}
	if n := len(e.copies); n > 0 && bytes.Equal(e.copies[n-1], data) {
		return
	}
	e.copies = append(e.copies, data)
	if n := len(e.copies) - keptCopies; n > 0 {
		e.copies = slices.Delete(e.copies, 0, n)
	}
}

// save looks at the file and saves a copy with one answer filled in;
// it reports whether a save was written.
func (e *fileEditor) save(rng *rand.Rand) bool {
	_, ok := e.saveFor(rng)
	return ok
}

// saveFor is save that also says which request the save answered.
func (e *fileEditor) saveFor(rng *rand.Rand) (string, bool) {
	e.look()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.copies) == 0 {
		return "", false
	}
	// A third of the saves are of an older buffer, when there is one.
	at := len(e.copies) - 1
	if at > 0 && rng.IntN(3) == 0 {
		at = rng.IntN(at)
	}
	out, id, value, ok := fillOne(e.copies[at], rng)
	if !ok {
		return "", false
	}
	e.gave(id, "file", value)
	inPlace := rng.IntN(4) == 0
	e.trace.printf("save %s = %s, from revision %d (the newest read: %d), in place: %t",
		id, value, revisionOf(e.copies[at]), revisionOf(e.copies[len(e.copies)-1]), inPlace)
	if err := e.write(out, inPlace); err != nil {
		return "", false
	}
	e.mine[sha256.Sum256(out)] = true
	e.saves++
	if at < len(e.copies)-1 {
		e.stale++
	}
	if inPlace {
		e.inPlace++
	}
	return id, true
}

// write puts data at the path, by rename or in place.
func (e *fileEditor) write(data []byte, inPlace bool) error {
	if inPlace {
		f, err := os.OpenFile(e.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	e.tmpN++
	tmp := fmt.Sprintf("%s.crashloop-%d~", e.path, e.tmpN)
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, e.path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// counts says how many saves were written: all, of an older copy, in place.
func (e *fileEditor) counts() (saves, stale, inPlace int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.saves, e.stale, e.inPlace
}

// fillOne fills in the answer of one request of a copy of the file, chosen
// at random, with an option given by its label or its number; it returns
// the new text, the request and the label the answer means.
func fillOne(data []byte, rng *rand.Rand) (out []byte, id, value string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // the revision comes back as it was
	var f map[string]any
	if dec.Decode(&f) != nil {
		return nil, "", "", false
	}
	reqs, _ := f["requests"].([]any)
	if len(reqs) == 0 {
		return nil, "", "", false
	}
	req, _ := reqs[rng.IntN(len(reqs))].(map[string]any)
	qs, _ := req["questions"].([]any)
	if len(qs) == 0 {
		return nil, "", "", false
	}
	q, _ := qs[0].(map[string]any)
	n := rng.IntN(len(options))
	value = options[n]
	q["answer"] = value
	if rng.IntN(4) == 0 {
		q["answer"] = n + 1 // the option's number, as the instructions allow
	}
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, "", "", false
	}
	id, _ = req["requestId"].(string)
	return append(out, '\n'), id, value, id != ""
}

// revisionOf reads a copy's "revision", for the trace.
func revisionOf(data []byte) int64 {
	var f struct {
		Revision int64 `json:"revision"`
	}
	_ = json.Unmarshal(data, &f)
	return f.Revision
}
