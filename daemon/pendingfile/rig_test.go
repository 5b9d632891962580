package pendingfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
)

// memQueue is a small, real queue for driving a Syncer without the daemon:
// the same Merge, applied under one lock, each request resolved once.
type memQueue struct {
	mu      sync.Mutex
	pending []socketproto.Pending
	results map[string]chan outcome
	changed func()
	applies int // saves taken in
}

type outcome struct {
	cancelled bool
	answers   []socketproto.Answer
}

func (q *memQueue) Snapshot() ([]socketproto.Pending, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.pending), true
}

func (q *memQueue) Apply(sv Save) ([]Action, bool) {
	q.mu.Lock()
	q.applies++
	acts := sv.Merge(q.pending)
	changed := false
	for _, a := range acts {
		i := slices.IndexFunc(q.pending, func(p socketproto.Pending) bool { return p.RequestID == a.RequestID })
		switch a.Kind {
		case Resolve, Cancel:
			if i < 0 {
				panic("merge resolved " + a.RequestID + ", which is not pending")
			}
			q.pending = slices.Delete(q.pending, i, i+1)
			q.results[a.RequestID] <- outcome{cancelled: a.Kind == Cancel, answers: a.Answers}
			changed = true
		case SetDraft:
			q.pending[i].Draft = a.Draft
			changed = true
		}
	}
	if sv.Taken != nil {
		sv.Taken()
	}
	q.mu.Unlock()
	if changed {
		q.changed()
	}
	return acts, true
}

// ask adds a request; the channel receives its outcome.
func (q *memQueue) ask(p socketproto.Pending) <-chan outcome {
	ch := make(chan outcome, 1)
	q.mu.Lock()
	q.pending = append(q.pending, p)
	q.results[p.RequestID] = ch
	q.mu.Unlock()
	q.changed()
	return ch
}

func (q *memQueue) get(id string) (socketproto.Pending, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, p := range q.pending {
		if p.RequestID == id {
			return p, true
		}
	}
	return socketproto.Pending{}, false
}

// rig is a Syncer on a real file in a temporary state dir, with a memQueue.
type rig struct {
	t       *testing.T
	dir     string
	path    string
	q       *memQueue
	s       *Syncer
	reports chan string
	mu      sync.Mutex
	logs    []string
}

const wait = 10 * time.Second // a safety net, never a measure

func newRig(t *testing.T) *rig {
	t.Helper()
	r := newStoppedRig(t)
	r.s.quiet = quietPeriod
	if err := r.s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.s.Close()
		if t.Failed() {
			t.Logf("syncer log:\n  %s", strings.ReplaceAll(r.log(), "\n", "\n  "))
		}
	})
	return r
}

// newStoppedRig is a rig whose Syncer has not started: tests call its
// methods directly, in the loop's place.
func newStoppedRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{t: t, reports: make(chan string, 1000)}
	r.dir = filepath.Join(t.TempDir(), "state", "askuser")
	r.path = filepath.Join(r.dir, "pending-questions.json")
	r.q = &memQueue{results: map[string]chan outcome{}}
	r.s = New(Options{
		Path:   r.path,
		Queue:  r.q,
		Report: func(msg string) { r.reports <- msg },
		Logf: func(format string, args ...any) {
			r.mu.Lock()
			r.logs = append(r.logs, fmt.Sprintf(format, args...))
			r.mu.Unlock()
		},
	})
	r.q.changed = r.s.Changed
	// Tests of a stopped Syncer play the settle timer by hand (read(true)),
	// so a file is believed as soon as they say.
	r.s.quiet = 0
	return r
}

func (r *rig) log() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.logs, "\n")
}

func (r *rig) ask(id string, qs ...socketproto.Question) <-chan outcome {
	return r.q.ask(pending(id, qs...))
}

