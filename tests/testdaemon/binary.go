package testdaemon

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// Build compiles the main packages pkgs (askuserd, askuser-client, askuser-mcp) into
// dir, with the race detector when race is set, for tests that run the real
// binaries.
func Build(dir string, race bool, pkgs ...string) error {
	args := []string{"build", "-o", dir}
	if race {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, pkgs...)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %v: %w", args, err)
	}
	return nil
}

// StartBinary runs `askuserd serve args…` (askuserd being the binary's path)
// in the environment env and waits until sock answers. Its output goes to the
// returned log. The caller stops it, with StopBinary.
func StartBinary(t testing.TB, askuserd string, env []string, sock string, args ...string) (*exec.Cmd, *LogBuffer) {
	t.Helper()
	cmd := exec.Command(askuserd, append([]string{"serve"}, args...)...)
	cmd.Env = env
	log := &LogBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(Wait); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return cmd, log
		}
		if !Alive(cmd.Process.Pid) {
			_ = cmd.Wait()
			t.Fatalf("askuserd exited before it answered on %s (%v); its output:\n%s", sock, cmd.ProcessState, log)
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	t.Fatalf("askuserd did not answer on %s within %v; its output:\n%s", sock, Wait, log)
	return nil, nil
}

// StopBinary sends SIGTERM and waits for the daemon to exit; past Wait it
// kills it. The error says how it did not stop cleanly.
func StopBinary(cmd *exec.Cmd) error {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("askuserd exited with %v after SIGTERM", err)
		}
		return nil
	case <-time.After(Wait):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("askuserd did not stop within %v of SIGTERM", Wait)
	}
}
