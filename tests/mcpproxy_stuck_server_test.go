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

	"golang.org/x/sys/unix"

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
			testdaemon.Eventually(t, "the server's pid in "+pidFile, func() (bool, string) {
				b, err := os.ReadFile(pidFile)
				if err != nil || !bytes.HasSuffix(b, []byte("\n")) {
					return false, fmt.Sprintf("%q %v; stderr:\n%s", b, err, stderr)
				}
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return pid != 0, string(b)
			})
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			// More than a pipe holds: the proxy's write to the server blocks.
			// Lines of exactly 1 KiB, which the proxy passes on as they are,
			// fill the pipe's pages whole: the pipe is full when it holds
			// its size.
			frame := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":""}}` + "\n"
			line := []byte(strings.Replace(frame, `"data":""`, `"data":"`+strings.Repeat("x", 1024-len(frame))+`"`, 1))
			wrote := make(chan struct{})
			go func() {
				defer close(wrote)
				for range 1024 {
					if _, err := stdin.Write(line); err != nil {
						return
					}
				}
			}()
			// The server never reads: once its stdin is full, the proxy's next
			// write to it blocks.
			testdaemon.Eventually(t, "the server's stdin full, the proxy's write to it blocked", func() (bool, string) {
				held, size, err := pipeHolds(pid, 0)
				if err != nil {
					return false, err.Error()
				}
				return held == size, fmt.Sprintf("%d of %d bytes", held, size)
			})
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
			testdaemon.Eventually(t, fmt.Sprintf("the server (pid %d) to end with the proxy", pid), func() (bool, string) {
				return !testdaemon.Alive(pid), "alive"
			})
			select {
			case <-wrote: // the proxy's end ended our writes too
			case <-time.After(testdaemon.Wait):
				t.Fatal("writing to the proxy still blocked after it ended")
			}
		})
	}
}

// pipeHolds says how many bytes wait unread in the pipe at file descriptor
// fd of process pid, and how many the pipe can hold.
func pipeHolds(pid, fd int) (held, size int, err error) {
	// Opened through /proc, the pipe is the same one; O_NONBLOCK so that the
	// open never waits for a writer. Nothing is read from it.
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/%d", pid, fd), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	// TIOCINQ is Linux's FIONREAD: the bytes waiting to be read.
	if held, err = unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ); err != nil {
		return 0, 0, err
	}
	if size, err = unix.FcntlInt(f.Fd(), unix.F_GETPIPE_SZ, 0); err != nil {
		return 0, 0, err
	}
	return held, size, nil
}
