package testdaemon

import (
	"os"
	"testing"

	"askuser/tests/skips"
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
	Skip(t, what+" (skipped; under CI=true this fails)")
}

// Skip skips t and remembers why, for ReportSkips.
func Skip(t testing.TB, why string) {
	t.Helper()
	skips.Skip(t, why)
}

// ReportSkips ends a package's TestMain: see skips.Report.
func ReportSkips(pkg string) { skips.Report(pkg) }
