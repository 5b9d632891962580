package tests

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// dmServeFails runs `askuserd serve` expecting it to fail; it returns the output.
func dmServeFails(t *testing.T, e *Env, args ...string) string {
	t.Helper()
	cmd := exec.Command(testenv.Bin("askuserd"), append([]string{"serve"}, args...)...)
	cmd.Env = e.Environ()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// Started here, not in the goroutine, so that the kill below reads a
	// cmd.Process that is already set.
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("askuserd serve %v did not exit; output:\n%s", args, out.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Fatalf("askuserd serve %v: want a non-zero exit, got %v; output:\n%s", args, err, out.String())
	}
	return out.String()
}

func dmMode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestDaemonFreshStartPermissionsAndSecondDaemon(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	if m := dmMode(t, filepath.Dir(e.Socket)); m != 0o700 {
		t.Errorf("socket directory mode %o, want 700", m)
	}
	if m := dmMode(t, e.Socket); m != 0o600 {
		t.Errorf("socket mode %o, want 600", m)
	}
	out := dmServeFails(t, e)
	want := fmt.Sprintf("another askuserd is running (pid %d) on %s", e.Daemon.Process.Pid, e.Socket)
	if !strings.Contains(out, want) {
		t.Errorf("second daemon said %q, want %q", out, want)
	}
	// The refusal is a sentence for the person who typed the command,
	// terminal or not; a program that started the daemon learns it from
	// the start-status pipe instead (docs/contract.md §2).
	if strings.TrimSpace(out) != "askuserd: "+want {
		t.Errorf("a refused second daemon should say one sentence, %q; it said:\n%s", "askuserd: "+want, out)
	}
	// The first one is unharmed.
	c := testdaemon.DialRaw(t, e.Socket)
	c.Send(`{"type":"hello","protocol":1,"client":"test/1"}` + "\n")
	c.Expect("hello protocol=1 server=askuserd/0.1.0 pendingFile=" + e.Pending)
}

func TestDaemonStaleSocketAndSIGTERM(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	// A crash leaves the socket behind.
	cmd := e.Daemon
	e.Daemon = nil
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if _, err := os.Stat(e.Socket); err != nil {
		t.Fatalf("after a crash the socket should still be there: %v", err)
	}
	e.StartDaemon()
	c := testdaemon.DialRaw(t, e.Socket)
	c.Send(`{"type":"status"}` + "\n")
	c.Expect("status state=idle pending=0 socket=" + e.Socket)

	e.StopDaemon() // SIGTERM; fails the test on a non-zero exit
	if _, err := os.Stat(e.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket still there after SIGTERM: %v", err)
	}
	if _, err := c.TryRecv(10 * time.Second); err == nil {
		t.Error("the connection stayed open after SIGTERM")
	}
}

// SIGINT (Ctrl-C on a foreground `askuserd serve`) stops it as cleanly as
// SIGTERM: exit 0, the socket removed, the lock free for the next daemon.
func TestDaemonSIGINT(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	c := testdaemon.DialRaw(t, e.Socket)
	c.Send(testdaemon.AskLine("int-1", ""))
	c.Expect("ask_user_queued")
	cmd := e.Daemon
	e.Daemon = nil
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("askuserd after SIGINT: %v; output:\n%s", err, e.DaemonLog())
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("askuserd did not stop within 10s of SIGINT")
	}
	if _, err := os.Stat(e.Socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket still there after SIGINT: %v", err)
	}
	if _, err := c.TryRecv(10 * time.Second); err == nil {
		t.Error("the asker's connection stayed open after SIGINT")
	}
	e.StartDaemon() // the lock was released
}

