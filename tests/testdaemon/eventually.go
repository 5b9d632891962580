package testdaemon

import (
	"testing"
	"time"
)

// Settle is how long Eventually waits for what a test waits on: a safety
// net for a machine under load, never a measure of anything.
const Settle = 30 * time.Second

// Eventually waits until check reports that what the test waits for has
// happened, and returns what check last saw. check is polled: it looks at
// the state (a screen, a file, a list) and says whether it is there yet,
// and what it saw. Past Settle the test fails, naming what it waited for
// and the last state seen, so that a failure says what never happened.
func Eventually(t testing.TB, what string, check func() (done bool, saw string)) string {
	t.Helper()
	return EventuallyWithin(t, Settle, what, check)
}

// EventuallyWithin is Eventually with a safety net of limit instead of
// Settle, for what waits on a program slower than askuser's own (a real
// agent, started from npm, on a loaded machine).
func EventuallyWithin(t testing.TB, limit time.Duration, what string, check func() (done bool, saw string)) string {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		done, saw := check()
		if done {
			return saw
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s; last saw:\n%s", limit, what, saw)
			return saw
		}
		time.Sleep(15 * time.Millisecond)
	}
}
