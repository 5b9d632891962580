package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/rogpeppe/go-internal/testscript"

	"askuser/cmd/internal/askuserd"
	"askuser/daemon"
	"askuser/socketproto"
	"askuser/tests/testdaemon"
)

var update = flag.Bool("update", false, "rewrite the files that cmp compares in testdata/script/*.txtar")

// scriptWait bounds what a script waits for (a daemon to answer, a request
// to arrive): a safety net, never a measurement.
const scriptWait = 10 * time.Second

// TestMain lets the scripts run the real programs: the test binary is
// askuser-client, askuserd or exits when run under that name.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"askuser-client": main,
		"askuserd":       func() { os.Exit(askuserd.Main()) },
		"exits":          func() { os.Exit(exitsMain(os.Args[1:])) },
	})
}

// TestScripts runs docs/contract.md §7's behaviours as scripts,
// testdata/script/*.txtar: the real askuser-client against a real
// `askuserd serve` that each script starts and stops. Each script has its
// own XDG dirs under $WORK; $SOCK is the daemon's socket and $PENDING its
// pending file. Beside testscript's commands:
//
//	exec exits N PROG ARGS...       PROG must exit with code N (its output is kept)
//	await daemon                    until the daemon answers on $SOCK
//	await pending ID [STATUS]       until request ID is pending (waiting, parked, orphaned)
//	await gone ID                   until request ID is no longer pending
//	cmpstable stdout|stderr FILE    cmpenv, with times written <time> and ages (3s ago) <age> ago
//	capture NAME REGEXP             $NAME becomes REGEXP's first group in the last stdout, as $(…) would
//
// go test ./cmd/askuser-client -run TestScripts -update rewrites the files
// that a failing cmp compares.
func TestScripts(t *testing.T) {
	// testscript removes its root only once every script in Dir ran, so
	// not after -run picks some: the root is this test's, and goes with it.
	root, err := os.MkdirTemp("", "askuser-script-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		WorkdirRoot:         root,
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup:               setupScript,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"await":     cmdAwait,
			"cmpstable": cmdCmpStable,
			"capture":   cmdCapture,
		},
	})
}

func setupScript(env *testscript.Env) error {
	run := filepath.Join(env.WorkDir, "run")
	if err := os.Mkdir(run, 0o700); err != nil {
		return err
	}
	state := filepath.Join(env.WorkDir, "state")
	sock := filepath.Join(run, "askuser", "askuserd.sock")
	env.Setenv("XDG_RUNTIME_DIR", run)
	env.Setenv("XDG_STATE_HOME", state)
	env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, "config"))
	env.Setenv("SOCK", sock)
	env.Setenv("PENDING", filepath.Join(state, "askuser", "pending-questions.json"))
	// A script stops its daemon itself; this is for one that failed before
	// it could, or a daemon a client started.
	env.Defer(func() { stopDaemon(env.T(), sock) })
	return nil
}

// stopDaemon stops whatever daemon holds the lock of sock, and waits for
// it to let go of the lock, which it holds until it exits.
func stopDaemon(t testscript.T, sock string) {
	pid, held, err := daemon.ReadLock(sock)
	if err != nil || !held || pid == 0 {
		return
	}
	lock, err := os.Open(filepath.Join(filepath.Dir(sock), daemon.LockFileName))
	if err != nil {
		return // gone already
	}
	defer lock.Close()
	released := make(chan struct{})
	go func() {
		// Blocks until the daemon's exclusive lock is released.
		_ = syscall.Flock(int(lock.Fd()), syscall.LOCK_SH)
		close(released)
	}()
	_ = syscall.Kill(pid, syscall.SIGTERM)
	select {
	case <-released:
		return
	case <-time.After(scriptWait):
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	<-released
	t.Log(fmt.Sprintf("askuserd (pid %d) on %s did not stop within %v of SIGTERM; killed", pid, sock, scriptWait))
}

// exitsMain is `exits N PROG ARGS...`: it runs PROG with this process's
// streams, passes Ctrl-C (SIGINT) on to it, and succeeds when PROG exited
// with code N, so that a script can check the exit codes of §7.
func exitsMain(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: exits N PROG [ARGS...]")
		return 2
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "exits: %q is not an exit code\n", args[0])
		return 2
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "exits: %v\n", err)
		return 2
	}
	go func() {
		for sig := range interrupts {
			_ = cmd.Process.Signal(sig)
		}
	}()
	err = cmd.Wait()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		fmt.Fprintf(os.Stderr, "exits: %v\n", err)
		return 2
	}
	if code != want {
		fmt.Fprintf(os.Stderr, "exits: %s exited with %d, want %d\n", args[1], code, want)
		return 1
	}
	return 0
}