func TestDaemonRefusesUnsafeDirAndBadConfig(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	dir := filepath.Dir(e.Socket)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	out := dmServeFails(t, e)
	if !strings.Contains(out, dir) || !strings.Contains(out, "0777") {
		t.Errorf("unsafe directory: output %q should name %s and its mode", out, dir)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}

	e.WriteConfig("[daemon]\norphan_grace = \"1s\"\n\n[limits]\nmax_pending = \"3\"\n")
	out = dmServeFails(t, e)
	if !strings.Contains(out, "line 5") || !strings.Contains(out, "limits.max_pending") {
		t.Errorf("bad config: output %q should name the key and its line", out)
	}
	if _, err := os.Stat(e.Socket); err == nil {
		t.Error("a daemon that refused to start left a socket")
	}
}

func TestDaemonAskAnswerCancel(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	w := testdaemon.DialRaw(t, e.Socket)
	w.Send(`{"type":"subscribe","role":"watch"}` + "\n")
	w.Expect("snapshot state=idle pending=[]")

	// ask → queued → answer from another connection → response.
	a := testdaemon.DialRaw(t, e.Socket)
	a.Send(testdaemon.AskLine("r1", ""))
	a.Expect("ask_user_queued requestId=r1 position=1 pendingFile=" + e.Pending)
	w.Expect("request_added request.requestId=r1 request.status=waiting request.draft=[null]")
	w.Expect("state state=waiting_for_user pending.0.requestId=r1")
	b := testdaemon.DialRaw(t, e.Socket)
	b.Send(testdaemon.AnswerLine("r1", "sqlite"))
	b.Expect("ok requestId=r1")
	a.Expect("ask_user_response requestId=r1 answered=true answeredVia=cli answers.0.answer=SQLite answers.0.selectedOption=SQLite")
	w.Expect("request_resolved requestId=r1 outcome=answered via=cli")
	w.Expect("state state=idle pending=[]")

	// cancel from the asker: withdrawn.
	a.Send(testdaemon.AskLine("r2", ""))
	a.Expect("ask_user_queued requestId=r2")
	w.Expect("request_added request.requestId=r2")
	w.Expect("state")
	a.Send(`{"type":"cancel","requestId":"r2"}` + "\n")
	a.Expect("ok requestId=r2")
	w.Expect("request_resolved requestId=r2 outcome=withdrawn")
	w.Expect("state state=idle")

	// cancel from elsewhere: the user declined.
	a.Send(testdaemon.AskLine("r3", ""))
	a.Expect("ask_user_queued requestId=r3")
	b.Send(`{"type":"cancel","requestId":"r3","via":"cli"}` + "\n")
	b.Expect("ok requestId=r3")
	a.Expect("ask_user_response requestId=r3 answered=false cancelled=true answers=[]")
	w.Expect("request_added request.requestId=r3")
	w.Expect("state")
	w.Expect("request_resolved requestId=r3 outcome=cancelled via=cli")
	w.Expect("state state=idle")

	// Later resolutions of any of them: already_resolved.
	for _, id := range []string{"r1", "r2", "r3"} {
		b.Send(testdaemon.AnswerLine(id, "1"))
		b.Expect("error code=already_resolved field=requestId requestId=" + id)
	}
}

