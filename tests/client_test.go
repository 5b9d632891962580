package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"askuser/socketproto"
	"askuser/socketproto/agenttool"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// finish waits for a background client and returns its exit code.
// wantAnswered waits for a text-format ask or wait, and checks that it exited 0
// having printed want.
func wantAnswered(t *testing.T, cmd *exec.Cmd, out, errb *bytes.Buffer, want string) {
	t.Helper()
	if code := testenv.Finish(t, cmd); code != 0 {
		t.Fatalf("exit %d, want 0; stderr: %s", code, errb)
	}
	if out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
}

// stderrOnFailure shows a running command's stderr if the test fails: it is
// read only once the command has ended, as os/exec writes it meanwhile.
// (Cleanups run last first: this one ends the command before the harness's.)
func stderrOnFailure(t *testing.T, name string, cmd *exec.Cmd, stderr *bytes.Buffer) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		t.Logf("%s's stderr:\n%s", name, stderr)
	})
}

func mustClient(t *testing.T, e *Env, stdin string, args ...string) string {
	t.Helper()
	out, errOut, code := e.Client(stdin, args...)
	if code != 0 {
		t.Fatalf("askuser-client %v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errOut)
	}
	return out
}

func decodeJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("output is not the expected JSON (%v):\n%s", err, s)
	}
}

// clientList is what `askuser-client list --json` prints, decoded.
func clientList(t *testing.T, e *Env) []socketproto.Pending {
	t.Helper()
	var pending []socketproto.Pending
	decodeJSON(t, mustClient(t, e, "", "list", "--json"), &pending)
	return pending
}

// With no daemon running, ask starts one (found beside the client).
func TestClientAutostart(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	ask, out, errb := e.StartClient("", "ask", "--question", "Started?", "--request-id", "auto-1", "--format", "text")
	t.Cleanup(func() { e.StopAutostarted() })
	stderrOnFailure(t, "ask", ask, errb)
	testdaemon.Eventually(t, "the autostarted daemon to take the answer to auto-1", func() (bool, string) {
		_, errOut, code := e.Client("", "answer", "auto-1", "yes")
		return code == 0, errOut
	})
	wantAnswered(t, ask, out, errb, "Started?: yes\n")
	e.WantAutostartedInRoot()
	var st socketproto.Status
	decodeJSON(t, mustClient(t, e, "", "status", "--json"), &st)
	if st.Socket != e.Socket {
		t.Errorf("autostarted daemon listens on %q, want %q", st.Socket, e.Socket)
	}
	if _, err := os.Stat(filepath.Join(e.State, "askuser", "askuserd.log")); err != nil {
		t.Errorf("the autostarted daemon's log: %v", err)
	}
}

// The daemon restarts while ask waits: ask reconnects and resumes with wait;
// the new daemon does not know the request, so ask ends with exit 4 and
// connectionLost.
// The daemon restarts and has forgotten the question (it keeps no state):
// ask reconnects, finds the request gone, and asks it again under the same
// id, so the user still sees it and the answer still reaches the agent.
func TestClientReconnectsAfterDaemonRestart(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := testenv.Watch(t, e)
	ask, out, errb := e.StartClient("", "ask", "--question", "Still there?", "--no-autostart",
		"--request-id", "restart-1", "--format", "text")
	testenv.NextAdded(t, w)
	w.Close()
	e.StopDaemon()
	e.StartDaemon()
	// The daemon kept the request (docs/contract.md §10); the client's resumed wait
	// makes it waiting again.
	if p := testenv.ListedAs(t, e, "restart-1", socketproto.StatusWaiting); p.Questions[0].Question != "Still there?" {
		t.Fatalf("after the restart the daemon has %+v", p)
	}
	mustClient(t, e, "", "answer", "restart-1", "yes")
	wantAnswered(t, ask, out, errb, "Still there?: yes\n")
}

// proxy stands between the client and the daemon so that a test can break
// the client's connection while the daemon keeps running. It records what the
// client sent on each connection.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	sent  []*strings.Builder
	wg    sync.WaitGroup
}

