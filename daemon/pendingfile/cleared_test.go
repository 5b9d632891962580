package pendingfile

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"

	"askuser/socketproto"
	"askuser/tests/skips"
)

// These tests drive the Syncer's read step by hand and check what it
// reports itself: a problem with the file is said once, and its end is said
// too (an empty report, the cleared pending_file_error), whichever way the
// file became good again.

// nextReport is the report the last step made; ok is false when it made
// none.
func (r *rig) nextReport() (msg string, ok bool) {
	select {
	case msg := <-r.reports:
		return msg, true
	default:
		return "", false
	}
}

// wantReport checks that the last step reported something containing want,
// or the cleared form when want is "".
func (r *rig) wantReport(step, want string) {
	r.t.Helper()
	msg, ok := r.nextReport()
	switch {
	case !ok:
		r.t.Errorf("%s: nothing reported, want %q", step, want)
	case want == "" && msg != "":
		r.t.Errorf("%s: reported %q, want the cleared form", step, msg)
	case want != "" && (msg == "" || !strings.Contains(msg, want)):
		r.t.Errorf("%s: reported %q, want %q", step, msg, want)
	}
	if msg, ok := r.nextReport(); ok {
		r.t.Errorf("%s: reported %q as well", step, msg)
	}
}

// breakFile saves a file that does not parse and lets it settle: it is
// reported.
func (r *rig) breakFile() {
	r.t.Helper()
	if err := os.WriteFile(r.path, []byte(`{"requests": [`), 0o600); err != nil {
		r.t.Fatal(err)
	}
	r.s.read(false)
	r.s.read(true)
	r.wantReport("a save that does not parse", "kept as "+r.s.RejectedPath())
}

// A save that does not parse, then one that parses but needs no taking in
// (the buffer the user loaded, or a save taken in before, put back by an
// editor's undo): the problem is over all the same, and the Syncer says so.
func TestProblemClearedByASaveThatNeedsNoTakingIn(t *testing.T) {
	for _, c := range []struct {
		name  string
		again func(r *rig, daemons, taken []byte) []byte
	}{
		{"the daemon's own text", func(r *rig, daemons, taken []byte) []byte { return daemons }},
		{"a save taken in before", func(r *rig, daemons, taken []byte) []byte { return taken }},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newStoppedRig(t)
			r.q.ask(pending("a", dbQuestion, nameQuestion))
			r.s.wantWrite = true
			r.s.write()
			daemons := r.read()
			f, err := Parse(daemons)
			if err != nil {
				t.Fatal(err)
			}
			// A draft: taken in, the request still pending.
			taken := fill(t, f, "a", "", `"orders"`)
			if err := os.WriteFile(r.path, taken, 0o600); err != nil {
				t.Fatal(err)
			}
			r.s.read(false)
			r.waitDraft("a", "", `"orders"`)
			if msg, ok := r.nextReport(); ok {
				t.Fatalf("the draft was reported: %q", msg)
			}

			r.breakFile()
			if err := os.WriteFile(r.path, c.again(r, daemons, taken), 0o600); err != nil {
				t.Fatal(err)
			}
			r.s.read(false)
			r.wantReport("the good save again", "")
			if r.s.status != statusFine {
				t.Errorf("status %v, want fine", r.s.status)
			}
		})
	}
}

// The daemon's own rewrite after a save that did not parse is not the
// user's save: what was reported stays (the user's version is kept as
// .rejected, which the user still needs to hear).
func TestOwnRewriteDoesNotClearAProblem(t *testing.T) {
	r := newStoppedRig(t)
	r.q.ask(pending("a", nameQuestion))
	r.s.wantWrite = true
	r.s.write()
	r.breakFile()
	r.q.ask(pending("b", nameQuestion))
	r.s.wantWrite = true
	r.s.write()
	r.s.read(false) // the rewrite's own events
	if f, err := Parse(r.read()); err != nil || len(f.Requests) != 2 {
		t.Fatalf("not rewritten: %v\n%s", err, r.read())
	}
	if msg, ok := r.nextReport(); ok {
		t.Errorf("the daemon's rewrite reported %q", msg)
	}
	if r.s.status != statusReported {
		t.Errorf("status %v, want reported", r.s.status)
	}
}