func TestDaemonParkedAndOrphaned(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon() // the default orphan_grace, 10m: the wait below is in time however slow the machine
	w := testdaemon.DialRaw(t, e.Socket)
	w.Send(`{"type":"subscribe","role":"watch"}` + "\n")
	w.Expect("snapshot")

	// Parked: the asker leaves at once; a later wait collects the answer.
	p := testdaemon.DialRaw(t, e.Socket)
	p.Send(testdaemon.AskLine("park", `"wait":false,`))
	p.Expect("ask_user_queued requestId=park")
	p.Conn.Close()
	w.Expect("request_added request.status=parked")
	w.Expect("state")
	b := testdaemon.DialRaw(t, e.Socket)
	b.Send(testdaemon.AnswerLine("park", "PostgreSQL"))
	b.Expect("ok")
	w.Expect("request_resolved outcome=answered")
	w.Expect("state state=idle")
	p2 := testdaemon.DialRaw(t, e.Socket)
	p2.Send(`{"type":"wait","requestId":"park"}` + "\n")
	p2.Expect("ask_user_response requestId=park answered=true answers.0.answer=PostgreSQL")

	// Orphaned, then taken back by a wait within the grace.
	a := testdaemon.DialRaw(t, e.Socket)
	a.Send(testdaemon.AskLine("orph", ""))
	a.Expect("ask_user_queued")
	w.Expect("request_added request.status=waiting")
	w.Expect("state")
	a.Conn.Close()
	w.Expect("request_updated request.requestId=orph request.status=orphaned")
	a2 := testdaemon.DialRaw(t, e.Socket)
	a2.Send(`{"type":"wait","requestId":"orph"}` + "\n")
	w.Expect("request_updated request.status=waiting")
	b.Send(testdaemon.AnswerLine("orph", "2"))
	b.Expect("ok")
	a2.Expect("ask_user_response requestId=orph answered=true answers.0.answer=SQLite")
	w.Expect("request_resolved outcome=answered")
	w.Expect("state state=idle")

	// Orphaned and never taken back: withdrawn after orphan_grace.
	e = NewEnv(t)
	e.WriteConfig("[daemon]\norphan_grace = \"1s\"\n")
	e.StartDaemon()
	w = testdaemon.DialRaw(t, e.Socket)
	w.Send(`{"type":"subscribe","role":"watch"}` + "\n")
	w.Expect("snapshot")
	b = testdaemon.DialRaw(t, e.Socket)
	a3 := testdaemon.DialRaw(t, e.Socket)
	a3.Send(testdaemon.AskLine("gone", ""))
	a3.Expect("ask_user_queued")
	w.Expect("request_added")
	w.Expect("state")
	a3.Conn.Close()
	w.Expect("request_updated request.status=orphaned")
	w.Expect("request_resolved requestId=gone outcome=withdrawn")
	w.Expect("state state=idle")
	b.Send(`{"type":"wait","requestId":"gone"}` + "\n")
	b.Expect("error code=not_found requestId=gone")
}

func TestDaemonFirstResolutionWins(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	for round := 0; round < 10; round++ {
		id := fmt.Sprintf("race%d", round)
		a := testdaemon.DialRaw(t, e.Socket)
		a.Send(testdaemon.AskLine(id, ""))
		a.Expect("ask_user_queued")
		x, y := testdaemon.DialRaw(t, e.Socket), testdaemon.DialRaw(t, e.Socket)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); _, _ = io.WriteString(x.Conn, testdaemon.AnswerLine(id, "PostgreSQL")) }()
		go func() { defer wg.Done(); _, _ = io.WriteString(y.Conn, testdaemon.AnswerLine(id, "SQLite")) }()
		wg.Wait()
		mx, errx := x.TryRecv(10 * time.Second)
		my, erry := y.TryRecv(10 * time.Second)
		if errx != nil || erry != nil {
			t.Fatal(errx, erry)
		}
		types := mx["type"].(string) + "+" + my["type"].(string)
		var winner string
		switch types {
		case "ok+error":
			winner = "PostgreSQL"
			if my["code"] != "already_resolved" {
				t.Fatalf("loser got %v", my)
			}
		case "error+ok":
			winner = "SQLite"
			if mx["code"] != "already_resolved" {
				t.Fatalf("loser got %v", mx)
			}
		default:
			t.Fatalf("round %d: %v and %v", round, mx, my)
		}
		a.Expect("ask_user_response answers.0.answer=" + winner)
	}
}

