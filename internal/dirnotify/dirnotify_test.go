//go:build linux

package dirnotify_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"askuser/internal/dirnotify"
)

// next is the watcher's next event; inotify keeps the order of what
// happened, so the absence of an event is shown by the one after it.
func next(t *testing.T, w *dirnotify.Watcher) dirnotify.Event {
	t.Helper()
	select {
	case ev, ok := <-w.Events:
		if !ok {
			t.Fatal("Events closed")
		}
		return ev
	case err := <-w.Errors:
		t.Fatalf("watch error: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
	}
	return dirnotify.Event{}
}

func watching(t *testing.T) (*dirnotify.Watcher, string) {
	t.Helper()
	dir := t.TempDir()
	w, err := dirnotify.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	return w, dir
}

func want(t *testing.T, ev dirnotify.Event, name string, op dirnotify.Op) {
	t.Helper()
	if ev.Name != name || !ev.Has(op) {
		t.Fatalf("event %v, want %v on %s", ev, op, name)
	}
}

// A file written to and kept open, as the daemon's journal is, says
// nothing until its writer closes it; then it is one Write.
func TestWritesAreReportedWhenTheWriterCloses(t *testing.T) {
	w, dir := watching(t)
	journal := filepath.Join(dir, "state.jsonl")
	f, err := os.OpenFile(journal, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	want(t, next(t, w), journal, dirnotify.Create)
	for range 100 {
		if _, err := f.WriteString("{}\n"); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(dir, "marker")
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	want(t, next(t, w), marker, dirnotify.Create) // no Write for the open journal came before it
	want(t, next(t, w), marker, dirnotify.Write)  // os.WriteFile closed it
	f.Close()
	want(t, next(t, w), journal, dirnotify.Write)
}

// An editor's save by rename is a Create of the file's name.
func TestASaveByRenameIsACreate(t *testing.T) {
	w, dir := watching(t)
	tmp, target := filepath.Join(dir, ".x.swp"), filepath.Join(dir, "pending-questions.json")
	if err := os.WriteFile(tmp, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	want(t, next(t, w), tmp, dirnotify.Create)
	want(t, next(t, w), tmp, dirnotify.Write)
	if err := os.Rename(tmp, target); err != nil {
		t.Fatal(err)
	}
	want(t, next(t, w), tmp, dirnotify.Rename)
	want(t, next(t, w), target, dirnotify.Create)
}

// The watched directory removed is a Remove of its own name; moved away, a
// Rename, after which it is no longer watched.
func TestTheDirectoryItselfGone(t *testing.T) {
	w, dir := watching(t)
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	want(t, next(t, w), dir, dirnotify.Remove)

	moved := t.TempDir()
	if err := w.Add(moved); err != nil {
		t.Fatal(err)
	}
	away := moved + ".away"
	if err := os.Rename(moved, away); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(away) })
	want(t, next(t, w), moved, dirnotify.Rename)
	if err := w.Remove(moved); err == nil {
		t.Fatal("the moved directory is still watched")
	}
}

// After Remove nothing more is said of the directory; Close closes both
// channels.
func TestRemoveAndClose(t *testing.T) {
	w, dir := watching(t)
	other := t.TempDir()
	if err := w.Add(other); err != nil {
		t.Fatal(err)
	}
	if err := w.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "unwatched"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(other, "marker")
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	want(t, next(t, w), marker, dirnotify.Create)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-w.Events; ok {
		t.Fatal("Events still open after Close")
	}
	if _, ok := <-w.Errors; ok {
		t.Fatal("Errors still open after Close")
	}
	if err := w.Add(other); err == nil {
		t.Fatal("Add after Close worked")
	}
}

// Only directories are watched.
func TestAFileIsNotADirectory(t *testing.T) {
	w, dir := watching(t)
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(f); err == nil {
		t.Fatal("watching a file worked")
	}
}
