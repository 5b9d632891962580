package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
)

// cpuTicks is a process's user+system CPU time in clock ticks, from /proc.
func cpuTicks(b *testing.B, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// After the ")" that ends the command name, utime and stime are the
	// 12th and 13th fields (fields 14 and 15 of proc(5)).
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return ut + st
}

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
	daemon := exec.Command(bin("askuserd"), "serve")
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
	p := startTmux(b, e, 100, 30, bin("askuserd"))
	ask := exec.Command(bin("askuser-client"), "ask", "--no-wait", "--question", "Idle?", "--option", "Yes", "--option", "No")
	ask.Env = e.Environ()
	if out, err := ask.CombinedOutput(); err != nil {
		b.Fatalf("ask: %v\n%s", err, out)
	}
	p.waitFor("Idle?")
	p.waitGone("settling…") // the one redraw that ends the input guard comes before idling
	pid := p.pid()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := cpuTicks(b, pid)
		time.Sleep(30 * time.Second) // the idle period measured: the pane's CPU while nothing happens
		b.ReportMetric(float64(cpuTicks(b, pid)-before), "ticks/30s")
	}
}