func TestDaemonRefusals(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.WriteConfig("[limits]\nmax_pending = 3\n")
	e.StartDaemon()
	a := testdaemon.DialRaw(t, e.Socket)
	a.Send(testdaemon.AskLine("sub", `"agent":{"id":"child","subagent":true},`))
	m := a.Expect("error code=subagent_not_allowed requestId=sub")
	if m["message"] != socketproto.SubagentMessage {
		t.Errorf("sub-agent message %q", m["message"])
	}
	a.Send(testdaemon.AskLine("sub2", `"agent":{"id":"child","parentId":"main"},`))
	if m := a.Expect("error code=subagent_not_allowed requestId=sub2"); m["message"] != socketproto.SubagentMessage {
		t.Errorf("sub-agent message %q", m["message"])
	}

	for i := 1; i <= 3; i++ {
		a.Send(testdaemon.AskLine(fmt.Sprintf("q%d", i), `"wait":false,`))
		a.Expect(fmt.Sprintf("ask_user_queued position=%d", i))
	}
	b := testdaemon.DialRaw(t, e.Socket)
	b.Send(testdaemon.AskLine("q4", ""))
	b.Expect("error code=queue_full requestId=q4")
	b.Send(testdaemon.AnswerLine("q1", "1"))
	b.Expect("ok")
	b.Send(testdaemon.AskLine("q4", `"wait":false,`))
	b.Expect("ask_user_queued requestId=q4 position=3")
}

