package tests

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"askuser/tests/skips"
	"askuser/tests/testdaemon"
	"askuser/tests/testdir"
	"askuser/tests/testenv"
)

// sshServer is a real OpenSSH sshd on loopback, for the README's recipe
// "Asking from another machine over SSH": the "remote" side is a second
// account on this machine (as root; the same account otherwise).
type sshServer struct {
	t    *testing.T
	dir  string // readable by the remote accounts: the client binary lives here
	port int
	key  string // the client's private key
}

// accounts are the ones the tests made, with how many tests use each: the
// last one done removes it (an account that was there before stays).
var accounts = struct {
	sync.Mutex
	users map[string]int
}{users: map[string]int{}}

const (
	remoteAccount = "askuser-remote"
	otherAccount  = "askuser-other"
)

func startSSHD(t *testing.T) *sshServer {
	t.Helper()
	for _, p := range []string{"/usr/sbin/sshd", "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(p); err != nil {
			skips.SkipMissing(t, "sshd", "apt-get install openssh-server openssh-client", p+" not found")
		}
	}
	dir, err := os.MkdirTemp("", "au-sshd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// The remote accounts run the client from here.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &sshServer{t: t, dir: dir, key: filepath.Join(dir, "client_key")}
	for _, k := range []string{"host_key", "client_key"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	pub, _ := os.ReadFile(s.key + ".pub")
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o644); err != nil {
		t.Fatal(err)
	}
	testdir.CopyExecutable(t, testenv.Bin("askuser-client"), filepath.Join(dir, "askuser-client"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	conf := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s/host_key
PidFile %s/sshd.pid
AuthorizedKeysFile %s/authorized_keys
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
AllowStreamLocalForwarding yes
StreamLocalBindUnlink yes
LogLevel VERBOSE
# The other account's forward is open to all: only the client's own checks
# stand between it and the remote account.
Match User %s
	StreamLocalBindMask 0111
`, s.port, dir, dir, dir, otherAccount)
	if err := os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		_ = os.MkdirAll("/run/sshd", 0o755) // sshd's privilege separation directory
	}
	cmd := exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	var log testdaemon.LogBuffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("sshd's log:\n%s", log.String())
		}
	})
	testdaemon.Eventually(t, "sshd listening on port "+strconv.Itoa(s.port), func() (bool, string) {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(s.port))
		if err != nil {
			return false, err.Error() + "\n" + log.String()
		}
		c.Close()
		return true, ""
	})
	return s
}

// account makes (as root) or names (otherwise: this one) a login account.
func (s *sshServer) account(name string) *user.User {
	s.t.Helper()
	if os.Getuid() != 0 {
		u, err := user.Current()
		if err != nil {
			s.t.Fatal(err)
		}
		return u
	}
	accounts.Lock() // parallel tests: one useradd at a time
	defer accounts.Unlock()
	var made []byte
	if _, ours := accounts.users[name]; !ours {
		if _, err := user.Lookup(name); err != nil {
			// "*": no password, and not locked (sshd refuses a locked account).
			made, _ = exec.Command("useradd", "-m", "-p", "*", "-s", "/bin/sh", name).CombinedOutput()
			accounts.users[name] = 0
		}
	}
	u, err := user.Lookup(name)
	if err != nil {
		s.t.Fatalf("no account %s, and useradd could not make it: %v\n%s", name, err, made)
	}
	if _, ours := accounts.users[name]; ours {
		accounts.users[name]++
		s.t.Cleanup(func() {
			accounts.Lock()
			defer accounts.Unlock()
			if accounts.users[name]--; accounts.users[name] == 0 {
				delete(accounts.users, name)
				// The sessions ended with their ssh clients (cleaned up
				// first: they were started after this was registered).
				_ = exec.Command("userdel", "-r", "-f", name).Run()
			}
		})
	}
	return u
}

// forwardDir is a directory of u's for a forwarded socket, with mode perm.
func (s *sshServer) forwardDir(u *user.User, perm os.FileMode) string {
	s.t.Helper()
	dir, err := os.MkdirTemp("", "au-fwd-")
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { os.RemoveAll(dir) })
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		s.t.Fatal(err)
	}
	if err := os.Chmod(dir, perm); err != nil {
		s.t.Fatal(err)
	}
	return dir
}

// ssh runs `ssh [args…] user@127.0.0.1 command` on this server.
func (s *sshServer) ssh(u *user.User, args []string, command string) *exec.Cmd {
	all := []string{"-F", "/dev/null", "-i", s.key, "-p", strconv.Itoa(s.port),
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes",
		"-o", "ExitOnForwardFailure=yes", "-o", "LogLevel=ERROR"}
	all = append(all, args...)
	all = append(all, u.Username+"@127.0.0.1", command)
	return exec.Command("ssh", all...)
}

// The README's recipe, for real: an agent on the "remote" side asks through
// the daemon's socket forwarded by `ssh -R`, the user answers here, and the
// agent gets the answer; every trust check holds across the forward.
func TestAskFromAnotherMachineOverSSH(t *testing.T) {
	t.Parallel()
	s := startSSHD(t)
	e := NewEnv(t)
	e.StartDaemon()
	remote := s.account(remoteAccount)
	remoteSock := filepath.Join(s.forwardDir(remote, 0o700), "askuserd.sock")

	ask := s.ssh(remote, []string{"-R", remoteSock + ":" + e.Socket},
		"ASKUSER_SOCKET="+remoteSock+" "+s.dir+"/askuser-client ask --no-autostart --question 'Restart the database?' --option Yes --option No")
	var out bytes.Buffer
	var errb testdaemon.LogBuffer // read while the agent runs
	ask.Stdout, ask.Stderr = &out, &errb
	if err := ask.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ask.Wait() }()
	t.Cleanup(func() {
		if ask.ProcessState == nil {
			_ = ask.Process.Kill()
			<-done
		}
	})

	c := e.Dial()
	defer c.Close()
	waitForPending(t, e, done, &errb)
	id := clientList(t, e)[0].RequestID
	mustClient(t, e, "", "answer", id, "Yes")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the remote agent: %v\nstdout: %s\nstderr: %s", err, out.String(), errb.String())
		}
	case <-time.After(testdaemon.Wait):
		t.Fatalf("the remote agent never got its answer\nstderr: %s", errb.String())
	}
	if !strings.Contains(out.String(), "Yes") {
		t.Errorf("the remote agent got %q, want the answer Yes", out.String())
	}
}

// waitForPending waits until the daemon holds a request, or the asking
// process ended first.
func waitForPending(t *testing.T, e *Env, done chan error, errb *testdaemon.LogBuffer) {
	t.Helper()
	testdaemon.Eventually(t, "a question through the forward", func() (bool, string) {
		select {
		case err := <-done:
			done <- err
			t.Fatalf("the remote agent ended before asking: %v\n%s", err, errb.String())
		default:
		}
		return len(clientList(t, e)) > 0, "no request; the remote agent's stderr:\n" + errb.String()
	})
}

// A socket forwarded by another account, even one anybody may connect to,
// is refused by the client before it sends anything, naming its owner.
func TestSSHForwardOfAnotherAccountIsRefused(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		skips.Skip(t, "making a second account needs root")
	}
	s := startSSHD(t)
	e := NewEnv(t)
	e.StartDaemon()
	other := s.account(otherAccount)
	remote := s.account(remoteAccount)
	otherSock := filepath.Join(s.forwardDir(other, 0o755), "askuserd.sock")

	hold := s.ssh(other, []string{"-R", otherSock + ":" + e.Socket}, "sleep 120")
	var holdErr testdaemon.LogBuffer // read while ssh runs
	hold.Stderr = &holdErr
	if err := hold.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hold.Process.Kill(); _ = hold.Wait() })
	testdaemon.Eventually(t, "the other account's forward at "+otherSock, func() (bool, string) {
		fi, err := os.Stat(otherSock)
		if err != nil {
			return false, err.Error() + "\n" + holdErr.String()
		}
		return fi.Mode()&os.ModeSocket != 0, fi.Mode().String()
	})

	ask := s.ssh(remote, nil, "ASKUSER_SOCKET="+otherSock+" "+s.dir+"/askuser-client ask --no-autostart --question 'Restart the database?' --option Yes --option No")
	out, err := ask.CombinedOutput()
	if err == nil {
		t.Fatalf("the client used another account's forward:\n%s", out)
	}
	if !strings.Contains(string(out), otherAccount) && !strings.Contains(string(out), other.Uid) {
		t.Errorf("the refusal does not name the owner %s (uid %s):\n%s", otherAccount, other.Uid, out)
	}
	if n := len(clientList(t, e)); n != 0 {
		t.Errorf("%d requests reached the daemon through another account's forward", n)
	}
}
