package testdaemon

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
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
	Skip(t, what+" (skipped; under CI=true this fails)")
}

// Skip skips t and remembers why, for ReportSkips.
func Skip(t testing.TB, why string) {
	t.Helper()
	skipped.Lock()
	skipped.why[t.Name()] = why
	skipped.Unlock()
	t.Skip(why)
}

var skipped = struct {
	sync.Mutex
	why map[string]string // test name → reason
}{why: map[string]string{}}

// ReportSkips ends a package's TestMain: it says which tests skipped and
// why. go test prints a passing package's output only with -v, so a plain
// `go test ./...` would pass in silence over what it did not test; the list
// goes to the terminal (/dev/tty) when there is one, else to stderr.
func ReportSkips(pkg string) {
	skipped.Lock()
	defer skipped.Unlock()
	if len(skipped.why) == 0 {
		return
	}
	names := make([]string, 0, len(skipped.why))
	for n := range skipped.why {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d %s skipped:\n", pkg, len(names), plural(len(names), "test", "tests"))
	for _, n := range names {
		fmt.Fprintf(&b, "  %s: %s\n", n, skipped.why[n])
	}
	w := os.Stderr
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		w = tty
	}
	fmt.Fprint(w, b.String())
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
