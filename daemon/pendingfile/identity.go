package pendingfile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"askuser/internal/atomicfile"
	"askuser/socketproto"
)

// identity answers the one question the Syncer asks of every file it reads:
// whose is it? The daemon's own (this run's last write, the previous run's
// as kept in its ledger, or a write too large to read back), a save already
// taken in, or a user's save to take in now. It also keeps what each recent
// revision held, the base a save is merged against (docs/contract.md §5).
//
// What it knows is kept beside the file (.NAME.ours, the ledger), so that a
// restart still knows it: the file found at start may be the previous run's
// view (older than the drafts its journal holds), or a save that run took in
// before it could rewrite the file — taken in again, it would undo what was
// acknowledged since.
type identity struct {
	path       string // the pending file
	ledgerPath string

	written   [32]byte   // this run's last write
	inherited [][32]byte // the previous run's last writes, until this run writes
	big       fileID     // this run's last write, when too large to read back
	onDisk    [][32]byte // what the ledger lists as the daemon's right now
	taken     [][32]byte // saves taken in, newest last (at most maxTaken)

	rev   int64  // the revision of the last write
	bases []base // recent revisions, oldest first (at most maxBases)
	// held is, for each request in a revision of bases, the revisions that
	// held it, as runs of consecutive ones (oldest first). A revision's
	// requests are one map entry each here, not one per revision: with
	// 10,000 requests and 32 revisions that is 10,000 entries, not 320,000.
	held map[string][]revRun

	// answersWritten is every filled answer the daemon has written into the file
	// for each pending request, by question, as hashes: with a save's base
	// forgotten, what tells the daemon's old drafts from the user's edits
	// (MergeWith). Kept in the ledger, pruned as requests leave.
	answersWritten map[string][][]answerHash
}

// answerHash identifies one answer's JSON (compacted).
type answerHash [16]byte

func hashAnswer(raw json.RawMessage) answerHash {
	sum := sha256.Sum256(compact(raw))
	return answerHash(sum[:16])
}

// maxWrotePerQuestion bounds the hashes kept for one question; the oldest
// go first (a pane's very first drafts of a long-lived request).
const maxWrotePerQuestion = 64

// base is what one revision of the file held: each request's answers as
// written, by request id (nil: none filled). Drafts lists only requests with
// an answer filled; identity.held says which others it held. (A ledger from
// before identity.held lists every request in Drafts.)
type base struct {
	Revision int64                        `json:"revision"`
	Drafts   map[string][]json.RawMessage `json:"drafts"`
}

// revRun is the revisions from the first to the last (revRun[1]) of
// identity.bases, each of which held a request.
type revRun [2]int64

const (
	// maxTaken saves are remembered as taken in: a save is one state of one
	// file, so only the last few can still be on disk.
	maxTaken = 16
	// maxBases revisions are kept in memory: a buffer loaded longer ago
	// than that is merged against the newest state.
	maxBases = 32
	// ledgerBases bounds what the ledger keeps of them on disk (the newest
	// revision always, then more while they fit), so that a crash keeps a
	// stale buffer mergeable without making every rewrite write megabytes.
	ledgerBases     = 8
	ledgerBaseBytes = 1 << 20
)

// ledger is the identity as kept on disk.
type ledger struct {
	Revision int64    `json:"revision"`
	Ours     []string `json:"ours"`
	Taken    []string `json:"taken,omitempty"`
	Bases    []base   `json:"bases,omitempty"`
	// Held: identity.held, which requests the bases held. Without it (a
	// ledger from before it) each base's drafts list every request it held.
	Held map[string][]revRun `json:"held,omitempty"`
	// Wrote: identity.answersWritten, as hex.
	Wrote map[string][][]string `json:"wrote,omitempty"`
}

func newIdentity(path string) *identity {
	return &identity{path: path, ledgerPath: filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".ours")}
}

// ours: h is a file the daemon wrote, this run or the last.
func (id *identity) ours(h [32]byte) bool {
	return h != ([32]byte{}) && (h == id.written || slices.Contains(id.inherited, h))
}

// oursBig: the file too large to read is the daemon's last write.
func (id *identity) oursBig(f fileID) bool { return f != (fileID{}) && f == id.big }

// wasTaken: h is a save already taken in.
func (id *identity) wasTaken(h [32]byte) bool { return slices.Contains(id.taken, h) }

// baseOf is what revision rev held, or nil when it is not known (none
// given, too old, or from a ledger that was lost): the save is then merged
// against the newest state.
func (id *identity) baseOf(rev int64) map[string][]json.RawMessage {
	if rev == 0 {
		return nil
	}
	for _, b := range id.bases {
		if b.Revision == rev {
			return id.whole(b)
		}
	}
	return nil
}

