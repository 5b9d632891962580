package testenv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
)

// Finish waits for a background askuser-client and returns its exit code.
func Finish(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("client: %v", err)
		}
		return 0
	case <-time.After(3 * ClientWait):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("askuser-client %v did not finish", cmd.Args[1:])
		return -1
	}
}

// WaitClient waits for a background askuser-client and decodes its result.
func WaitClient(t *testing.T, cmd *exec.Cmd, out, errb *bytes.Buffer) (socketproto.Response, int) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("askuser-client did not finish; stderr:\n%s", errb)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	var r socketproto.Response
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("askuser-client output %q (stderr %q): %v", out, errb, err)
	}
	return r, code
}

// Says waits until a process's output holds every one of want.
func Says(t *testing.T, who string, output func() string, want ...string) {
	t.Helper()
	testdaemon.Eventually(t, fmt.Sprintf("%s to say %q", who, want), func() (bool, string) {
		out := output()
		return ContainsAll(out, want), out
	})
}

// ContainsAll says whether s holds every one of subs.
func ContainsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// FileHas waits until the file at path holds want, and returns its text.
func FileHas(t *testing.T, path, want string) string {
	t.Helper()
	return testdaemon.Eventually(t, fmt.Sprintf("%s to hold %q", path, want), func() (bool, string) {
		data, _ := os.ReadFile(path)
		return strings.Contains(string(data), want), string(data)
	})
}

// RunAskuserd runs askuserd with args and returns stdout, stderr and the exit code.
func RunAskuserd(e *Env, args ...string) (string, string, int) {
	e.T.Helper()
	return RunAskuserdEnv(e, nil, args...)
}

// RunAskuserdEnv is RunAskuserd with extra variables in its environment.
func RunAskuserdEnv(e *Env, extra []string, args ...string) (string, string, int) {
	e.T.Helper()
	cmd := exec.Command(Bin("askuserd"), args...)
	cmd.Env = e.Environ(extra...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.T.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// CPUTicks is a process's user+system CPU time in clock ticks, from /proc.
func CPUTicks(b *testing.B, pid int) int64 {
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

var (
	elicitServerOnce sync.Once
	elicitServerErr  error
)

// ElicitServer is the path of tests/elicitserver, built once for the run.
func ElicitServer(t *testing.T) string {
	t.Helper()
	elicitServerOnce.Do(func() { elicitServerErr = testdaemon.Build(binDir, true, "askuser/tests/elicitserver") })
	if elicitServerErr != nil {
		t.Fatalf("building elicitserver: %v", elicitServerErr)
	}
	return Bin("elicitserver")
}