// TestDaemonBadInput sends each kind of bad input on one connection; after
// each, the same connection and another agent's ask must still work.
func TestDaemonBadInput(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.WriteConfig("[limits]\nmax_message_bytes = 4096\n")
	e.StartDaemon()

	silent := testdaemon.DialRaw(t, e.Socket) // connects and never sends anything
	half := testdaemon.DialRaw(t, e.Socket)
	half.Send(`{"type":"ask_user_request","questions":[{"question":"Wh`)

	setup := testdaemon.DialRaw(t, e.Socket)
	setup.Send(testdaemon.AskLine("dup", `"wait":false,`))
	setup.Expect("ask_user_queued")
	setup.Send(testdaemon.AskLine("done", `"wait":false,`))
	setup.Expect("ask_user_queued")
	setup.Send(testdaemon.AnswerLine("done", "1"))
	setup.Expect("ok")

	const ab = `{"label":"a"},{"label":"b"}`
	cases := []struct {
		name, line, want string
	}{
		{"not JSON", "hello there\n", "error code=bad_json"},
		{"not an object", "[1,2,3]\n", "error code=bad_json"},
		{"no type", `{"requestId":"x"}` + "\n", "error code=invalid_request field=type"},
		{"unknown type", `{"type":"make_coffee"}` + "\n", "error code=unknown_type field=type"},
		{"wrongly typed field", `{"type":"ask_user_request","questions":[{"question":"q","options":"a,b"}]}` + "\n",
			"error code=invalid_request field=questions[0].options"},
		{"wrongly typed wait", testdaemon.AskLine("w1", `"wait":"no",`), "error code=invalid_request field=wait"},
		{"invalid UTF-8", "{\"type\":\"ask_user_request\",\"questions\":[{\"question\":\"\xc3\x28\"}]}\n", "error code=bad_json"},
		{"rule broken", `{"type":"ask_user_request","tool":"ask_user_question","questions":[{"question":"q","header":"h","multiSelect":false,"options":[{"label":"a"}]}]}` + "\n",
			"error code=invalid_request field=questions[0].options"},
		{"bad request id", testdaemon.AskLine("has space", ""), "error code=invalid_request field=requestId"},
		{"duplicate request id", testdaemon.AskLine("dup", ""), "error code=duplicate_request_id field=requestId requestId=dup"},
		{"answer for an unknown request", testdaemon.AnswerLine("nope", "1"), "error code=not_found field=requestId requestId=nope"},
		{"answer for a resolved request", testdaemon.AnswerLine("done", "1"), "error code=already_resolved requestId=done"},
		{"cancel for an unknown request", `{"type":"cancel","requestId":"nope"}` + "\n", "error code=not_found requestId=nope"},
		{"wait for an unknown request", `{"type":"wait","requestId":"nope"}` + "\n", "error code=not_found requestId=nope"},
		{"answer count", `{"type":"answer","requestId":"dup","answers":[]}` + "\n", "error code=invalid_answer requestId=dup"},
		{"bad via", `{"type":"answer","requestId":"dup","answers":["1"],"via":"telepathy"}` + "\n", "error code=invalid_request field=via"},
		{"second option for a single-select question", `{"type":"answer","requestId":"dup","answers":[["PostgreSQL","SQLite"]]}` + "\n",
			"error code=invalid_answer field=answers[0] requestId=dup"},
		{"cancel for a resolved request", `{"type":"cancel","requestId":"done"}` + "\n", "error code=already_resolved requestId=done"},
		{"strict: no questions", testdaemon.StrictAskLine(`[]`), "error code=invalid_request field=questions"},
		{"strict: 5 questions", testdaemon.StrictAskLine(`[` + testdaemon.StrictQuestion("Q1", ab) + `,` + testdaemon.StrictQuestion("Q2", ab) + `,` + testdaemon.StrictQuestion("Q3", ab) + `,` + testdaemon.StrictQuestion("Q4", ab) + `,` + testdaemon.StrictQuestion("Q5", ab) + `]`),
			"error code=invalid_request field=questions"},
		{"strict: 5 options", testdaemon.StrictAskLine(`[` + testdaemon.StrictQuestion("Q", `{"label":"a"},{"label":"b"},{"label":"c"},{"label":"d"},{"label":"e"}`) + `]`),
			"error code=invalid_request field=questions[0].options"},
		{"strict: header over 12", `{"type":"ask_user_request","tool":"ask_user_question","questions":[{"question":"Q","header":"Thirteen char","multiSelect":false,"options":[{"label":"a"},{"label":"b"}]}]}` + "\n",
			"error code=invalid_request field=questions[0].header"},
		{"duplicate question texts", `{"type":"ask_user_request","questions":[{"question":"Same?"},{"question":"Same?"}]}` + "\n",
			"error code=invalid_request field=questions[1].question"},
		{"duplicate labels", `{"type":"ask_user_request","questions":[{"question":"Q","options":[{"label":"a"},{"label":"a"}]}]}` + "\n",
			"error code=invalid_request field=questions[0].options[1].label"},
		{"empty label", `{"type":"ask_user_request","questions":[{"question":"Q","options":[{"label":""},{"label":"b"}]}]}` + "\n",
			"error code=invalid_request field=questions[0].options[0].label"},
		{"control character", `{"type":"ask_user_request","questions":[{"question":"Q\u001b[2J"}]}` + "\n",
			"error code=invalid_request field=questions[0].question"},
	}
	c := testdaemon.DialRaw(t, e.Socket)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.T = t
			c.Send(tc.line)
			c.Expect(tc.want)
			c.Send(`{"type":"status"}` + "\n")
			c.Expect("status")
			other := testdaemon.DialRaw(t, e.Socket)
			other.Send(testdaemon.AskLine(fmt.Sprintf("other%d", i), `"wait":false,`))
			other.Expect("ask_user_queued")
			other.Send(testdaemon.AnswerLine(fmt.Sprintf("other%d", i), "1"))
			other.Expect("ok")
		})
	}

	// A line over the limit: the error, then the connection closes.
	big := testdaemon.DialRaw(t, e.Socket)
	big.Send(`{"type":"status","pad":"` + strings.Repeat("x", 5000) + "\"}\n")
	big.Expect("error code=message_too_large")
	if m, err := big.TryRecv(10 * time.Second); err != io.EOF {
		t.Errorf("after message_too_large: %v %v, want the connection closed", m, err)
	}
	half.Conn.Close() // disconnects mid-line
	a := testdaemon.DialRaw(t, e.Socket)
	a.Send(testdaemon.AskLine("after", ""))
	a.Expect("ask_user_queued")
	b := testdaemon.DialRaw(t, e.Socket)
	b.Send(testdaemon.AnswerLine("after", "2"))
	b.Expect("ok")
	a.Expect("ask_user_response answered=true")
	if m, err := silent.TryRecv(100 * time.Millisecond); err == nil {
		t.Errorf("a silent client was sent %v", m)
	}
}

