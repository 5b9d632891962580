package daemon

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"askuser/internal/config"
	"askuser/tests/testdaemon"
	"askuser/tests/testdir"
)

func TestLineTooLargeClosesAfterTheError(t *testing.T) {
	t.Parallel()
	sock := testDaemon(t, func(c *config.Config) { c.Limits.MaxMessageBytes = 2048 })
	a := testdaemon.DialRaw(t, sock)
	a.Send(`{"type":"list","pad":"` + strings.Repeat("x", 4000) + "\"}\n")
	a.Expect("error code=message_too_large")
	if m, err := a.TryRecv(10 * time.Second); err != io.EOF {
		t.Fatalf("want the connection closed, got %v %v", m, err)
	}
	// Exactly at the limit is fine.
	b := testdaemon.DialRaw(t, sock)
	line := `{"type":"list","pad":"` + strings.Repeat("x", 2048-len(`{"type":"list","pad":""}`)) + `"}`
	if len(line) != 2048 {
		t.Fatalf("line is %d bytes", len(line))
	}
	b.Send(line + "\n")
	b.Expect("list")
}

func TestClientsThatSendNothingOrHalfALineBlockNobody(t *testing.T) {
	t.Parallel()
	sock := testDaemon(t, nil)
	silent := testdaemon.DialRaw(t, sock)
	half := testdaemon.DialRaw(t, sock)
	half.Send(`{"type":"ask_user_request","questions":[{"quest`)
	a := testdaemon.DialRaw(t, sock)
	a.Send(ask1)
	a.Expect("ask_user_queued")
	half.Conn.Close() // disconnects mid-line
	b := testdaemon.DialRaw(t, sock)
	b.Send(answer1)
	b.Expect("ok")
	a.Expect("ask_user_response answered=true")
	silent.Quiet()
}

func TestSlowSubscriberIsDisconnected(t *testing.T) {
	t.Parallel()
	sock := testDaemonWith(t, func(o *Options) { o.ConnOutputBytes = 64 << 10 })
	slow := testdaemon.DialRaw(t, sock)
	slow.Send(`{"type":"subscribe","role":"pane"}` + "\n")
	slow.Expect("snapshot")
	fast := testdaemon.DialRaw(t, sock)
	fast.Send(`{"type":"subscribe","role":"watch"}` + "\n")
	fast.Expect("snapshot")

	// Flood: parked asks, each an event for both subscribers. The asker
	// reads its own replies; the slow subscriber reads nothing.
	const n = 3000
	asker := testdaemon.DialRaw(t, sock)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; i < n; i++ {
			if _, err := asker.Conn.Write([]byte(fmt.Sprintf(`{"type":"ask_user_request","requestId":"f%d","wait":false,`+q1+"}\n", i))); err != nil {
				t.Errorf("ask %d: %v", i, err)
				return
			}
		}
	}()
	added := 0
	go func() {
		defer wg.Done()
		for added < n {
			m, err := fast.TryRecv(10 * time.Second)
			if err != nil {
				t.Errorf("fast subscriber after %d events: %v", added, err)
				return
			}
			if m["type"] == "request_added" {
				added++
			}
		}
	}()
	for i := 0; i < n; i++ {
		asker.Expect("ask_user_queued")
	}
	wg.Wait()
	if added != n {
		t.Fatalf("the fast subscriber saw %d of %d requests", added, n)
	}
	st := testdaemon.DialRaw(t, sock)
	st.Send(`{"type":"status"}` + "\n")
	st.Expect(fmt.Sprintf("status pending=%d panes=0", n))

	// The slow one finds what the kernel held, the error, then the end.
	var last map[string]any
	for {
		m, err := slow.TryRecv(10 * time.Second)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("slow subscriber: %v", err)
		}
		last = m
	}
	if msg := testdaemon.Mismatch(last, "error code=message_too_large"); msg != "" {
		t.Errorf("last message to the slow subscriber: %v (%s)", last, msg)
	}
}

func TestConcurrentAnswersExactlyOneWins(t *testing.T) {
	t.Parallel()
	sock := testDaemon(t, nil)
	for round := 0; round < 20; round++ {
		// Each round its own id: a resolved request's id stays taken.
		id := fmt.Sprintf("r1-%d", round)
		a := testdaemon.DialRaw(t, sock)
		a.Send(strings.Replace(ask1, `"r1"`, strconv.Quote(id), 1))
		a.Expect("ask_user_queued")
		answerers := []*testdaemon.Raw{testdaemon.DialRaw(t, sock), testdaemon.DialRaw(t, sock), testdaemon.DialRaw(t, sock)}
		lines := []string{strings.Replace(answer1, `"r1"`, strconv.Quote(id), 1),
			`{"type":"answer","requestId":"` + id + `","answers":["PostgreSQL"],"via":"pane"}` + "\n",
			`{"type":"cancel","requestId":"` + id + `","via":"cli"}` + "\n"}
		var wg sync.WaitGroup
		for i, c := range answerers {
			wg.Add(1)
			go func() { defer wg.Done(); c.Send(lines[i]) }()
		}
		wg.Wait()
		oks := 0
		for _, c := range answerers {
			m := c.Recv()
			switch {
			case testdaemon.Mismatch(m, "ok") == "":
				oks++
			case testdaemon.Mismatch(m, "error code=already_resolved") == "":
			default:
				t.Fatalf("unexpected %v", m)
			}
		}
		if oks != 1 {
			t.Fatalf("round %d: %d resolutions succeeded", round, oks)
		}
		a.Expect("ask_user_response")
		a.Quiet()
	}
}

