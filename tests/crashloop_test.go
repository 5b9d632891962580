package tests

import (
	"context"
	"os"
	"testing"
	"time"

	"askuser/tests/crashloop"
	"askuser/tests/testenv"
)

// docs/contract.md §10 proved by breaking it: 50 SIGKILLs of the real daemon at random
// moments under mixed load (parked and waiting asks; answers and cancels by
// socket, by askuser-client and by the pending file; drafts by socket),
// some right after a save of the pending file and some right after a
// draft's ok that followed one. Saves are of the newest copy or of one a
// few revisions old, by rename or in place. Every acknowledged ask is back
// or resolved, every acknowledged answer or cancel is its request's one
// resolution, nothing is resolved twice, every resolved request is in
// history.jsonl exactly once, and no request is resolved with an answer
// nobody gave it (docs/contract.md §5: a draft is never a submission by itself).
// bench/crashloop runs the same as a soak.
func TestCrashLoopLosesNothingAcknowledged(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"batch", "always"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel() // each mode has its own daemon and directory
			root, err := os.MkdirTemp("", "au-cl-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(root)
			kills := 40
			if mode == "always" {
				kills = 10
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			rep, err := crashloop.Run(ctx, crashloop.Options{
				Askuserd: testenv.Bin("askuserd"), Client: testenv.Bin("askuser-client"), Root: root,
				Kills: kills, Seed: uint64(time.Now().UnixNano()), Sync: mode, Load: 120 * time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Log(rep)
			if rep.AsksAcked == 0 || rep.AnswersAcked+rep.CancelsAcked == 0 {
				t.Fatalf("the load did nothing: %s", rep)
			}
			if rep.Lost+rep.Duplicated+rep.NotGiven > 0 {
				for _, p := range rep.Problems {
					t.Error(p)
				}
				t.Fatal(rep)
			}
		})
	}
}
