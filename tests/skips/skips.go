// Package skips remembers why tests skipped and says so at the end of a
// package's run, one line per cause. go test prints a passing package's
// output only with -v, so a plain `go test ./...` would otherwise pass in
// silence over what it did not test — in a terminal, an IDE, a script or a
// CI log alike. It imports nothing of the project, so that any package's
// tests can use it.
package skips

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Skip skips t and remembers why, for Report. Tests skipped for the same
// reason are reported on one line.
func Skip(t testing.TB, why string) {
	t.Helper()
	remember(t.Name(), cause{text: why})
	t.Skip(why)
}

// Skipf is Skip with a format.
func Skipf(t testing.TB, format string, args ...any) {
	t.Helper()
	Skip(t, fmt.Sprintf(format, args...))
}

// SkipMissing skips t because program is not on this machine; install says
// how to get it ("apt-get install tmux"). Report gives one line per missing
// program however many tests needed it; detail (which may name paths and
// versions) goes only to the test's own skip message.
func SkipMissing(t testing.TB, program, install, detail string) {
	t.Helper()
	remember(t.Name(), cause{program: program, text: install})
	t.Skip(detail)
}

// cause is why a test skipped: a missing program (and how to install it),
// or a sentence.
type cause struct{ program, text string }

var skipped = struct {
	sync.Mutex
	why map[string]cause // test name → cause
}{why: map[string]cause{}}

func remember(test string, c cause) {
	skipped.Lock()
	skipped.why[test] = c
	skipped.Unlock()
}

// Summary is the report for pkg: one line per cause, "" when nothing
// skipped.
func Summary(pkg string) string {
	skipped.Lock()
	defer skipped.Unlock()
	groups := map[cause][]string{}
	for test, c := range skipped.why {
		groups[c] = append(groups[c], test)
	}
	var lines []string
	for c, tests := range groups {
		sort.Strings(tests)
		n := tests[0]
		if len(tests) > 1 {
			n = fmt.Sprintf("%d tests", len(tests))
		}
		if c.program != "" {
			lines = append(lines, fmt.Sprintf("%s: %s skipped: %s is not installed (%s)", pkg, n, c.program, c.text))
		} else {
			lines = append(lines, fmt.Sprintf("%s: %s skipped: %s", pkg, n, c.text))
		}
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// Report ends a package's TestMain: it writes Summary where the person who
// ran the tests will see it (see reportTo).
func Report(pkg string) {
	s := Summary(pkg)
	if s == "" {
		return
	}
	w, closeW := reportTo()
	defer closeW()
	fmt.Fprint(w, s)
}

// reportTo is where the report goes: the terminal when there is one; else
// the standard error of the go command that ran this test binary (an IDE's
// or a script's pipe, a CI log, a file), which — unlike this binary's own
// output — go test does not swallow for a passing package; else this
// binary's stderr.
//
// Into a file (`go test ./... >log 2>&1`) the report must be written
// through the go command's own descriptor, not the file opened again: go
// writes its "ok" line after this binary exits, at its descriptor's offset,
// which a second opening of the file does not move, so the "ok" line (and
// every package after it) would be written over the report.
func reportTo() (io.Writer, func()) {
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		return tty, func() { tty.Close() }
	}
	parent := os.Getppid()
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", parent)); err == nil && filepath.Base(exe) == "go" {
		if f := sharedStderr(parent); f != nil {
			return f, func() { f.Close() }
		}
		if fi, err := os.Stat(fmt.Sprintf("/proc/%d/fd/2", parent)); err == nil && (!fi.Mode().IsRegular() || appends(parent, 2)) {
			// A pipe or a terminal has no offset to share: opened again, it is
			// the same stream; nor has a file go appends to (>>log).
			if f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/2", parent), os.O_WRONLY|os.O_APPEND, 0); err == nil {
				return f, func() { f.Close() }
			}
		}
	}
	return os.Stderr, func() {}
}

// appends reports whether pid's descriptor fd was opened with O_APPEND, so
// that each of its writes goes to the end of the file, wherever another
// opening wrote.
func appends(pid, fd int) bool {
	info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%d", pid, fd))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(info), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			return err == nil && flags&uint64(os.O_APPEND) != 0
		}
	}
	return false
}

// Main runs a package's tests and then Report: use it as TestMain's body.
func Main(m *testing.M, pkg string) int {
	code := m.Run()
	Report(pkg)
	return code
}
