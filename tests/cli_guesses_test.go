package tests

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"askuser/tests/testenv"
)

// A mistyped command, flag or config key is answered with the one it most
// likely meant, by every program.
func TestEveryProgramSaysDidYouMean(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.WriteConfig("[ui]\nbel = false\n")
	for _, c := range []struct {
		prog string
		args []string
		want string
	}{
		{"askuserd", []string{"sevre"}, `askuserd: unknown command "sevre"; did you mean "serve"?`},
		{"askuserd", []string{"--splt"}, "did you mean --split?"},
		{"askuserd", []string{"serve", "--sockt", "x"}, "did you mean --socket?"},
		{"askuser-client", []string{"lsit"}, `did you mean "list"?`},
		{"askuser-client", []string{"ask", "--muti", "--question", "Q?"}, "askuser-client ask: unknown flag --muti; did you mean --multi?"},
		{"askuser-client", []string{"ask", "--question", "A?", "--question", "B?"}, "--question given 2 times: the flags ask one question"},
	} {
		cmd := exec.Command(testenv.Bin(c.prog), c.args...)
		cmd.Env = e.Environ()
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("%s %v: %v, want exit 2\n%s", c.prog, c.args, err, out)
		}
		if !strings.Contains(string(out), c.want) {
			t.Errorf("%s %v said:\n%s\nwant %q", c.prog, c.args, out, c.want)
		}
	}
	// The config's unknown key: in the daemon's log (and, through the
	// same warning, in the pane and on the CLI's stderr).
	e.StartDaemon()
	testenv.Says(t, "the daemon's log", e.DaemonLog, "ui.bel: unknown key, ignored; did you mean ui.bell?")
}

// A second `askuserd web` on a port in use says which process holds it.
func TestWebOnAPortInUseNamesItsHolder(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cmd := exec.Command(testenv.Bin("askuserd"), "web", "--listen", ln.Addr().String())
	cmd.Env = e.Environ()
	// Its output goes to a file, not a pipe: a process it leaves behind
	// holding a pipe open must not keep the test waiting.
	outFile, err := os.Create(filepath.Join(e.Root, "web.out"))
	if err != nil {
		t.Fatal(err)
	}
	defer outFile.Close()
	cmd.Stdout, cmd.Stderr = outFile, outFile
	readOut := func() string { b, _ := os.ReadFile(outFile.Name()); return string(b) }
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGQUIT) // its goroutines, for the report
		<-done
		t.Fatalf("askuserd web on a used port still runs after 30 s:\n%s", readOut())
	}
	out := []byte(readOut())
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("askuserd web on a used port: %v\n%s", err, out)
	}
	// This test's own process holds it.
	want := regexp.MustCompile(regexp.QuoteMeta(ln.Addr().String()) + ` is held by pid \d+ \(tests\.test`)
	if !want.Match(out) {
		t.Errorf("askuserd web on a used port said:\n%s\nwant it to name the holder (%s)", out, want)
	}
}
