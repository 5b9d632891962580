package web

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"askuser/internal/storytest"
)

// How long a session outlives its pages (idleEnd) is pinned by stories,
// testdata/linger/*.txtar, run on synctest's clock. A story is a comment
// saying what it pins and, after a blank line, its lines:
//
//	open A        a page opens a stream on the session, named A
//	close A       page A goes (closed, reloaded, or its phone slept)
//	wait 1m59s    that much time passes
//	alive         the session is still there (what was typed is kept)
//	ended         the session has ended (its core closed, its link gone)
//
// The session's daemon link finds no daemon, and keeps saying so.
func TestLingerScenarios(t *testing.T) {
	storytest.Scripts(t, "testdata/linger/*.txtar", runLingerStory)
}

func runLingerStory(t *testing.T, file string, script []storytest.Line) {
	s := &server{o: Options{Socket: filepath.Join(t.TempDir(), "none.sock")}, stop: make(chan struct{}), sessions: map[string]*session{}}
	defer func() { s.endSessions(); s.wg.Wait() }()
	se := s.sessionFor("id")
	pages := map[string]*stream{}
	alive := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.sessions["id"] == se
	}
	for _, l := range script {
		w := l.Words
		at := fmt.Sprintf("%s:%d: %q", file, l.N, strings.Join(w, " "))
		switch {
		case w[0] == "open" && len(w) == 2:
			st, ok := se.open()
			if !ok {
				t.Fatalf("%s: the session would not open a stream (it has ended)", at)
			}
			pages[w[1]] = st
		case w[0] == "close" && len(w) == 2 && pages[w[1]] != nil:
			se.closeStream(pages[w[1]])
		case w[0] == "wait" && len(w) == 2:
			d, err := time.ParseDuration(w[1])
			if err != nil {
				t.Fatalf("%s: %v", at, err)
			}
			time.Sleep(d) // synctest's clock: the story's time passing
		case len(w) == 1 && w[0] == "alive":
			if !alive() {
				t.Fatalf("%s: the session has ended", at)
			}
		case len(w) == 1 && w[0] == "ended":
			if alive() {
				t.Fatalf("%s: the session is still there", at)
			}
		default:
			t.Fatalf("%s: no such line (open NAME, close NAME, wait D, alive, ended)", at)
		}
		synctest.Wait()
	}
}
