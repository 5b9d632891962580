package testdaemon

import (
	"os"
	"testing"
)

// Missing skips a test that needs something this machine does not have
// (tmux, OpenBSD netcat, an agent program, pseudo-terminals), with a message
// that says what and how to get it. Under CI=true, where .ci/run installs
// everything, it fails the test instead: a CI run must never pass by
// skipping what it was meant to test.
func Missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(what + " (CI=true: failing rather than skipping)")
	}
	t.Skip(what + " (skipped; under CI=true this fails)")
}