// fileWith waits until the file lists exactly ids, in that order.
func (r *rig) fileWith(ids ...string) *File {
	r.t.Helper()
	var f *File
	testdaemon.Eventually(r.t, fmt.Sprintf("the file to list %q", ids), func() (bool, string) {
		// A file over the daemon's limit is not its own: skip it unread, as
		// reading 64 MiB at every poll under -race took seconds.
		if fi, err := os.Stat(r.path); err == nil && fi.Size() > maxFileBytes {
			return false, fmt.Sprintf("a file of %d bytes, over the limit", fi.Size())
		}
		data, err := os.ReadFile(r.path)
		if err != nil {
			return false, err.Error()
		}
		parsed, err := Parse(data)
		if err == nil && slices.Equal(requestIDs(parsed), ids) {
			f = parsed
			return true, ""
		}
		return false, string(data)
	})
	return f
}

func requestIDs(f *File) []string {
	ids := []string{}
	for _, q := range f.Requests {
		ids = append(ids, q.RequestID)
	}
	return ids
}

// result waits for a request's outcome.
func (r *rig) result(ch <-chan outcome) outcome {
	r.t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(wait):
		r.t.Fatalf("no outcome within %v; the file:\n%s", wait, r.read())
	}
	return outcome{}
}

func (r *rig) report() string {
	r.t.Helper()
	select {
	case m := <-r.reports:
		return m
	case <-time.After(wait):
		r.t.Fatalf("no pending_file_error within %v", wait)
	}
	return ""
}

// noReports checks that nothing was reported so far. Call it after an
// outcome that came from a later read: reads happen one after another.
func (r *rig) noReports() {
	r.t.Helper()
	select {
	case m := <-r.reports:
		r.t.Errorf("unexpected pending_file_error: %s", m)
	default:
	}
}

func (r *rig) read() []byte {
	data, _ := os.ReadFile(r.path)
	return data
}

// waitDraft waits until request id has draft values equal to want (JSON,
// "" for none).
func (r *rig) waitDraft(id string, want ...string) {
	r.t.Helper()
	testdaemon.Eventually(r.t, fmt.Sprintf("the draft of %s to be %q", id, want), func() (bool, string) {
		p, ok := r.q.get(id)
		if !ok {
			return false, id + " is not pending"
		}
		return draftIs(p.Draft, want), fmt.Sprintf("%s", p.Draft)
	})
}

func draftIs(d []json.RawMessage, want []string) bool {
	for i, w := range want {
		var got json.RawMessage
		if i < len(d) {
			got = d[i]
		}
		if w == "" && isFilled(got) || w != "" && !bytes.Equal(compact(got), compact(json.RawMessage(w))) {
			return false
		}
	}
	return true
}

// fill sets answers (raw JSON, "" to leave as is) on request id of a file the
// user has in their editor, and returns the bytes they save.
func fill(t *testing.T, f *File, id string, answers ...string) []byte {
	t.Helper()
	for i := range f.Requests {
		if f.Requests[i].RequestID != id {
			continue
		}
		for j, a := range answers {
			if a != "" {
				f.Requests[i].Questions[j].Answer = json.RawMessage(a)
			}
		}
		return marshal(t, f)
	}
	t.Fatalf("request %s is not in the file", id)
	return nil
}

