package pendingfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"askuser/tests/testdaemon"
)

// Each scenario is a user editing the pending file the way a real editor
// does, against a real Syncer on a real directory, with the outcomes that
// must come out. (After fsnotify's testdata/watch-*: editor behaviour pinned
// by scenario.)
var scenarios = []struct {
	name string
	run  func(t *testing.T, r *rig)
}{
	{"vim saves by rename with a backup", func(t *testing.T, r *rig) {
		done := r.ask("a", dbQuestion, nameQuestion)
		f := r.fileWith("a")
		saveVim(t, r.path, fill(t, f, "a", `"sqlite"`, `"orders"`))
		wantAnswers(t, r.result(done), "SQLite", "orders")
		r.fileWith()
		r.noReports()
	}},
	{"VS Code writes a temp file and renames it", func(t *testing.T, r *rig) {
		done := r.ask("a", featuresQuestion)
		f := r.fileWith("a")
		saveByRename(t, r.path, fill(t, f, "a", `[1, "Logging"]`), ".pending-questions.json.vsctmp")
		wantAnswers(t, r.result(done), "Authentication, Logging")
		r.noReports()
	}},
	{"sed -i", func(t *testing.T, r *rig) {
		done := r.ask("a", nameQuestion)
		r.fileWith("a")
		out, err := exec.Command("sed", "-i", `s/"answer": null/"answer": "orders"/`, r.path).CombinedOutput()
		if err != nil {
			t.Fatalf("sed: %v: %s", err, out)
		}
		wantAnswers(t, r.result(done), "orders")
		r.noReports()
	}},
	{"truncate then write in two write() calls", func(t *testing.T, r *rig) {
		done := r.ask("a", dbQuestion)
		f := r.fileWith("a")
		saveInPlace(t, r.path, fill(t, f, "a", `2`), 5*time.Millisecond)
		wantAnswers(t, r.result(done), "SQLite")
		r.fileWith()
	}},
	{"in place without truncating, shorter: garbage, then a corrected save", func(t *testing.T, r *rig) {
		done := r.ask("a", nameQuestion)
		f := r.fileWith("a")
		short := fill(t, f, "a", `"x"`)
		short = bytes.ReplaceAll(short, []byte("    "), []byte(" ")) // shorter than the daemon's file
		overwriteNoTrunc(t, r.path, short)
		msg := r.report()
		if !strings.HasPrefix(msg, "line ") || !strings.Contains(msg, "after the end of the file's JSON object") {
			t.Errorf("report %q", msg)
		}
		rejected, err := os.ReadFile(r.s.RejectedPath())
		if err != nil || !bytes.HasPrefix(rejected, short) || len(rejected) == len(short) {
			t.Errorf("the rejected save was not kept whole (%v):\n%s", err, rejected)
		}
		saveInPlace(t, r.path, short, 0)
		wantAnswers(t, r.result(done), "x")
	}},
	{"cp over the file", func(t *testing.T, r *rig) {
		done := r.ask("a", dbQuestion, nameQuestion)
		f := r.fileWith("a")
		src := filepath.Join(t.TempDir(), "answers.json")
		if err := os.WriteFile(src, fill(t, f, "a", `"MongoDB"`, `" orders "`), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("cp", src, r.path).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v: %s", err, out)
		}
		wantAnswers(t, r.result(done), "MongoDB", "orders")
		r.noReports()
	}},
	{"an editor that keeps file~ and renames a temp file in", func(t *testing.T, r *rig) {
		done := r.ask("a", nameQuestion)
		f := r.fileWith("a")
		old, _ := os.ReadFile(r.path)
		if err := os.WriteFile(r.path+"~", old, 0o600); err != nil {
			t.Fatal(err)
		}
		saveByRename(t, r.path, fill(t, f, "a", `"orders"`), ".goutputstream-ABC123")
		wantAnswers(t, r.result(done), "orders")
		r.noReports()
	}},
	{"two saves 1 ms apart", func(t *testing.T, r *rig) {
		done := r.ask("a", dbQuestion, nameQuestion)
		f := r.fileWith("a")
		saveByRename(t, r.path, fill(t, f, "a", `"SQLite"`), ".tmp1")
		time.Sleep(time.Millisecond) // the scenario: the user's two saves, 1 ms apart
		saveByRename(t, r.path, fill(t, f, "a", "", `"orders"`), ".tmp2")
		wantAnswers(t, r.result(done), "SQLite", "orders")
		r.fileWith()
		r.noReports()
	}},
	{"a save that answers one of two requests", func(t *testing.T, r *rig) {
		doneA := r.ask("a", dbQuestion)
		r.ask("b", nameQuestion)
		f := r.fileWith("a", "b")
		saveVim(t, r.path, fill(t, f, "a", `"postgresql (recommended)"`))
		wantAnswers(t, r.result(doneA), "PostgreSQL (Recommended)")
		r.fileWith("b")
		r.noReports()
	}},
	{"a stale buffer lacking a newer request leaves it unchanged", func(t *testing.T, r *rig) {
		doneA := r.ask("a", nameQuestion)
		stale := r.fileWith("a")
		doneB := r.ask("b", dbQuestion)
		r.fileWith("a", "b")
		saveVim(t, r.path, fill(t, stale, "a", `"orders"`))
		wantAnswers(t, r.result(doneA), "orders")
		f := r.fileWith("b")
		if string(f.Requests[0].Questions[0].Answer) != "null" {
			t.Errorf("b changed: %s", f.Requests[0].Questions[0].Answer)
		}
		select {
		case o := <-doneB:
			t.Errorf("b resolved: %+v", o)
		default:
		}
		r.noReports()
	}},
	{"a stale buffer saved unchanged: the newer request comes back", func(t *testing.T, r *rig) {
		r.ask("a", nameQuestion)
		r.fileWith("a")
		stale := r.read()
		r.ask("b", dbQuestion)
		r.fileWith("a", "b")
		saveVim(t, r.path, stale)
		r.fileWith("a", "b")
		saveByRename(t, r.path, stale, ".tmp") // the same bytes again
		r.fileWith("a", "b")
		r.noReports()
	}},
	// docs/contract.md §5: a save is merged against the revision it was edited from.
	{"a pane's complete draft is not sent by a save that answers another request (sed -i)", func(t *testing.T, r *rig) {
		doneR := r.ask("r", dbQuestion, nameQuestion)
		doneS := r.ask("s", nameQuestion)
		r.fileWith("r", "s")
		r.paneDraft("r", `1`, `"orders"`)
		r.fileShows("r", `1`, `"orders"`)
		out, err := exec.Command("sed", "-i", `/"s"/,$ s/"answer": null/"answer": "billing"/`, r.path).CombinedOutput()
		if err != nil {
			t.Fatalf("sed: %v: %s", err, out)
		}
		wantAnswers(t, r.result(doneS), "billing")
		r.fileWith("r")
		r.stillPending("r", doneR, `1`, `"orders"`)
		r.noReports()
	}},
	{"vim: an old buffer saved over a pane's newer answers keeps them", func(t *testing.T, r *rig) {
		doneR := r.ask("r", dbQuestion, nameQuestion)
		doneS := r.ask("s", nameQuestion)
		r.fileWith("r", "s")
		stale := r.read()
		// Several revisions go by while the buffer sits in the editor.
		r.paneDraft("r", `1`, ``)
		r.fileShows("r", `1`, ``)
		r.paneDraft("r", `1`, `"orders"`)
		r.fileShows("r", `1`, `"orders"`)
		saveVim(t, r.path, answerIn(t, stale, "s", `"billing"`))
		wantAnswers(t, r.result(doneS), "billing")
		r.fileShows("r", `1`, `"orders"`)
		r.stillPending("r", doneR, `1`, `"orders"`)
		r.noReports()
	}},
	{"truncate and write: an old buffer's edit of one answer keeps the pane's other", func(t *testing.T, r *rig) {
		doneR := r.ask("r", dbQuestion, nameQuestion)
		r.fileWith("r")
		stale := r.read()
		r.paneDraft("r", ``, `"orders"`)
		r.fileShows("r", ``, `"orders"`)
		// The user answers the first question in the old buffer: with the
		// pane's answer to the second, the request is complete and sent.
		saveInPlace(t, r.path, answerIn(t, stale, "r", `"SQLite"`), 5*time.Millisecond)
		wantAnswers(t, r.result(doneR), "SQLite", "orders")
		r.fileWith()
		r.noReports()
	}},
	{"an old buffer that changed nothing of a request leaves the pane's clearing alone", func(t *testing.T, r *rig) {
		doneR := r.ask("r", nameQuestion)
		doneS := r.ask("s", nameQuestion)
		r.paneDraft("r", `"orders"`)
		r.fileShows("r", `"orders"`)
		stale := r.read()
		r.paneDraft("r", ``) // cleared in the pane since
		r.fileShows("r", ``)
		saveByRename(t, r.path, answerIn(t, stale, "s", `"billing"`), ".pending-questions.json.tmp")
		wantAnswers(t, r.result(doneS), "billing")
		r.stillPending("r", doneR, ``)
		r.noReports()
	}},
	{"a save without a revision is merged against the newest state", func(t *testing.T, r *rig) {
		doneR := r.ask("r", nameQuestion)
		doneS := r.ask("s", nameQuestion)
		r.paneDraft("r", `"orders"`)
		data := withoutRevision(r.fileShows("r", `"orders"`))
		saveVim(t, r.path, answerIn(t, data, "s", `"billing"`))
		wantAnswers(t, r.result(doneS), "billing")
		r.stillPending("r", doneR, `"orders"`)
		r.noReports()
	}},
	{"a syntax error, then a corrected save; .rejected kept", func(t *testing.T, r *rig) {
		done := r.ask("a", nameQuestion)
		f := r.fileWith("a")
		good := fill(t, f, "a", `"orders"`)
		bad := bytes.Replace(good, []byte(`"orders"`), []byte(`"orders",`), 1)
		saveByRename(t, r.path, bad, ".tmp")
		msg := r.report()
		line := 1 + bytes.Count(bad[:bytes.Index(bad, []byte(`"orders",`))], []byte("\n"))
		if want := "line " + itoa(line+1) + ", column "; !strings.HasPrefix(msg, want) {
			t.Errorf("report %q, want it to start with %q", msg, want)
		}
		if kept, _ := os.ReadFile(r.s.RejectedPath()); !bytes.Equal(kept, bad) {
			t.Errorf(".rejected holds:\n%s", kept)
		}
		if !strings.Contains(r.log(), "kept as "+r.s.RejectedPath()) {
			t.Errorf("the log does not say where the rejected save went:\n%s", r.log())
		}
		saveByRename(t, r.path, good, ".tmp")
		wantAnswers(t, r.result(done), "orders")
		r.fileWith()
		if kept, _ := os.ReadFile(r.s.RejectedPath()); !bytes.Equal(kept, bad) {
			t.Errorf(".rejected is gone or changed:\n%s", kept)
		}
	}},
	{"a broken save is not overwritten before it is kept", func(t *testing.T, r *rig) {
		r.ask("a", nameQuestion)
		f := r.fileWith("a")
		bad := append(fill(t, f, "a", `"orders"`), "}\n"...)
		saveByRename(t, r.path, bad, ".tmp")
		r.ask("b", nameQuestion) // a rewrite wants to happen at once
		r.fileWith("a", "b")
		if kept, _ := os.ReadFile(r.s.RejectedPath()); !bytes.Equal(kept, bad) {
			t.Errorf(".rejected holds:\n%s", kept)
		}
		r.report()
	}},
	{"a request added while the user's save is in flight", func(t *testing.T, r *rig) {
		for i := range 20 {
			a, b := "a"+itoa(i), "b"+itoa(i)
			doneA := r.ask(a, nameQuestion)
			f := r.fileWith(a)
			save := fill(t, f, a, `"answer `+itoa(i)+`"`)
			r.ask(b, nameQuestion) // no wait: the rewrite races the save
			saveByRename(t, r.path, save, ".tmp")
			wantAnswers(t, r.result(doneA), "answer "+itoa(i))
			if _, ok := r.q.get(b); !ok {
				t.Fatalf("%s was lost", b)
			}
			f = r.fileWith(b)
			saveByRename(t, r.path, fill(t, f, b, `"done"`), ".tmp")
			r.fileWith()
		}
		r.noReports()
	}},
	{"a draft survives rewrites", func(t *testing.T, r *rig) {
		done := r.ask("a", dbQuestion, nameQuestion)
		f := r.fileWith("a")
		saveVim(t, r.path, fill(t, f, "a", "", `"orders"`))
		r.waitDraft("a", "", `"orders"`)
		r.ask("b", nameQuestion)
		f = r.fileWith("a", "b")
		if got := string(f.Requests[0].Questions[1].Answer); got != `"orders"` {
			t.Fatalf("draft lost in the rewrite: %s", got)
		}
		saveVim(t, r.path, fill(t, f, "a", `3`))
		wantAnswers(t, r.result(done), "MongoDB", "orders")
		r.noReports()
	}},
	{"an answer that does not fit is reported and kept", func(t *testing.T, r *rig) {
		done := r.ask("a", dbQuestion)
		f := r.fileWith("a")
		saveVim(t, r.path, fill(t, f, "a", `["SQLite", "MongoDB"]`))
		if msg := r.report(); !strings.Contains(msg, `request "a", questions[0].answer`) {
			t.Errorf("report %q", msg)
		}
		f = r.fileWith("a")
		if got := string(f.Requests[0].Questions[0].Answer); !strings.Contains(got, "MongoDB") {
			t.Errorf("the rejected answer was not kept as a draft: %s", got)
		}
		saveVim(t, r.path, fill(t, f, "a", `"SQLite"`))
		wantAnswers(t, r.result(done), "SQLite")
	}},
	{"cancel: true declines", func(t *testing.T, r *rig) {
		done := r.ask("a", dbQuestion)
		f := r.fileWith("a")
		f.Requests[0].Cancel = true
		saveVim(t, r.path, marshal(t, f))
		if o := r.result(done); !o.cancelled {
			t.Errorf("outcome %+v, want cancelled", o)
		}
		r.fileWith()
	}},
	{"an unknown request is reported and ignored", func(t *testing.T, r *rig) {
		done := r.ask("a", nameQuestion)
		f := r.fileWith("a")
		extra := f.Requests[0]
		extra.RequestID = "nobody-asked"
		f.Requests = append(f.Requests, extra)
		saveVim(t, r.path, fill(t, f, "a", `"orders"`))
		wantAnswers(t, r.result(done), "orders")
		if msg := r.report(); !strings.Contains(msg, `"nobody-asked" is not waiting`) {
			t.Errorf("report %q", msg)
		}
	}},
	{"the file deleted comes back on the next change", func(t *testing.T, r *rig) {
		done := r.ask("a", nameQuestion)
		f := r.fileWith("a")
		saveVim(t, r.path, fill(t, f, "a", "")) // nothing answered yet
		if err := os.Remove(r.path); err != nil {
			t.Fatal(err)
		}
		r.ask("b", nameQuestion)
		f = r.fileWith("a", "b")
		saveVim(t, r.path, fill(t, f, "a", `"orders"`))
		wantAnswers(t, r.result(done), "orders")
		r.noReports()
	}},
	{"the directory deleted and recreated by the user", func(t *testing.T, r *rig) {
		done := r.ask("a", nameQuestion)
		f := r.fileWith("a")
		removeTree(t, r.dir)
		if err := os.MkdirAll(r.dir, 0o700); err != nil {
			t.Fatal(err)
		}
		saveNew(t, r.path, fill(t, f, "a", `"orders"`))
		wantAnswers(t, r.result(done), "orders")
		r.fileWith()
	}},
	{"the directory deleted, then recreated by the next change", func(t *testing.T, r *rig) {
		done := r.ask("a", nameQuestion)
		r.fileWith("a")
		removeTree(t, filepath.Dir(r.dir)) // its parent too
		r.ask("b", nameQuestion)
		f := r.fileWith("a", "b")
		if fi, err := os.Stat(r.dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("recreated directory: %v, %v", fi, err)
		}
		saveVim(t, r.path, fill(t, f, "a", `"orders"`))
		wantAnswers(t, r.result(done), "orders")
		r.fileWith("b")
	}},
}

func TestScenarios(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, newRig(t))
		})
	}
}

// removeTree is rm -rf of dir while the daemon may be writing into it: a
// file written back between the listing and the rmdir ("directory not
// empty") is removed on the next pass, as a user running rm -rf again
// would, until it succeeds.
func removeTree(t *testing.T, dir string) {
	t.Helper()
	testdaemon.Eventually(t, "rm -rf "+dir+" to succeed", func() (bool, string) {
		err := os.RemoveAll(dir)
		if err != nil && !errors.Is(err, syscall.ENOTEMPTY) {
			t.Fatalf("removing %s: %v", dir, err)
		}
		return err == nil, fmt.Sprint(err)
	})
}
