package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/termpane"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// BenchmarkPaneIdleCPU measures the CPU a real pane (askuserd in tmux, on a
// real daemon, showing one question) uses while nobody types: clock ticks
// (1/100 s) over 30 s. The binaries are the harness's -race builds.
//
//	go test -run '^$' -bench PaneIdleCPU -benchtime 1x ./tests
func BenchmarkPaneIdleCPU(b *testing.B) {
	root, err := os.MkdirTemp("", "au-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(root) })
	e := &Env{Root: root, Runtime: filepath.Join(root, "run"), State: filepath.Join(root, "state"), Config: filepath.Join(root, "config")}
	for _, d := range []string{e.Runtime, e.State, e.Config} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	e.Socket = filepath.Join(e.Runtime, "askuser", "askuserd.sock")
	daemon := exec.Command(testenv.Bin("askuserd"), "serve")
	daemon.Env = e.Environ()
	if err := daemon.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = daemon.Process.Signal(syscall.SIGTERM); _ = daemon.Wait() })
	testdaemon.Eventually(b, "askuserd answering on "+e.Socket, func() (bool, string) {
		c, err := socketproto.Dial(e.Socket, 0)
		if err != nil {
			return false, err.Error()
		}
		c.Close()
		return true, ""
	})
	p := termpane.StartTmux(b, e, 100, 30, testenv.Bin("askuserd"))
	ask := exec.Command(testenv.Bin("askuser-client"), "ask", "--no-wait", "--question", "Idle?", "--option", "Yes", "--option", "No")
	ask.Env = e.Environ()
	if out, err := ask.CombinedOutput(); err != nil {
		b.Fatalf("ask: %v\n%s", err, out)
	}
	p.WaitFor("Idle?")
	p.WaitGone("settling…") // the one redraw that ends the input guard comes before idling
	pid := p.Pid()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := testenv.CPUTicks(b, pid)
		time.Sleep(30 * time.Second) // the idle period measured: the pane's CPU while nothing happens
		b.ReportMetric(float64(testenv.CPUTicks(b, pid)-before), "ticks/30s")
	}
}