func marshal(t *testing.T, f *File) []byte {
	t.Helper()
	out, err := json.MarshalIndent(f, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// --- the ways editors save ---------------------------------------------------

// saveByRename writes a sibling (vim's swap-like temp, VS Code's atomic save,
// sed -i's sedXXXXXX) and renames it onto the file.
func saveByRename(t *testing.T, path string, data []byte, tmpName string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), tmpName)
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// saveVim is vim with 'backupcopy' off: a probe file, the original renamed
// to file~, the new file written, the backup removed.
func saveVim(t *testing.T, path string, data []byte) {
	t.Helper()
	dir := filepath.Dir(path)
	probe := filepath.Join(dir, "4913")
	if err := os.WriteFile(probe, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(probe)
	backup := path + "~"
	if err := os.Rename(path, backup); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(backup)
}

// saveNew writes a file that does not exist yet (a new buffer).
func saveNew(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// saveInPlace truncates and writes in two write() calls with a pause
// between, as editors that save in place (and cat >) do. The pause is the
// editor's own timing, played: the half-written file is what is tested.
func saveInPlace(t *testing.T, path string, data []byte, pause time.Duration) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	half := len(data) / 2
	if _, err := f.Write(data[:half]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(pause) // the editor's own gap between its writes
	if _, err := f.Write(data[half:]); err != nil {
		t.Fatal(err)
	}
}

// overwriteNoTrunc writes over the file without truncating it: a shorter
// save leaves the old tail behind.
func overwriteNoTrunc(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
}

// wantAnswers checks that a request was answered, with these answers.
func wantAnswers(t *testing.T, o outcome, want ...string) {
	t.Helper()
	if o.cancelled {
		t.Fatalf("cancelled, want answers %q", want)
	}
	var got []string
	for _, a := range o.answers {
		got = append(got, a.Answer.Joined())
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("answers %q, want %q", got, want)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// paneDraft gives request id the draft answers want (JSON, "" for none), as
// a pane's draft message does: the queue changes, the file follows.
func (r *rig) paneDraft(id string, want ...string) {
	r.t.Helper()
	d := make([]json.RawMessage, len(want))
	for i, w := range want {
		d[i] = nullJSON
		if w != "" {
			d[i] = json.RawMessage(w)
		}
	}
	r.q.mu.Lock()
	i := slices.IndexFunc(r.q.pending, func(p socketproto.Pending) bool { return p.RequestID == id })
	if i < 0 {
		r.q.mu.Unlock()
		r.t.Fatalf("paneDraft: %s is not pending", id)
	}
	r.q.pending[i].Draft = d
	r.q.mu.Unlock()
	r.q.changed()
}

// fileShows waits until the file's request id shows the answers want
// (JSON, "" for none), and returns the file's bytes then.
func (r *rig) fileShows(id string, want ...string) []byte {
	r.t.Helper()
	var shown []byte
	testdaemon.Eventually(r.t, fmt.Sprintf("the file to show %s = %q", id, want), func() (bool, string) {
		data := r.read()
		f, err := Parse(data)
		if err != nil {
			return false, string(data)
		}
		for _, q := range f.Requests {
			if q.RequestID != id {
				continue
			}
			var d []json.RawMessage
			for _, x := range q.Questions {
				d = append(d, x.Answer)
			}
			if draftIs(d, want) {
				shown = data
				return true, ""
			}
		}
		return false, string(data)
	})
	return shown
}

// stillPending checks that a request has not resolved and has the draft
// want.
func (r *rig) stillPending(id string, done <-chan outcome, want ...string) {
	r.t.Helper()
	select {
	case o := <-done:
		r.t.Fatalf("%s resolved, by a save that did not edit it: %+v", id, o)
	default:
	}
	if p, ok := r.q.get(id); !ok || !draftIs(p.Draft, want) {
		r.t.Fatalf("%s: pending %v, draft %s, want %q", id, ok, p.Draft, want)
	}
}

// answerIn fills the first null answer of request id in the file's text,
// the way a user types it, and returns the text.
func answerIn(t *testing.T, data []byte, id, answer string) []byte {
	t.Helper()
	at := bytes.Index(data, []byte(`"requestId": "`+id+`"`))
	if at < 0 {
		t.Fatalf("%s is not in\n%s", id, data)
	}
	rest := data[at:]
	n := bytes.Index(rest, []byte(`"answer": null`))
	if n < 0 {
		t.Fatalf("%s has no unanswered question in\n%s", id, data)
	}
	out := append([]byte(nil), data[:at+n]...)
	out = append(out, `"answer": `+answer...)
	return append(out, rest[n+len(`"answer": null`):]...)
}
