// Package storytest runs stories: testdata/*/*.txtar files that each pin
// one case of a rule that runs on time, so that a new case is a new file
// and no Go. A package's one test walks its stories with Each and plays
// each one on testing/synctest's clock.
//
// A story is a txtar archive. Its comment says what it pins; then either
// its script follows in the comment, after a blank line (Script), or its
// sections hold what is set up and what happens (Section, Check).
package storytest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/rogpeppe/go-internal/txtar"
)

// Each runs run on every story glob names, each as a subtest named by its
// file; a glob that names none fails the test.
func Each(t *testing.T, glob string, run func(t *testing.T, file string, a *txtar.Archive)) {
	t.Helper()
	files, _ := filepath.Glob(glob)
	if len(files) == 0 {
		t.Fatalf("no stories in %s", glob)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			a, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			run(t, f, a)
		})
	}
}

// Scripts plays every story glob names whose script is in its comment
// (Script), each in a synctest bubble.
func Scripts(t *testing.T, glob string, play func(t *testing.T, file string, script []Line)) {
	t.Helper()
	Each(t, glob, func(t *testing.T, file string, a *txtar.Archive) {
		script := Script(t, file, a)
		synctest.Test(t, func(t *testing.T) { play(t, file, script) })
	})
}

// Transcripts plays every story glob names from its "setup" section, each
// in a synctest bubble, and checks what play says happened against its
// "happens" section (Check: update rewrites it, rewrite says how).
func Transcripts(t *testing.T, glob string, update bool, rewrite string, play func(t *testing.T, file, setup string) string) {
	t.Helper()
	Each(t, glob, func(t *testing.T, file string, a *txtar.Archive) {
		setup := Section(t, file, a, "setup")
		var got string
		synctest.Test(t, func(t *testing.T) { got = play(t, file, string(setup.Data)) })
		Check(t, file, a, "happens", got, update, rewrite)
	})
}

// Line is one line of a script, split into words, with its line number
// in the file.
type Line struct {
	N     int
	Words []string
}

// Script is the story's script: the comment's lines after its first
// paragraph, which says what the story pins. Blank lines and lines
// starting with # are left out.
func Script(t *testing.T, file string, a *txtar.Archive) []Line {
	t.Helper()
	lines := strings.Split(string(a.Comment), "\n")
	start := 0
	for start < len(lines) && strings.TrimSpace(lines[start]) != "" {
		start++
	}
	if start == 0 || start == len(lines) {
		t.Fatalf("%s: a story starts with a paragraph saying what it pins, then a blank line, then its script", file)
	}
	var out []Line
	for i, l := range lines[start:] {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, Line{N: start + i + 1, Words: strings.Fields(l)})
		}
	}
	return out
}

// Section is the archive's file called name; a story without it fails.
func Section(t *testing.T, file string, a *txtar.Archive, name string) *txtar.File {
	t.Helper()
	for i := range a.Files {
		if a.Files[i].Name == name {
			return &a.Files[i]
		}
	}
	t.Fatalf("%s: want a -- %s -- section", file, name)
	return nil
}

// Check compares got with the story's section name, what happened as the
// story says it. With update it rewrites the section instead; rewrite is
// the command that does so, for the failure's message.
func Check(t *testing.T, file string, a *txtar.Archive, name, got string, update bool, rewrite string) {
	t.Helper()
	want := Section(t, file, a, name)
	if update {
		want.Data = []byte(got)
		if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != string(want.Data) {
		t.Errorf("%s: what happens differs (%s rewrites it)\n--- want\n%s--- got\n%s", file, rewrite, want.Data, got)
	}
}
