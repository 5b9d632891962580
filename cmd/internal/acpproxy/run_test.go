package acpproxy

import (
	"bufio"
	"context"
	"io"
	"os"
	"testing"
	"time"

	"askuser/socketproto"
)

// runFake runs the proxy on the test binary as a fake agent in mode, with
// the editor's side as pipes; the exit code arrives on the channel.
func runFake(t *testing.T, mode string) (editor io.WriteCloser, fromProxy *bufio.Reader, code <-chan int) {
	t.Helper()
	t.Setenv("ACPPROXY_FAKE_MODE", mode)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	editorIn, proxyIn := io.Pipe()
	proxyOut, editorOut := io.Pipe()
	done := make(chan int, 1)
	go func() {
		c, err := Run(context.Background(), RunOptions{
			Argv: []string{exe, "-test.run=^$"}, Stdin: editorIn, Stdout: editorOut, Stderr: io.Discard,
			Ask: (&asked{position: 1}).ask, Limits: socketproto.DefaultLimits(),
		})
		if err != nil {
			t.Error(err)
		}
		editorOut.Close()
		done <- c
	}()
	t.Cleanup(func() { proxyIn.Close(); editorIn.Close() })
	return proxyIn, bufio.NewReader(proxyOut), done
}

// An agent deaf to the end of its input and to SIGTERM is killed: the
// proxy ends within stdinGrace+termGrace of its editor's end of input.
func TestStopsStubbornAgent(t *testing.T) {
	editor, out, code := runFake(t, "stubborn")
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	editor.Close()
	c := <-code
	t.Logf("the proxy ended %v after its input (exit %d)", time.Since(began), c)
	if c != 0 {
		t.Errorf("exit %d; want 0, the proxy stopped the agent after the editor went away", c)
	}
}

// An agent that exits ends the proxy with its exit code, though the editor
// is still there; what it said last reaches the editor.
func TestAgentExitEndsProxy(t *testing.T) {
	_, out, code := runFake(t, "exit3")
	if line, err := out.ReadString('\n'); err != nil || line != `{"jsonrpc":"2.0","method":"bye"}`+"\n" {
		t.Errorf("the editor got %q (%v)", line, err)
	}
	if c := <-code; c != 3 {
		t.Errorf("exit %d; want the agent's 3", c)
	}
}
