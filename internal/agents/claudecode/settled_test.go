package claudecode

import (
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"
)

// settledRig is a Claude Code config dir with one session's record and an
// empty transcript, as the hook finds them.
type settledRig struct {
	t          *testing.T
	record     string
	transcript string
}

func newSettledRig(t *testing.T) *settledRig {
	config := t.TempDir()
	r := &settledRig{t: t,
		record:     filepath.Join(config, "sessions", "4242.json"),
		transcript: filepath.Join(config, "projects", "-work", "s1.jsonl")}
	for _, d := range []string{filepath.Dir(r.record), filepath.Dir(r.transcript)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(r.transcript, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return r
}

// says writes the session record's status as Claude Code does.
func (r *settledRig) says(status, waitingFor string) {
	r.t.Helper()
	b := `{"sessionId":"s1","status":"` + status + `","waitingFor":"` + waitingFor + `"}`
	if err := os.WriteFile(r.record, []byte(b), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// watchAsking has the record say the dialog is up, starts the hook's
// watch on it, and lets it look once; the watch stops with the test.
func (r *settledRig) watchAsking() <-chan string {
	r.says("waiting", "permission prompt")
	w := NewSettledWatch(r.transcript, "s1", "Bash", []byte(`{"command":"make"}`), time.Now())
	stop := make(chan struct{})
	r.t.Cleanup(func() { close(stop) })
	got := w.Settled(stop)
	polls(1)
	return got
}

// polls lets n polls of the watcher happen on the bubble's clock.
func polls(n int) {
	for range n {
		time.Sleep(SettledPoll)
		synctest.Wait()
	}
}

func nothingYet(t *testing.T, got <-chan string, when string) {
	t.Helper()
	select {
	case s := <-got:
		t.Fatalf("%s: settled already (%q)", when, s)
	default:
	}
}

// The settle rules of the hook (docs/contract.md §11), on synctest's clock:
// a dialog counts as answered in Claude Code only after settledPolls polls
// in a row say it is no longer up; then, with no tool running and no
// result in the transcript, the hook gives the result resultGrace to say
// how before it says only that it was answered.
func TestSettledAfterTwoPollsThenTheGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSettledRig(t)
		got := r.watchAsking()
		r.says("idle", "")
		polls(settledPolls - 1)
		nothingYet(t, got, "one poll after the dialog went")
		polls(1)
		answered := time.Now()
		nothingYet(t, got, "within the grace for the call's result")
		if s := <-got; s != settledUnknown {
			t.Fatalf("settled %q, want %q", s, settledUnknown)
		}
		if waited := time.Since(answered); waited < resultGrace || waited > resultGrace+SettledPoll {
			t.Errorf("said it after %v, want the grace of %v", waited, resultGrace)
		}
	})
}

// With two prompts up at once Claude Code moves from one to the next: a
// record that says "not asking" for one poll in between settles nothing.
func TestSettledNotBetweenTwoPrompts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSettledRig(t)
		got := r.watchAsking()
		r.says("busy", "")
		polls(1)
		r.says("waiting", "permission prompt")
		polls(100)
		nothingYet(t, got, "a dialog that came back")
	})
}

// Answered and a tool running: allowed (Claude Code ends the turn on a
// refusal), said at once, without the grace.
func TestSettledRunningAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSettledRig(t)
		got := r.watchAsking()
		r.says("busy", "")
		polls(settledPolls)
		select {
		case s := <-got:
			if s != settledRunning {
				t.Fatalf("settled %q, want %q", s, settledRunning)
			}
		default:
			t.Fatal("not settled after the polls")
		}
	})
}