// whole is what base b held: every request, with its answers if filled.
func (id *identity) whole(b base) map[string][]json.RawMessage {
	out := make(map[string][]json.RawMessage)
	for reqID, runs := range id.held {
		for _, r := range runs {
			if r[0] <= b.Revision && b.Revision <= r[1] {
				out[reqID] = b.Drafts[reqID]
				break
			}
		}
	}
	return out
}

// keep adds revision rev, holding the requests whole gives (with their
// answers, or nil), to the bases, and forgets the oldest past maxBases.
func (id *identity) keep(rev int64, whole map[string][]json.RawMessage) {
	var prev int64
	if len(id.bases) > 0 {
		prev = id.bases[len(id.bases)-1].Revision
	}
	filled := map[string][]json.RawMessage{}
	if id.held == nil {
		id.held = map[string][]revRun{}
	}
	for reqID, d := range whole {
		if d != nil {
			filled[reqID] = d
		}
		runs := id.held[reqID]
		if n := len(runs); n > 0 && runs[n-1][1] == prev && prev != 0 {
			runs[n-1][1] = rev
		} else {
			id.held[reqID] = append(runs, revRun{rev, rev})
		}
	}
	id.bases = append(id.bases, base{Revision: rev, Drafts: filled})
	if n := len(id.bases) - maxBases; n > 0 {
		id.bases = slices.Delete(id.bases, 0, n)
		oldest := id.bases[0].Revision
		for reqID, runs := range id.held {
			runs = slices.DeleteFunc(runs, func(r revRun) bool { return r[1] < oldest })
			if len(runs) == 0 {
				delete(id.held, reqID)
			} else {
				id.held[reqID] = runs
			}
		}
	}
}

// nextRevision is the revision of the next write.
func (id *identity) nextRevision() int64 { return id.rev + 1 }

// writing records, before a rewrite, the revision about to be written (its
// hash h and what it holds) and keeps the ledger: a crash on either side of
// the swap leaves a file the next start knows as the daemon's. cur is the
// hash of the file on disk now.
func (id *identity) writing(rev int64, h, cur [32]byte, pending []socketproto.Pending) {
	id.rev = rev
	drafts := make(map[string][]json.RawMessage, len(pending))
	for _, p := range pending {
		var d []json.RawMessage
		if slices.ContainsFunc(p.Draft, isFilled) {
			d = p.Draft
		}
		drafts[p.RequestID] = d
	}
	id.keep(rev, drafts)
	id.noteWritten(pending)
	id.onDisk = [][32]byte{h}
	if id.ours(cur) {
		id.onDisk = append(id.onDisk, cur) // still what is on disk until the swap
	}
	id.store()
}

// noteWritten adds the filled answers about to be written to answersWritten, and
// forgets the requests no longer pending.
func (id *identity) noteWritten(pending []socketproto.Pending) {
	// Not sized for every request: only those with an answer filled are
	// kept, and a map keeps the room it was made with.
	next := map[string][][]answerHash{}
	for _, p := range pending {
		qs := id.answersWritten[p.RequestID]
		for i, a := range p.Draft {
			if !isFilled(a) {
				continue
			}
			for len(qs) <= i {
				qs = append(qs, nil)
			}
			if h := hashAnswer(a); !slices.Contains(qs[i], h) {
				qs[i] = append(qs[i], h)
				if n := len(qs[i]) - maxWrotePerQuestion; n > 0 {
					qs[i] = slices.Delete(qs[i], 0, n)
				}
			}
		}
		if qs != nil {
			next[p.RequestID] = qs
		}
	}
	id.answersWritten = next
}

// wroteAnswer reports whether the daemon has written raw into the file as
// answer i of request reqID.
func (id *identity) wroteAnswer(reqID string, i int, raw json.RawMessage) bool {
	qs := id.answersWritten[reqID]
	return i < len(qs) && slices.Contains(qs[i], hashAnswer(raw))
}

// wrote records that the rewrite is in place.
func (id *identity) wrote(h [32]byte, big fileID) {
	id.written, id.inherited, id.big = h, nil, big
}

// take records that the save h was taken in, on disk before it returns: it
// is called inside the queue's step that carries the save out, so that
// nothing acknowledged after it can be undone by taking the save in again.
func (id *identity) take(h [32]byte) {
	if id.wasTaken(h) {
		return
	}
	id.taken = append(id.taken, h)
	if n := len(id.taken) - maxTaken; n > 0 {
		id.taken = slices.Delete(id.taken, 0, n)
	}
	id.store()
}