func TestDaemonSlowSubscriberDisconnected(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()
	slow := testdaemon.DialRaw(t, e.Socket)
	slow.Send(`{"type":"subscribe","role":"pane"}` + "\n")
	slow.Expect("snapshot")
	// Make the slow subscriber's kernel buffers small so the test floods
	// the daemon's bounded backlog with few events.
	_ = slow.Conn.SetReadBuffer(4096)
	fast := testdaemon.DialRaw(t, e.Socket)
	fast.Send(`{"type":"subscribe","role":"watch"}` + "\n")
	fast.Expect("snapshot")

	// Each event carries 3 KB of metadata: 2,500 of them are past the 4 MiB
	// a connection may leave unread (README "Memory").
	const n = 2500
	pad := `"metadata":{"pad":"` + strings.Repeat("x", 3000) + `"},`
	asker := testdaemon.DialRaw(t, e.Socket)
	done := make(chan int)
	go func() {
		added := 0
		for added < n {
			m, err := fast.TryRecv(30 * time.Second)
			if err != nil {
				break
			}
			if m["type"] == "request_added" {
				added++
			}
		}
		done <- added
	}()
	go func() {
		for i := 0; i < n; i++ {
			if _, err := io.WriteString(asker.Conn, testdaemon.AskLine(fmt.Sprintf("f%d", i), `"wait":false,`+pad)); err != nil {
				return
			}
		}
	}()
	for i := 0; i < n; i++ {
		asker.Expect("ask_user_queued")
	}
	if added := <-done; added != n {
		t.Fatalf("the reading subscriber saw %d of %d requests", added, n)
	}
	st := testdaemon.DialRaw(t, e.Socket)
	st.Send(`{"type":"status"}` + "\n")
	st.Expect(fmt.Sprintf("status pending=%d panes=0", n))

	var last map[string]any
	for {
		m, err := slow.TryRecv(15 * time.Second)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the slow subscriber was not disconnected: %v", err)
		}
		last = m
	}
	if last["type"] != "error" || last["code"] != "message_too_large" {
		t.Errorf("the slow subscriber's last message: %v", last)
	}
	e.StopDaemon() // the log is read only once the daemon has exited
	if !strings.Contains(e.DaemonLog(), "does not read") {
		t.Errorf("the daemon did not log the disconnect:\n%s", e.DaemonLog())
	}
}

// TestDaemonNetcatClient is docs/contract.md §4's smallest client: one line into
// `nc -N -U`, then lines out until the answer, and nc exits by itself.
func TestDaemonNetcatClient(t *testing.T) {
	t.Parallel()
	nc, err := exec.LookPath("nc")
	if err != nil {
		testdaemon.Missing(t, "OpenBSD netcat", "apt-get install netcat-openbsd, or run .ci/run", "nc is not installed: this test runs docs/contract.md §4's smallest client, `nc -N -U`; install OpenBSD netcat (apt-get install netcat-openbsd) or run .ci/run")
	}
	if out, _ := exec.Command(nc, "-h").CombinedOutput(); !strings.Contains(string(out), "OpenBSD") {
		testdaemon.Missing(t, "OpenBSD netcat", "apt-get install netcat-openbsd, or run .ci/run", nc+" is not OpenBSD netcat, which this test needs for -N and -U; install it (apt-get install netcat-openbsd) or run .ci/run")
	}
	e := NewEnv(t)
	e.StartDaemon()
	w := testdaemon.DialRaw(t, e.Socket)
	w.Send(`{"type":"subscribe","role":"watch"}` + "\n")
	w.Expect("snapshot")

	cmd := exec.Command(nc, "-N", "-U", e.Socket)
	cmd.Stdin = strings.NewReader(testdaemon.AskLine("nc1", ""))
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-done
		}
	})
	w.Expect("request_added request.requestId=nc1")
	b := testdaemon.DialRaw(t, e.Socket)
	b.Send(testdaemon.AnswerLine("nc1", "1"))
	b.Expect("ok")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("nc: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nc did not exit after the answer")
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"ask_user_queued"`) ||
		!strings.Contains(lines[1], `"ask_user_response"`) || !strings.Contains(lines[1], `"PostgreSQL"`) {
		t.Errorf("nc printed:\n%s", out.String())
	}
}