// unreadable makes opening the given paths fail as a file the daemon may
// not read does (root reads every file, so chmod cannot stand in for it).
func unreadable(t *testing.T, paths ...string) {
	t.Helper()
	orig := openRegular
	openRegular = func(path string) (*os.File, fs.FileInfo, error) {
		for _, p := range paths {
			if path == p {
				return nil, nil, &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES}
			}
		}
		return orig(path)
	}
	t.Cleanup(func() { openRegular = orig })
}

// A file the daemon cannot read (saved by another user, or chmod 000) is
// a save it cannot take in: it is reported, left alone rather than
// rewritten over, and once it can be read the report is cleared and the
// save taken in.
func TestUnreadableFileIsReportedAndLeftAlone(t *testing.T) {
	r := newStoppedRig(t)
	done := r.q.ask(pending("a", nameQuestion))
	r.s.wantWrite = true
	r.s.write()
	f, err := Parse(r.read())
	if err != nil {
		t.Fatal(err)
	}
	save := fill(t, f, "a", `"orders"`)
	if err := os.WriteFile(r.path, save, 0o600); err != nil {
		t.Fatal(err)
	}
	restore := openRegular
	unreadable(t, r.path)
	r.s.read(false)
	r.wantReport("unreadable", "cannot be read")
	r.s.read(false)
	if msg, ok := r.nextReport(); ok {
		t.Errorf("the same trouble was reported again: %q", msg)
	}
	r.q.ask(pending("b", nameQuestion))
	r.s.wantWrite = true
	r.s.write()
	if got := r.read(); string(got) != string(save) {
		t.Fatalf("the unreadable file was rewritten:\n%s", got)
	}

	openRegular = restore // readable again (chmod 600)
	r.s.read(false)
	r.wantReport("readable again", "")
	wantAnswers(t, r.result(done), "orders")
	r.s.write()
	if f, err := Parse(r.read()); err != nil || len(f.Requests) != 1 || f.Requests[0].RequestID != "b" {
		t.Errorf("not rewritten once readable: %v\n%s", err, r.read())
	}
}

// An unreadable file removed altogether: the trouble is over too.
func TestUnreadableFileRemoved(t *testing.T) {
	r := newStoppedRig(t)
	r.q.ask(pending("a", nameQuestion))
	r.s.wantWrite = true
	r.s.write()
	unreadable(t, r.path)
	r.s.read(false)
	r.wantReport("unreadable", "cannot be read")
	if err := os.Remove(r.path); err != nil {
		t.Fatal(err)
	}
	r.s.read(false)
	r.wantReport("removed", "")
	if !r.s.wantWrite {
		t.Error("no rewrite asked for")
	}
}

// A save the daemon cannot read that lands between its read and its swap
// is put back at the path, not deleted with the daemon's swapped-out file.
func TestUnreadableSaveLandingDuringRewrite(t *testing.T) {
	r := newStoppedRig(t)
	r.q.ask(pending("a", nameQuestion))
	r.s.wantWrite = true
	r.s.write()
	seen := r.s.onDisk
	saveByRename(t, r.path, []byte(`{"someone else's": "save"}`), ".tmp")
	_, prev, err := swapIn(r.path, Render([]socketproto.Pending{pending("a", nameQuestion)}))
	if err != nil {
		t.Fatal(err)
	}
	if prev == "" {
		skips.Skip(t, "this file system cannot exchange files atomically")
	}
	unreadable(t, prev, r.path)
	r.s.rescue(prev, seen)
	if _, err := os.Lstat(prev); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the swapped-out file was left behind: %v", err)
	}
	if got, _ := os.ReadFile(r.path); string(got) != `{"someone else's": "save"}` {
		t.Fatalf("the save is not back at the path:\n%s", got)
	}
	r.s.read(false)
	r.wantReport("unreadable", "cannot be read")
}
