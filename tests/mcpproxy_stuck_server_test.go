package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// mcp-proxy ends promptly — on SIGTERM, and on its client's end of input —
// even when its server has stopped reading (a write to it would block for
// ever), and stops that server.
func TestMCPProxyEndsPromptlyWhenTheServerStopsReading(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"SIGTERM", "client EOF"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			e := NewEnv(t)
			// A server that never reads its stdin, and says its pid.
			pidFile := filepath.Join(e.Root, "server.pid")
			cmd := exec.Command(testenv.Bin("askuser-client"), "mcp-proxy", "--no-autostart", "--",
				"sh", "-c", `echo $$ > "$0"; exec sleep 600`, pidFile)
			cmd.Env = e.Environ()
			stderr := &testdaemon.LogBuffer{}
			cmd.Stderr = stderr
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				<-exited
			})
			var pid int
			for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
				if b, err := os.ReadFile(pidFile); err == nil && bytes.HasSuffix(b, []byte("\n")) {
					pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				}
				if time.Now().After(deadline) {
					t.Fatalf("the server did not start; stderr:\n%s", stderr)
				}
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			// More than a pipe holds: the proxy's write to the server blocks.
			line := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 1000) + `"}}` + "\n")
			wrote := make(chan struct{})
			go func() {
				defer close(wrote)
				for range 1024 {
					if _, err := stdin.Write(line); err != nil {
						return
					}
				}
			}()
			select {
			case <-wrote:
			case <-time.After(2 * time.Second): // the proxy holds what it read; the rest waits
			}
			start := time.Now()
			if how == "SIGTERM" {
				_ = cmd.Process.Signal(syscall.SIGTERM)
			} else {
				_ = stdin.Close()
			}
			select {
			case <-exited:
				exited <- nil
			case <-time.After(20 * time.Second):
				t.Fatalf("mcp-proxy still runs 20 s after %s, its server not reading; stderr:\n%s", how, stderr)
			}
			t.Logf("ended %v after %s", time.Since(start).Round(time.Millisecond), how)
			for deadline := time.Now().Add(5 * time.Second); testdaemon.Alive(pid); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the server (pid %d) outlived the proxy", pid)
				}
			}
		})
	}
}
