package skips

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m, "askuser/tests/skips")) }

// demo is set in the go test run that TestReportReachesAUserWithoutATerminal
// starts: there, TestDemoSkips skips as a machine without tmux would.
var demo = os.Getenv("ASKUSER_SKIPS_DEMO") == "1"

func TestDemoSkips(t *testing.T) {
	if !demo {
		t.Skip("run by TestReportReachesAUserWithoutATerminal")
	}
	for i := range 24 {
		t.Run(fmt.Sprintf("pane%d", i), func(t *testing.T) {
			SkipMissing(t, "tmux", "apt-get install tmux, or run .ci/run",
				"tmux is not installed: the pane's end-to-end tests drive the real pane in tmux; "+strings.Repeat("a long explanation ", 12))
		})
	}
	t.Run("root", func(t *testing.T) { Skip(t, "needs root to connect as another user") })
}

// A plain `go test ./...` run from an IDE, a script or CI (no terminal) shows
// the skips as one line per missing program, though go test prints nothing
// else of a passing package.
func TestReportReachesAUserWithoutATerminal(t *testing.T) {
	if demo {
		t.Skip("the demo run itself")
	}
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("the report reaches the go command's stderr through /proc, which this system lacks")
	}
	cmd := exec.Command("go", "test", "-count=1", "-run", "TestDemoSkips", ".")
	cmd.Env = append(os.Environ(), "ASKUSER_SKIPS_DEMO=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := []string{
		"askuser/tests/skips: 24 tests skipped: tmux is not installed (apt-get install tmux, or run .ci/run)",
		"askuser/tests/skips: TestDemoSkips/root skipped: needs root to connect as another user",
	}
	for _, w := range want {
		if !strings.Contains(string(out), w+"\n") {
			t.Errorf("the run's output lacks the line %q:\n%s", w, out)
		}
	}
	if len(lines) != len(want)+1 { // and go test's own "ok" line
		t.Errorf("want %d lines (one per cause, then ok), got %d:\n%s", len(want)+1, len(lines), out)
	}
}

// Written to a file (`go test ./... >log 2>&1`), the report is whole: go's
// own "ok" line, written after the test binary exits, comes after it and
// does not overwrite it.
func TestReportIntactInAFile(t *testing.T) {
	if demo {
		t.Skip("the demo run itself")
	}
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("the report reaches the go command's stderr through /proc, which this system lacks")
	}
	f := sharedStderr(os.Getpid())
	if f == nil {
		t.Skip("pidfd_getfd(2) is not allowed here: the report does not go into a file go writes over")
	}
	f.Close()
	log, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command("go", "test", "-count=1", "-run", "TestDemoSkips", ".")
	cmd.Env = append(os.Environ(), "ASKUSER_SKIPS_DEMO=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		t.Fatalf("go test: %v", err)
	}
	out, err := os.ReadFile(log.Name())
	if err != nil {
		t.Fatal(err)
	}
	want := "askuser/tests/skips: 24 tests skipped: tmux is not installed (apt-get install tmux, or run .ci/run)\n" +
		"askuser/tests/skips: TestDemoSkips/root skipped: needs root to connect as another user\n" +
		"ok  \taskuser/tests/skips"
	if !strings.HasPrefix(string(out), want) {
		t.Errorf("the log is not the report, then go's ok line:\n%s", out)
	}
}