func startProxy(t *testing.T, path, upstream string) *proxy {
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			down, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("unix", upstream)
			if err != nil {
				down.Close()
				continue
			}
			rec := &strings.Builder{}
			p.mu.Lock()
			p.conns = append(p.conns, down, up)
			p.sent = append(p.sent, rec)
			p.mu.Unlock()
			p.wg.Add(2)
			go func() {
				defer p.wg.Done()
				defer up.Close()
				buf := make([]byte, 4096)
				for {
					n, err := down.Read(buf)
					if n > 0 {
						p.mu.Lock()
						rec.Write(buf[:n])
						p.mu.Unlock()
						if _, werr := up.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
			go func() {
				defer p.wg.Done()
				defer down.Close()
				_, _ = io.Copy(down, up)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		p.drop()
		p.wg.Wait()
	})
	return p
}

// drop closes every connection, both sides.
func (p *proxy) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) sentOn(i int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i >= len(p.sent) {
		return ""
	}
	return p.sent[i].String()
}

// The connection drops but the daemon keeps the request (orphaned): ask
// reconnects, resumes with wait, and delivers the answer given afterwards.
func TestClientResumesWithWaitAfterDrop(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := testenv.Watch(t, e)
	px := startProxy(t, filepath.Join(e.Root, "px.sock"), e.Socket)
	ask, out, errb := e.StartClient("", "ask", "--socket", filepath.Join(e.Root, "px.sock"),
		"--question", "Survive a drop?", "--request-id", "drop-1", "--no-autostart", "--format", "text")
	testenv.NextAdded(t, w)
	px.drop()
	stderrOnFailure(t, "ask", ask, errb)
	testdaemon.Eventually(t, "ask's first line on a second connection", func() (bool, string) {
		got := px.sentOn(1)
		return strings.Contains(got, "\n"), got
	})
	if got := px.sentOn(1); !strings.HasPrefix(got, `{"type":"wait","requestId":"drop-1"}`) {
		t.Fatalf("the resumed connection sent %q", got)
	}
	mustClient(t, e, "", "answer", "drop-1", "yes")
	wantAnswered(t, ask, out, errb, "Survive a drop?: yes\n")
}

// watch prints one JSON event per line: the snapshot, request_added, ...,
// request_resolved.
func TestClientWatch(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	cmd := exec.Command(testenv.Bin("askuser-client"), "watch")
	cmd.Env = e.Environ()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func(typ string) map[string]any {
		t.Helper()
		timeout := time.After(testenv.ClientWait)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("watch ended before %s", typ)
				}
				if strings.Contains(l, "\u202e") {
					t.Errorf("watch printed a bidi override raw, which the terminal obeys: %q", l)
				}
				var m map[string]any
				decodeJSON(t, l, &m)
				if m["type"] == typ {
					return m
				}
			case <-timeout:
				t.Fatalf("waited %v for a %s line from watch", testenv.ClientWait, typ)
			}
		}
	}
	next("snapshot")
	// Agent text goes through the sanitiser's JSON form: a bidi override
	// is written as its escape, the same text to a JSON reader.
	mustClient(t, e, "", "ask", "--no-wait", "--request-id", "w-1", "--question", "Watched\u202e?")
	added := next("request_added")
	if req, _ := added["request"].(map[string]any); req["requestId"] != "w-1" ||
		req["questions"].([]any)[0].(map[string]any)["question"] != "Watched\u202e?" {
		t.Errorf("request_added: %v", added)
	}
	mustClient(t, e, "", "answer", "w-1", "seen")
	resolved := next("request_resolved")
	if resolved["requestId"] != "w-1" || resolved["outcome"] != "answered" || resolved["via"] != "cli" {
		t.Errorf("request_resolved: %v", resolved)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	for range lines {
	}
	if code := testenv.Finish(t, cmd); code != 0 {
		t.Errorf("watch after SIGINT: exit %d", code)
	}
}

