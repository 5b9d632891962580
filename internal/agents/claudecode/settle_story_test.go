package claudecode

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"askuser/internal/storytest"
)

var update = flag.Bool("update", false, "rewrite the -- happens -- sections of testdata/settle/*.txtar")

// How the hook learns that a permission prompt was settled in Claude
// Code's own dialog (docs/contract.md §11: the session record, the
// transcript, two polls in a row, the grace for the result) is pinned by
// stories, testdata/settle/*.txtar, run on synctest's clock. The archive's
// comment says what a story pins; its "setup" section is what Claude Code
// writes, when; its "happens" section how and when the hook's watch, begun
// at 0s with the dialog up, said it was settled (go test
// ./internal/agents/claudecode -run TestSettleStories -update rewrites it).
//
// setup lines, each at a time from the start:
//
//	at 0s record waiting permission prompt   the session record's status, and what it waits for
//	at 1s transcript call                    the call's tool_use (recorded), stamped then
//	at 1s transcript allowed                 its result, allowed (recorded), stamped then
//	at 1s transcript denied                  its result, refused in the dialog
//	at 1s transcript twin-call               an identical twin call's tool_use
//	at 1s transcript twin-allowed            the twin's result
//	until 10s                                the story ends (the hook stops watching)
func TestSettleStories(t *testing.T) {
	storytest.Transcripts(t, "testdata/settle/*.txtar", *update,
		"go test ./internal/agents/claudecode -run TestSettleStories -update", runSettleStory)
}

// settleStep is one setup line: at when, what Claude Code writes.
type settleStep struct {
	at   time.Duration
	what []string
}

func readSettleSetup(t *testing.T, file, setup string) (steps []settleStep, until time.Duration) {
	for _, l := range strings.Split(setup, "\n") {
		w := strings.Fields(l)
		switch {
		case len(w) == 0 || strings.HasPrefix(w[0], "#"):
			continue
		case w[0] == "until" && len(w) == 2:
			d, err := time.ParseDuration(w[1])
			if err != nil {
				t.Fatalf("%s: %q: %v", file, l, err)
			}
			until = d
		case w[0] == "at" && len(w) >= 4:
			d, err := time.ParseDuration(w[1])
			if err != nil {
				t.Fatalf("%s: %q: %v", file, l, err)
			}
			steps = append(steps, settleStep{at: d, what: w[2:]})
		default:
			t.Fatalf("%s: no setup line %q", file, l)
		}
	}
	if until == 0 {
		t.Fatalf("%s: a story says how long it runs (until D)", file)
	}
	return steps, until
}

func runSettleStory(t *testing.T, file, setup string) string {
	steps, until := readSettleSetup(t, file, setup)
	r := newSettledRig(t)
	lines := map[string]string{}
	for name, path := range map[string]string{"call": "transcript-bash-call.jsonl", "result": "transcript-bash-allowed-in-dialog.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", path))
		if err != nil {
			t.Fatal(err)
		}
		lines[name] = string(b)
	}
	// The call's input, as the hook input gives it.
	input := json.RawMessage(`{"command":"echo hello > marker-file && cat marker-file","description":"Write the marker file"}`)
	start := time.Now()
	write := func(what []string) {
		switch strings.Join(what, " ") {
		case "transcript call":
			r.append(Stamped(lines["call"], time.Now()))
		case "transcript allowed":
			r.append(Stamped(lines["result"], time.Now()))
		case "transcript denied":
			r.append(Stamped(Refused(lines["result"]), time.Now()))
		case "transcript twin-call":
			r.append(Stamped(Twin(lines["call"]), time.Now()))
		case "transcript twin-allowed":
			r.append(Stamped(Twin(lines["result"]), time.Now()))
		default:
			if what[0] != "record" || len(what) < 2 {
				t.Fatalf("%s: no step %q", file, strings.Join(what, " "))
			}
			r.says(what[1], strings.Join(what[2:], " "))
		}
	}
	i := 0
	for ; i < len(steps) && steps[i].at == 0; i++ {
		write(steps[i].what)
	}
	w := NewSettledWatch(r.transcript, "s1", "Bash", input, start)
	stop := make(chan struct{})
	got := w.Settled(stop)
	var said string
	heard := make(chan struct{})
	go func() {
		defer close(heard)
		select {
		case s := <-got:
			said = fmt.Sprintf("settled at %v: %s", time.Since(start), s)
		case <-stop:
		}
	}()
	for ; i < len(steps); i++ {
		time.Sleep(steps[i].at - time.Since(start)) // synctest's clock: the story's time passing
		write(steps[i].what)
	}
	time.Sleep(until - time.Since(start))
	synctest.Wait()
	close(stop)
	<-heard
	if said == "" {
		said = fmt.Sprintf("not settled by %v", until)
	}
	return said + "\n"
}

// append adds a line to the transcript, as Claude Code writes it.
func (r *settledRig) append(line string) {
	r.t.Helper()
	f, err := os.OpenFile(r.transcript, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.TrimRight(line, "\n") + "\n"); err != nil {
		r.t.Fatal(err)
	}
}
