package testdaemon

import (
	"os"
	"testing"

	"askuser/tests/skips"
)

// Missing skips a test that needs a program this machine does not have
// (tmux, OpenBSD netcat, an agent program, Chromium, pseudo-terminals):
// program names it, install says how to get it, and detail is the test's own
// message. Under CI=true, where .ci/run installs everything, it fails the
// test instead: a CI run must never pass by skipping what it was meant to
// test.
func Missing(t testing.TB, program, install, detail string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(detail + " (CI=true: failing rather than skipping)")
	}
	skips.SkipMissing(t, program, install, detail+" (skipped; under CI=true this fails)")
}

// ReportSkips ends a package's TestMain: see skips.Report.
func ReportSkips(pkg string) { skips.Report(pkg) }
