package tests

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"askuser/tests/testdaemon"
	"askuser/tests/testdir"
	"askuser/tests/testenv"
)

// One client opening thousands of idle connections does not lock everyone
// else out: before they fill the daemon's descriptor table it closes the
// connections that have sent nothing for the longest, so the pane, the CLI
// and other agents still get in.
func TestDaemonIdleConnectionsDoNotLockOthersOut(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	// The daemon runs with 256 descriptors (on the machine that found the
	// flood it had 4,096); the flood is several times that.
	wrapper := filepath.Join(t.TempDir(), "askuserd-lowfd")
	script := "#!/bin/sh\nulimit -n 256 || exit 97\nexec " + testenv.Bin("askuserd") + " \"$@\"\n"
	testdir.WriteExecutable(t, wrapper, []byte(script), 0o700)
	cmd, log := testdaemon.StartBinary(t, wrapper, e.Environ(), e.Socket)
	t.Cleanup(func() {
		if err := testdaemon.StopBinary(cmd); err != nil {
			t.Errorf("%v; output:\n%s", err, log)
		}
	})

	var flood []net.Conn
	t.Cleanup(func() {
		for _, c := range flood {
			c.Close()
		}
	})
	for i := 0; i < 1000; i++ {
		d := net.Dialer{Timeout: 2 * time.Second}
		c, err := d.Dial("unix", e.Socket)
		if err != nil {
			break // the listen backlog is full: the flood is as big as it gets
		}
		flood = append(flood, c)
	}
	t.Logf("%d idle connections opened", len(flood))

	// Everyone else still gets in: a list, and an ask answered from the CLI.
	done := make(chan struct{})
	go func() {
		defer close(done)
		if out, errOut, code := e.Client("", "list"); code != 0 {
			t.Errorf("list under the flood: exit %d\n%s%s", code, out, errOut)
		}
		out, errOut, code := e.Client("", "ask", "--no-wait", "--no-autostart", "--request-id", "flooded", "--question", "Still there?")
		if code != 0 {
			t.Errorf("ask under the flood: exit %d\n%s%s", code, out, errOut)
			return
		}
		if out, errOut, code := e.Client("", "answer", "flooded", "yes"); code != 0 {
			t.Errorf("answer under the flood: exit %d\n%s%s", code, out, errOut)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the CLI could not get through %d idle connections within 30 s; daemon log:\n%s", len(flood), log)
	}
	if !strings.Contains(log.String(), "idle") {
		t.Errorf("the daemon log does not say it closed idle connections:\n%s", log)
	}
}
