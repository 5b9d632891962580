// Package skips remembers why tests skipped and says so at the end of a
// package's run. go test prints a passing package's output only with -v, so
// a plain `go test ./...` would otherwise pass in silence over what it did
// not test. It imports nothing of the project, so that any package's tests
// can use it.
package skips

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Skip skips t and remembers why, for Report.
func Skip(t testing.TB, why string) {
	t.Helper()
	skipped.Lock()
	skipped.why[t.Name()] = why
	skipped.Unlock()
	t.Skip(why)
}

// Skipf is Skip with a format.
func Skipf(t testing.TB, format string, args ...any) {
	t.Helper()
	Skip(t, fmt.Sprintf(format, args...))
}

var skipped = struct {
	sync.Mutex
	why map[string]string // test name → reason
}{why: map[string]string{}}

// Report ends a package's TestMain: it says which tests skipped and why, on
// the terminal (/dev/tty) when there is one, else on stderr.
func Report(pkg string) {
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
	noun := "tests"
	if len(names) == 1 {
		noun = "test"
	}
	fmt.Fprintf(&b, "%s: %d %s skipped:\n", pkg, len(names), noun)
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

// Main runs a package's tests and then Report: use it as TestMain's body.
func Main(m *testing.M, pkg string) int {
	code := m.Run()
	Report(pkg)
	return code
}
