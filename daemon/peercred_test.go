package daemon

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"askuser/tests/skips"
	"askuser/tests/testdaemon"
	"askuser/tests/testdir"
)

// TestPeerCredRefusesOtherUsers connects as another user (the test binary
// run again as nobody) through permissions loosened on purpose: SO_PEERCRED
// is the last line of defence and must hold on its own.
func TestPeerCredRefusesOtherUsers(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		skips.Skip(t, "needs root to connect as another user")
	}
	sock := testDaemon(t, nil)
	for _, p := range []string{filepath.Dir(filepath.Dir(sock)), filepath.Dir(sock)} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	// The test binary sits in a private build directory: copy it where
	// nobody may run it.
	dir, err := os.MkdirTemp("", "aupc-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	helper := filepath.Join(dir, "helper.test")
	testdir.CopyExecutable(t, os.Args[0], helper)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(helper, "-test.run=^TestPeerCredHelper$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ASKUSERD_PEERCRED_SOCK="+sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		skips.Skipf(t, "cannot run a helper as nobody here: %v", err)
	}
	if !strings.Contains(string(out), "REPLY ") || !strings.Contains(string(out), "askuserd serves only uid 0") {
		t.Fatalf("another user's connection: %v\n%s", err, out)
	}
	// The daemon goes on serving its own user.
	c := testdaemon.DialRaw(t, sock)
	c.Send(`{"type":"status"}` + "\n")
	c.Expect("status")
}

// TestPeerCredHelper is the other user's side of TestPeerCredRefusesOtherUsers.
func TestPeerCredHelper(t *testing.T) {
	t.Parallel()
	sock := os.Getenv("ASKUSERD_PEERCRED_SOCK")
	if sock == "" {
		t.Skip("helper process only")
	}
	nc, err := net.Dial("unix", sock)
	if err != nil {
		fmt.Println("DIAL", err)
		return
	}
	defer nc.Close()
	fmt.Fprintln(nc, `{"type":"status"}`)
	line, err := bufio.NewReader(nc).ReadString('\n')
	fmt.Println("REPLY", line, err)
}