// cmdAwait waits, on the daemon's own events, for what the script names.
func cmdAwait(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! await")
	}
	sock := ts.Getenv("SOCK")
	switch {
	case len(args) == 1 && args[0] == "daemon":
		// A daemon started in the background says nothing the script can
		// read when it is ready: its socket accepting is the sign.
		eventually(ts, "a daemon answering on "+sock, func() (bool, string) {
			c, err := net.Dial("unix", sock)
			if err != nil {
				return false, err.Error()
			}
			c.Close()
			return true, ""
		})
	case (len(args) == 2 || len(args) == 3) && args[0] == "pending":
		status := ""
		if len(args) == 3 {
			status = args[2]
		}
		awaitRequest(ts, sock, args[1], func(p *socketproto.Pending) bool {
			return p != nil && (status == "" || string(p.Status) == status)
		}, fmt.Sprintf("request %s pending %s", args[1], status))
	case len(args) == 2 && args[0] == "gone":
		awaitRequest(ts, sock, args[1], func(p *socketproto.Pending) bool { return p == nil },
			fmt.Sprintf("request %s gone", args[1]))
	default:
		ts.Fatalf("usage: await daemon | await pending ID [STATUS] | await gone ID")
	}
}

// eventually is testdaemon.Eventually for a script, which has no
// testing.TB: it polls check until done, and past testdaemon.Settle fails
// the script, naming what it waited for and the last state seen.
func eventually(ts *testscript.TestScript, what string, check func() (done bool, saw string)) {
	deadline := time.Now().Add(testdaemon.Settle)
	for {
		done, saw := check()
		if done {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waited %v for %s; last saw:\n%s", testdaemon.Settle, what, saw)
		}
		time.Sleep(15 * time.Millisecond)
	}
}

// awaitRequest subscribes as a watcher and reads the snapshot, then events,
// until ok accepts what the daemon says of request id (nil: not pending).
func awaitRequest(ts *testscript.TestScript, sock, id string, ok func(*socketproto.Pending) bool, what string) {
	c, err := socketproto.Dial(sock, 0)
	if err != nil {
		ts.Fatalf("waiting for %s: %v", what, err)
	}
	defer c.Close()
	if err := c.Send(socketproto.Subscribe{Role: socketproto.RoleWatch}); err != nil {
		ts.Fatalf("waiting for %s: %v", what, err)
	}
	_ = c.NetConn().SetReadDeadline(time.Now().Add(scriptWait))
	var last *socketproto.Pending
	find := func(ps []socketproto.Pending) *socketproto.Pending {
		for i := range ps {
			if ps[i].RequestID == id {
				return &ps[i]
			}
		}
		return nil
	}
	for {
		m, err := c.Recv()
		if err != nil {
			ts.Fatalf("waiting for %s: %v (last seen: %+v)", what, err, last)
		}
		switch m := m.(type) {
		case socketproto.Snapshot:
			last = find(m.Pending)
		case socketproto.StateEvent:
			last = find(m.Pending)
		case socketproto.RequestAdded:
			if m.Request.RequestID == id {
				last = &m.Request
			}
		case socketproto.RequestUpdated:
			if m.Request.RequestID == id {
				last = &m.Request
			}
		case socketproto.RequestResolved:
			if m.RequestID == id {
				last = nil
			}
		default:
			continue
		}
		if ok(last) {
			return
		}
	}
}

var (
	// RFC 3339 (JSON), or time.DateTime as the CLI prints a local time.
	timestamp = regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?`)
	ago       = regexp.MustCompile(`\b\d+[smhd] ago\b`)
)

// cmdCmpStable is cmpenv for output that holds the time something
// happened or how long ago: those read <time> and <age> ago in what is
// compared.
func cmdCmpStable(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || (args[0] != "stdout" && args[0] != "stderr") {
		ts.Fatalf("usage: cmpstable stdout|stderr FILE")
	}
	got := timestamp.ReplaceAllString(ts.ReadFile(args[0]), "<time>")
	got = ago.ReplaceAllString(got, "<age> ago")
	want := os.Expand(ts.ReadFile(args[1]), ts.Getenv)
	if got != want {
		ts.Logf("[diff -%s +%s]\n%s", args[1], args[0], diff.Diff(args[1], []byte(want), args[0], []byte(got)))
		ts.Fatalf("%s and %s differ", args[0], args[1])
	}
}

// cmdCapture sets an environment variable from the last command's output,
// for what differs from run to run (a digest of text that names $WORK).
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: capture NAME REGEXP")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if len(m) < 2 {
		ts.Fatalf("no match for %s (with a group) in stdout", args[1])
	}
	ts.Setenv(args[0], m[1])
}