// load reads the ledger the previous run left. A ledger from before
// revisions (hashes, one a line) is read too. A file with a revision
// above the ledger's (the ledger was lost) raises it, so that a revision
// number is never given twice to different contents.
func (id *identity) load(fileRev int64) {
	id.rev = max(id.rev, fileRev)
	data, _, err := readRegular(id.ledgerPath)
	if err != nil {
		// No ledger: revisions start above any this path can have had
		// (they are numbered from the clock), so that an editor buffer
		// from before the loss never names a revision given again to
		// other contents.
		id.rev = max(id.rev, time.Now().UnixMilli())
		return
	}
	var l ledger
	if json.Unmarshal(data, &l) != nil {
		l = ledger{Ours: strings.Fields(string(data))}
	}
	id.rev = max(id.rev, l.Revision)
	id.inherited = hashes(l.Ours)
	id.onDisk = id.inherited
	id.taken = hashes(l.Taken)
	var bases []base
	for _, b := range l.Bases {
		if b.Revision > 0 && b.Revision <= id.rev {
			bases = append(bases, b)
		}
	}
	slices.SortFunc(bases, func(a, b base) int { return int(a.Revision - b.Revision) })
	if l.Held != nil {
		id.bases, id.held = bases, l.Held
	} else {
		for _, b := range bases {
			id.keep(b.Revision, b.Drafts)
		}
	}
	id.answersWritten = make(map[string][][]answerHash, len(l.Wrote))
	for reqID, qs := range l.Wrote {
		hs := make([][]answerHash, len(qs))
		for i, q := range qs {
			for _, x := range q {
				var h answerHash
				if b, err := hex.DecodeString(x); err == nil && len(b) == len(h) {
					copy(h[:], b)
					hs[i] = append(hs[i], h)
				}
			}
		}
		id.answersWritten[reqID] = hs
	}
}

// store writes the ledger through a temporary file and a rename: a crash
// mid-write must leave the old ledger, not an empty one (a rewrite comes
// right after an acknowledged draft, exactly when a crash is tested for).
// The temporary file's name is one removeLeftovers cleans up.
func (id *identity) store() {
	l := ledger{Revision: id.rev, Ours: hexes(id.onDisk), Taken: hexes(id.taken)}
	if len(id.answersWritten) > 0 {
		l.Wrote = make(map[string][][]string, len(id.answersWritten))
		for reqID, qs := range id.answersWritten {
			out := make([][]string, len(qs))
			for i, q := range qs {
				for _, h := range q {
					out[i] = append(out[i], hex.EncodeToString(h[:]))
				}
			}
			l.Wrote[reqID] = out
		}
	}
	size := 0
	for i := len(id.bases) - 1; i >= 0 && len(l.Bases) < ledgerBases; i-- {
		b := id.bases[i]
		n := 0
		for _, d := range b.Drafts {
			for _, a := range d {
				n += len(a) + 1
			}
		}
		if len(l.Bases) > 0 && size+n > ledgerBaseBytes {
			break
		}
		size += n
		l.Bases = append(l.Bases, b)
	}
	l.Held = id.held
	data, err := json.Marshal(l)
	if err != nil {
		return
	}
	if fi, err := os.Lstat(id.ledgerPath); err == nil && !fi.Mode().IsRegular() {
		return // not ours to replace; at worst the next start reads a stale one
	}
	tmp, err := writeTemp(id.path, data)
	if err != nil {
		return
	}
	if err := os.Rename(tmp, id.ledgerPath); err != nil {
		os.Remove(tmp)
	}
}

func hashes(hexes []string) [][32]byte {
	var out [][32]byte
	for _, x := range hexes {
		var h [32]byte
		if b, err := hex.DecodeString(x); err == nil && len(b) == len(h) {
			copy(h[:], b)
			out = append(out, h)
		}
	}
	return out
}

func hexes(hs [][32]byte) []string {
	out := make([]string, 0, len(hs))
	for _, h := range hs {
		out = append(out, hex.EncodeToString(h[:]))
	}
	return out
}

// fileID tells files apart without reading them.
type fileID struct {
	ino, size int64
	mtime     time.Time
}

func idOf(fi os.FileInfo) fileID {
	id := fileID{size: fi.Size(), mtime: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.ino = int64(st.Ino)
	}
	return id
}

// removeLeftovers deletes the temporary files of rewrites a crash cut short:
// copies of questions and answers that would otherwise pile up.
func (s *Syncer) removeLeftovers() {
	matches, _ := filepath.Glob(atomicfile.TempPattern(s.path))
	for _, m := range matches {
		if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() && os.Remove(m) == nil {
			s.logf("pending file: removed %s, left by an interrupted rewrite", m)
		}
	}
}