func TestClientSchema(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	for _, tool := range []string{"", "ask_user", "ask_user_question"} {
		args := []string{"schema"}
		if tool != "" {
			args = append(args, tool)
		}
		out := mustClient(t, e, "", args...)
		var got, want any
		decodeJSON(t, out, &got)
		if err := json.Unmarshal(agenttool.Schema(tool), &want); err != nil {
			t.Fatal(err)
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if string(gb) != string(wb) || !strings.Contains(out, "\n  ") {
			t.Errorf("schema %q: not the tool's schema, pretty-printed", tool)
		}
	}
	if _, _, code := e.Client("", "schema", "nope"); code != 2 {
		t.Errorf("unknown tool: exit %d, want 2", code)
	}
}

// openPTYPair opens a pseudo-terminal pair whose output the test reads from
// master itself.
func openPTYPair(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		testdaemon.Missing(t, "/dev/ptmx", "pseudo-terminals: mount devpts", "no pseudo-terminals here ("+err.Error()+"): this test needs /dev/ptmx to give the client a terminal")
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Fatalf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatalf("open slave: %v", err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// The daemon dies while ask waits (SIGKILL: its socket left behind) and
// nobody restarts it: ask starts a new one itself, resumes there on the
// request the journal brought back, and delivers the answer given to the
// new daemon. (A daemon stopped on purpose is waited for instead: stop_test.go.)
func TestClientReconnectAutostartsDaemon(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := testenv.Watch(t, e)
	ask, out, errb := e.StartClient("", "ask", "--question", "Who restarts?", "--request-id", "auto-1", "--format", "text")
	testenv.NextAdded(t, w)
	w.Close()
	t.Cleanup(func() { e.StopAutostarted() })
	// Runs first: a client left behind by a failure must not start yet
	// another daemon once the autostarted one is stopped.
	t.Cleanup(func() { _ = ask.Process.Kill() })
	crashed := e.Daemon
	e.Daemon = nil
	_ = crashed.Process.Kill()
	_ = crashed.Wait()
	// The autostarted daemon appears when the client gets to it.
	stderrOnFailure(t, "ask", ask, errb)
	testdaemon.Eventually(t, "auto-1 asked again of a new daemon", func() (bool, string) {
		o, errOut, code := e.Client("", "list", "--json")
		if code != 0 {
			return false, errOut
		}
		var pending []socketproto.Pending
		decodeJSON(t, o, &pending)
		return len(pending) == 1 && pending[0].RequestID == "auto-1", o
	})
	mustClient(t, e, "", "answer", "auto-1", "me")
	wantAnswered(t, ask, out, errb, "Who restarts?: me\n")
	var st socketproto.Status
	decodeJSON(t, mustClient(t, e, "", "status", "--json"), &st)
	if st.Socket != e.Socket {
		t.Errorf("status of the new daemon: %+v", st)
	}
}

// `answer` run by a person (stderr a terminal) says what it sent; run by a
// script (stderr a pipe) it says nothing.
func TestClientAnswerSaysWhatItSentOnATerminal(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	for _, onTerminal := range []bool{true, false} {
		id := fmt.Sprintf("said-%t", onTerminal)
		mustClient(t, e, "", "ask", "--no-wait", "--request-id", id, "--question", "Which database?",
			"--option", "PostgreSQL", "--option", "SQLite")
		cmd := exec.Command(testenv.Bin("askuser-client"), "answer", id, "--answers", `[{"selected":["SQLite"],"notes":"keep it small"}]`)
		cmd.Env = e.Environ()
		var errb strings.Builder
		var master *os.File
		if onTerminal {
			m, slave := openPTYPair(t)
			master = m
			cmd.Stderr = slave
		} else {
			cmd.Stderr = &errb
		}
		var out strings.Builder
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("answer: %v; stderr %s", err, errb.String())
		}
		if out.Len() != 0 {
			t.Errorf("answer printed %q on stdout, which is for scripts", out.String())
		}
		if !onTerminal {
			if errb.Len() != 0 {
				t.Errorf("answer with stderr a pipe printed %q", errb.String())
			}
			continue
		}
		want := "Sent to said-true:\r\n  “Which database?” → SQLite\r\n    note: keep it small\r\n"
		got := readUntil(master, want)
		if !strings.Contains(got, want) {
			t.Errorf("on a terminal, answer printed %q; want %q", got, want)
		}
		mustClient(t, e, "", "wait", id)
	}
}

// readUntil reads the terminal until what it read contains want; after
// testenv.ClientWait it gives up with what it has.
func readUntil(master *os.File, want string) string {
	got := make(chan []byte, 1)
	var seen []byte
	go func() {
		buf := make([]byte, 1024)
		var acc []byte
		for !strings.Contains(string(acc), want) {
			n, err := master.Read(buf)
			acc = append(acc, buf[:n]...)
			if err != nil {
				break
			}
		}
		got <- acc
	}()
	select {
	case seen = <-got:
	case <-time.After(testenv.ClientWait):
		master.Close() // ends the reader
		seen = <-got
	}
	return string(seen)
}
