package pendingfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/skips"
	"askuser/tests/testdaemon"
)

// TestHalfWrittenSaves drives the Syncer's read step by hand, so the settle
// rule is checked without any clock: an empty or unparsable file is believed
// only when it is still the same once the settle time has passed.
func TestHalfWrittenSaves(t *testing.T) {
	r := newStoppedRig(t)
	done := r.q.ask(pending("a", nameQuestion))
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	full := Render([]socketproto.Pending{pending("a", nameQuestion)})
	full = []byte(strings.Replace(string(full), `"answer": null`, `"answer": "orders"`, 1))
	write := func(b []byte) {
		if err := os.WriteFile(r.path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name     string
		content  []byte
		settled  bool
		settling bool
		reported bool
		allClear bool // the report is "": the problem reported before is over
	}{
		{"truncated: empty", nil, false, true, false, false},
		{"still empty, before the settle time", nil, false, true, false, false},
		{"first half", full[:len(full)/2], false, true, false, false},
		{"first half, settle timer fired but the file changed since", full[:len(full)/3], true, true, false, false},
		{"still the same after the settle time: believed", full[:len(full)/3], true, false, true, false},
		{"the same broken bytes again are not reported twice", full[:len(full)/3], false, false, false, false},
		{"whole: parses again", full, false, false, true, true},
	}
	for _, st := range steps {
		write(st.content)
		r.s.read(st.settled)
		if r.s.status.settling() != st.settling {
			t.Errorf("%s: settling = %v, want %v", st.name, r.s.status.settling(), st.settling)
		}
		select {
		case msg := <-r.reports:
			if !st.reported || (msg == "") != st.allClear {
				t.Errorf("%s: reported %q", st.name, msg)
			}
		default:
			if st.reported {
				t.Errorf("%s: not reported", st.name)
			}
		}
	}
	wantAnswers(t, r.result(done), "orders")
	if kept, _ := os.ReadFile(r.s.RejectedPath()); string(kept) != string(full[:len(full)/3]) {
		t.Errorf(".rejected = %q", kept)
	}
	if r.s.settle != nil {
		r.s.settle.Stop()
	}
}

// TestEmptyFileSettled: a file the user emptied on purpose is not
// an error, and the next rewrite fills it.
func TestEmptyFileSettled(t *testing.T) {
	r := newStoppedRig(t)
	r.q.ask(pending("a", nameQuestion))
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r.s.read(false)
	r.s.read(true)
	if r.s.status.settling() {
		t.Fatal("still settling on an empty file")
	}
	r.s.wantWrite = true
	r.s.write()
	if f, err := Parse(r.read()); err != nil || len(f.Requests) != 1 {
		t.Errorf("after the rewrite: %v\n%s", err, r.read())
	}
	if _, err := os.Stat(r.s.RejectedPath()); !os.IsNotExist(err) {
		t.Errorf("an empty file was kept as rejected: %v", err)
	}
	if len(r.reports) != 0 {
		t.Errorf("an empty file was reported: %s", <-r.reports)
	}
}

// TestSaveLandingDuringRewrite: a save that the pre-write read did not see
// is rescued from the file the rewrite swapped out.
func TestSaveLandingDuringRewrite(t *testing.T) {
	r := newStoppedRig(t)
	done := r.q.ask(pending("a", nameQuestion))
	r.s.wantWrite = true
	r.s.write()
	f := r.fileWith("a")
	seen := r.s.onDisk
	// The user saves; the daemon rewrites before reading it (as if the save
	// landed between its read and its rename).
	saveByRename(t, r.path, fill(t, f, "a", `"orders"`), ".tmp")
	_, prev, err := swapIn(r.path, Render(nil))
	if err != nil {
		t.Fatal(err)
	}
	if prev == "" {
		skips.Skip(t, "this file system cannot exchange files atomically")
	}
	r.s.rescue(prev, seen)
	wantAnswers(t, r.result(done), "orders")
	if _, err := os.Stat(prev); !os.IsNotExist(err) {
		t.Errorf("the swapped-out file was left behind: %v", err)
	}
}

// TestFIFOLandingDuringRewrite: a FIFO planted at the path between the
// daemon's read and its swap is not opened in a way that blocks: it is put
// back at the path, left alone and reported, and nothing is lost.
func TestFIFOLandingDuringRewrite(t *testing.T) {
	r := newStoppedRig(t)
	done := r.q.ask(pending("a", nameQuestion))
	r.s.wantWrite = true
	r.s.write()
	seen := r.s.onDisk
	if err := os.Remove(r.path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(r.path, 0o600); err != nil {
		t.Fatal(err)
	}
	_, prev, err := swapIn(r.path, Render(nil))
	if err != nil {
		t.Fatal(err)
	}
	if prev == "" {
		skips.Skip(t, "this file system cannot exchange files atomically")
	}
	rescued := make(chan struct{})
	go func() { r.s.rescue(prev, seen); close(rescued) }()
	select {
	case <-rescued:
	case <-time.After(10 * time.Second):
		t.Fatal("rescue blocked on the FIFO")
	}
	if fi, err := os.Lstat(r.path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO is not back at the path: %v %v", fi, err)
	}
	if _, err := os.Lstat(prev); !os.IsNotExist(err) {
		t.Errorf("the swapped-out file was left behind: %v", err)
	}
	r.s.read(false)
	if msg := r.report(); !strings.Contains(msg, "a FIFO, not a regular file") {
		t.Errorf("reported %q", msg)
	}
	if _, ok := r.q.get("a"); !ok {
		t.Error("the request is gone")
	}
	select {
	case o := <-done:
		t.Errorf("the request was resolved: %+v", o)
	default:
	}
}

// TestFileFromBeforeStart: answers typed while no daemon ran are taken in
// when it starts.
func TestFileFromBeforeStart(t *testing.T) {
	r := newStoppedRig(t)
	done := r.q.ask(pending("a", dbQuestion))
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	f, _ := Parse(Render([]socketproto.Pending{pending("a", dbQuestion)}))
	if err := os.WriteFile(r.path, fill(t, f, "a", `"MongoDB"`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := r.s.Start(); err != nil {
		t.Fatal(err)
	}
	defer r.s.Close()
	wantAnswers(t, r.result(done), "MongoDB")
	r.fileWith()
}

// TestOwnWritesAreNotReadBack: the daemon's rewrites never reach Apply;
// only the user's saves do.
func TestOwnWritesAreNotReadBack(t *testing.T) {
	r := newRig(t)
	done := r.ask("a", nameQuestion)
	r.ask("b", nameQuestion)
	r.ask("c", nameQuestion)
	f := r.fileWith("a", "b", "c")
	saveVim(t, r.path, fill(t, f, "a", `"x"`))
	r.result(done)
	r.fileWith("b", "c")
	// A second save: its report comes after every event before it.
	f.Requests[0].RequestID = "barrier"
	saveVim(t, r.path, marshal(t, f))
	r.report()
	r.q.mu.Lock()
	applies := r.q.applies
	r.q.mu.Unlock()
	if applies != 2 {
		t.Errorf("Apply ran %d times for 2 saves", applies)
	}
}

// TestBurstCoalesces: many changes in a row make few rewrites, and the file
// catches up with the last of them.
func TestBurstCoalesces(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	r := newRig(t)
	ids := make([]string, n)
	for i := range n {
		ids[i] = "req-" + itoa(i)
		r.ask(ids[i], dbQuestion, nameQuestion)
	}
	r.fileWith(ids...)
	if got := r.s.Rewrites(); got > int64(n/10) {
		t.Errorf("%d changes made %d rewrites", n, got)
	}
	t.Logf("%d requests, %d rewrites", n, r.s.Rewrites())
}

// TestStartWritesTheFile: a daemon with nothing pending still writes the
// file at start, so a user (or askuser-client pending) finds it.
func TestStartWritesTheFile(t *testing.T) {
	r := newRig(t)
	f := r.fileWith()
	if f.Requests == nil || f.Instructions != Instructions {
		t.Errorf("file at start: %+v", f)
	}
	if fi, err := os.Stat(r.path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode: %v, %v", fi, err)
	}
	if fi, err := os.Stat(r.dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode: %v, %v", fi, err)
	}
	// Beside it only the list of what the daemon wrote (no temporary files).
	entries, _ := os.ReadDir(r.dir)
	if len(entries) != 2 || entries[0].Name() != ".pending-questions.json.ours" {
		t.Errorf("left beside the file: %v", entries)
	}
}

// TestManyProblemsInOneSave: a stale buffer full of requests answered since
// reaches subscribers as a few reports and a count, and the log as each.
func TestManyProblemsInOneSave(t *testing.T) {
	r := newRig(t)
	done := r.ask("a", nameQuestion)
	f := r.fileWith("a")
	for i := range 50 {
		extra := f.Requests[0]
		extra.RequestID = "gone-" + itoa(i)
		f.Requests = append(f.Requests, extra)
	}
	saveVim(t, r.path, fill(t, f, "a", `"orders"`))
	wantAnswers(t, r.result(done), "orders")
	var got []string
	for len(got) < maxReports+1 {
		got = append(got, r.report())
	}
	if last := got[maxReports]; !strings.HasPrefix(last, itoa(50-maxReports)+" more problems") {
		t.Errorf("last report %q", last)
	}
	r.fileWith()
	r.noReports()
	if n := strings.Count(r.log(), "is not waiting"); n != 50-maxReports {
		t.Errorf("the log lists %d of the %d problems not reported one by one", n, 50-maxReports)
	}
}

// TestSavesRacingNewRequests: a user who answers whatever the file lists,
// saving as fast as an editor can, while requests keep arriving: every
// request is answered with its own answer, none is lost or answered twice.
func TestSavesRacingNewRequests(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 50
	}
	for _, mode := range []string{"rename", "vim", "in place"} {
		t.Run(mode, func(t *testing.T) {
			r := newRig(t)
			dones := make([]<-chan outcome, n)
			added := make(chan struct{})
			go func() {
				defer close(added)
				for i := range n {
					dones[i] = r.ask("s"+itoa(i), nameQuestion)
					// Agents asking 0–2 ms apart: the pace of the race under
					// test, not a wait.
					time.Sleep(time.Duration(i%3) * time.Millisecond)
				}
			}()
			// The user saves as fast as an editor can until the file lists
			// nothing and every request has been asked: the loop acts
			// while it waits, at its own pace, so the deadline is only a
			// safety net against a loop that never ends.
			deadline := time.Now().Add(wait)
		save:
			for saves := 0; ; saves++ {
				if time.Now().After(deadline) {
					t.Fatalf("the file still lists requests after %d saves:\n%s", saves, r.read())
				}
				for len(r.reports) > 0 {
					<-r.reports // entries answered by an earlier save: expected
				}
				f, err := Parse(r.read())
				if err != nil {
					continue
				}
				if len(f.Requests) == 0 {
					select {
					case <-added:
						break save
					default:
						continue
					}
				}
				for i := range f.Requests {
					f.Requests[i].Questions[0].Answer = json.RawMessage(`"ans-` + f.Requests[i].RequestID + `"`)
				}
				switch data := marshal(t, f); mode {
				case "rename":
					saveByRename(t, r.path, data, ".tmp")
				case "vim":
					saveVim(t, r.path, data)
				default:
					saveInPlace(t, r.path, data, 0)
				}
				time.Sleep(time.Duration(saves%4) * time.Millisecond) // the user's pace, 0–3 ms between saves
			}
			for i, d := range dones {
				wantAnswers(t, r.result(d), "ans-s"+itoa(i))
			}
		})
	}
}

// TestRewriteWhoseDirectoryWillNotSync: some file systems refuse to sync a
// directory. The rewrite is in place all the same: the save it swapped out
// is still taken in, the daemon's own text is not mistaken for a save, and
// the failure is logged once. Not parallel: it replaces syncDir.
func TestRewriteWhoseDirectoryWillNotSync(t *testing.T) {
	r := newStoppedRig(t)
	done := r.q.ask(pending("a", nameQuestion))
	r.s.wantWrite = true
	r.s.write()
	f := r.fileWith("a")
	seen := r.s.onDisk
	if _, prev, err := swapIn(r.path, r.read()); err != nil || prev == "" {
		skips.Skipf(t, "this file system cannot exchange files atomically (%v)", err)
	} else {
		os.Remove(prev)
	}

	orig := syncDir
	t.Cleanup(func() { syncDir = orig })
	syncDir = func(string) error { return errors.New("invalid argument") }

	// A save the rewrite swaps out (see TestSaveLandingDuringRewrite).
	saveByRename(t, r.path, fill(t, f, "a", `"orders"`), ".tmp")
	_, prev, err := swapIn(r.path, Render(nil))
	if !errors.Is(err, errNotSynced) || prev == "" {
		t.Fatalf("swapIn: %v, previous file %q; want errNotSynced and the swapped-out save", err, prev)
	}
	r.s.rescue(prev, seen)
	wantAnswers(t, r.result(done), "orders")

	// Rewrites that cannot sync count as written.
	for _, id := range []string{"b", "c"} {
		r.ask(id, nameQuestion)
		r.s.wantWrite = true
		r.s.nextWrite = time.Time{}
		r.s.write()
		if r.s.wantWrite {
			t.Fatal("a rewrite in place but not synced is retried")
		}
	}
	r.fileWith("b", "c")
	applies := r.q.applies
	r.s.read(false)
	if r.q.applies != applies || len(r.reports) != 0 {
		t.Errorf("the daemon's own rewrite was taken in as a save (%d applies, %d reports)", r.q.applies-applies, len(r.reports))
	}
	if n := strings.Count(r.log(), "could not be synced"); n != 1 {
		t.Errorf("the sync failure logged %d times, want once:\n%s", n, r.log())
	}

	// A save that does not parse is kept aside, and the user told where.
	bad := []byte(`{"requests": [`)
	if err := os.WriteFile(r.path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	r.s.read(false)
	r.s.read(true)
	if kept, _ := os.ReadFile(r.s.RejectedPath()); string(kept) != string(bad) {
		t.Errorf("rejected copy %q, want %q", kept, bad)
	}
	select {
	case msg := <-r.reports:
		if !strings.Contains(msg, "kept as "+r.s.RejectedPath()) {
			t.Errorf("report %q does not say where the save is kept", msg)
		}
	default:
		t.Error("the broken save was not reported")
	}
}

// TestChoicesOnlySave: a save that changes only the read-only "choices"
// parses, so it is taken in, but it is no answer, no draft and no
// pending_file_error; the rewrite after it puts the choices back. A save
// that deletes them and answers by number answers.
func TestChoicesOnlySave(t *testing.T) {
	r := newRig(t)
	done := r.ask("a", dbQuestion, nameQuestion)
	r.fileWith("a")
	own := r.read()
	saved := bytes.Replace(own, []byte(`"3. MongoDB"`), []byte(`"3. MongoDB — my favourite", "4. CouchDB"`), 1)
	if bytes.Equal(saved, own) {
		t.Fatalf("no choice to edit in\n%s", own)
	}
	saveVim(t, r.path, saved)
	// Only the syncer writes the daemon's text back, and only after it has
	// read the save (a read comes before every rewrite).
	// The rewrite is a new revision with the same content.
	testdaemon.Eventually(t, "the daemon's text written back after the save of choices only", func() (bool, string) {
		data := r.read()
		return bytes.Equal(withoutRevision(data), withoutRevision(own)), string(data)
	})
	r.q.mu.Lock()
	applies := r.q.applies
	r.q.mu.Unlock()
	if applies != 1 {
		t.Errorf("Apply ran %d times for 1 save", applies)
	}
	r.noReports()
	if p, ok := r.q.get("a"); !ok || !draftIs(p.Draft, []string{"", ""}) {
		t.Errorf("after a save of choices only: pending %v, draft %s", ok, p.Draft)
	}
	select {
	case o := <-done:
		t.Fatalf("a save of choices only answered: %+v", o)
	default:
	}

	answered := regexp.MustCompile(`\n *"choices": \[[^\]]*\],`).ReplaceAll(own, nil)
	answered = bytes.Replace(answered, []byte(`"answer": null`), []byte(`"answer": 3`), 1)
	answered = bytes.Replace(answered, []byte(`"answer": null`), []byte(`"answer": "orders"`), 1)
	saveVim(t, r.path, answered)
	wantAnswers(t, r.result(done), "MongoDB", "orders")
	r.fileWith()
	r.noReports()
}

// withoutRevision is a file's text without its "revision" line.
func withoutRevision(b []byte) []byte {
	return regexp.MustCompile(`\n  "revision": [0-9]+,`).ReplaceAll(b, nil)
}