func TestNotifyCommandRunsWithTheRequest(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "notified")
	script := filepath.Join(t.TempDir(), "notify.sh")
	body := "#!/bin/sh\nprintf '%s|%s|%s|%s|%s|%s\\n' \"$1\" \"$ASKUSER_EVENT\" \"$ASKUSER_REQUEST_ID\" \"$ASKUSER_AGENT\" \"$ASKUSER_QUESTION\" \"$ASKUSER_OUTCOME\" >> " + out + "\n"
	testdir.WriteExecutable(t, script, []byte(body), 0o700)
	sock := testDaemon(t, func(c *config.Config) { c.Notify.Command = []string{script, "$(touch /tmp/no)"} })
	a := testdaemon.DialRaw(t, sock)
	a.Send(`{"type":"ask_user_request","requestId":"n1","agent":{"id":"a1","name":"claude-main"},` + q1 + "}\n")
	a.Expect("ask_user_queued")
	want := "$(touch /tmp/no)|added|n1|claude-main|Which database?|\n"
	eventually(t, out, func(s string) bool { return s == want })
	// When the question is gone the program is told, so that what it
	// posted can be deleted.
	b := testdaemon.DialRaw(t, sock)
	b.Send(`{"type":"answer","requestId":"n1","answers":["1"]}` + "\n")
	b.Expect("ok")
	want += "$(touch /tmp/no)|resolved|n1|||answered\n"
	eventually(t, out, func(s string) bool { return s == want })
}

func TestFailingNotifyCommandIsNotFatal(t *testing.T) {
	t.Parallel()
	sock := testDaemon(t, func(c *config.Config) { c.Notify.Command = []string{"/nonexistent/notify"} })
	a := testdaemon.DialRaw(t, sock)
	a.Send(ask1)
	a.Expect("ask_user_queued")
	b := testdaemon.DialRaw(t, sock)
	b.Send(answer1)
	b.Expect("ok")
	a.Expect("ask_user_response answered=true")
}

// A client that shuts down its writing side after its line (ncat -U, nc -N)
// gets its replies and then the end of the connection, so it can exit.
func TestHalfClosedClientIsClosedWhenDone(t *testing.T) {
	t.Parallel()
	sock := testDaemon(t, nil)
	st := testdaemon.DialRaw(t, sock)
	st.Send(`{"type":"status"}` + "\n")
	_ = st.Conn.CloseWrite()
	st.Expect("status")
	if m, err := st.TryRecv(10 * time.Second); err != io.EOF {
		t.Fatalf("status client: %v %v, want the end", m, err)
	}

	a := testdaemon.DialRaw(t, sock)
	a.Send(ask1)
	_ = a.Conn.CloseWrite()
	a.Expect("ask_user_queued")
	b := testdaemon.DialRaw(t, sock)
	b.Send(`{"type":"list"}` + "\n")
	b.Expect("list pending.0.status=waiting") // half-closed is not gone
	b.Send(answer1)
	b.Expect("ok")
	a.Expect("ask_user_response answered=true")
	if m, err := a.TryRecv(10 * time.Second); err != io.EOF {
		t.Fatalf("asker: %v %v, want the end", m, err)
	}
}

// A client that shuts down its writing side after a last line without a
// newline still reads: the line is answered, and an ask waits as usual.
func TestLastLineWithoutNewlineBeforeHalfClose(t *testing.T) {
	t.Parallel()
	sock := testDaemon(t, nil)
	st := testdaemon.DialRaw(t, sock)
	st.Send(`{"type":"status"}`)
	_ = st.Conn.CloseWrite()
	st.Expect("status")
	if m, err := st.TryRecv(10 * time.Second); err != io.EOF {
		t.Fatalf("status client: %v %v, want the end", m, err)
	}

	bad := testdaemon.DialRaw(t, sock)
	bad.Send(`{"type":"status"`)
	_ = bad.Conn.CloseWrite()
	bad.Expect("error code=bad_json")

	a := testdaemon.DialRaw(t, sock)
	a.Send(strings.TrimSuffix(ask1, "\n") + "\r")
	_ = a.Conn.CloseWrite()
	a.Expect("ask_user_queued requestId=r1")
	b := testdaemon.DialRaw(t, sock)
	b.Send(answer1)
	b.Expect("ok")
	a.Expect("ask_user_response answered=true")
	if m, err := a.TryRecv(10 * time.Second); err != io.EOF {
		t.Fatalf("asker: %v %v, want the end", m, err)
	}
}
