package daemon

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"askuser/daemon/config"
)

func TestLineTooLargeClosesAfterTheError(t *testing.T) {
	sock := testDaemon(t, func(c *config.Config) { c.Limits.MaxMessageBytes = 2048 })
	a := dialRaw(t, sock)
	a.send(`{"type":"list","pad":"` + strings.Repeat("x", 4000) + "\"}\n")
	a.expect("error code=message_too_large")
	if m, err := a.tryRecv(10 * time.Second); err != io.EOF {
		t.Fatalf("want the connection closed, got %v %v", m, err)
	}
	// Exactly at the limit is fine.
	b := dialRaw(t, sock)
	line := `{"type":"list","pad":"` + strings.Repeat("x", 2048-len(`{"type":"list","pad":""}`)) + `"}`
	if len(line) != 2048 {
		t.Fatalf("line is %d bytes", len(line))
	}
	b.send(line + "\n")
	b.expect("list")
}

func TestClientsThatSendNothingOrHalfALineBlockNobody(t *testing.T) {
	sock := testDaemon(t, nil)
	silent := dialRaw(t, sock)
	half := dialRaw(t, sock)
	half.send(`{"type":"ask_user_request","questions":[{"quest`)
	a := dialRaw(t, sock)
	a.send(ask1)
	a.expect("ask_user_queued")
	half.nc.Close() // disconnects mid-line
	b := dialRaw(t, sock)
	b.send(answer1)
	b.expect("ok")
	a.expect("ask_user_response answered=true")
	silent.quiet()
}

func TestSlowSubscriberIsDisconnected(t *testing.T) {
	sock := testDaemon(t, nil)
	slow := dialRaw(t, sock)
	slow.send(`{"type":"subscribe","role":"pane"}` + "\n")
	slow.expect("snapshot")
	fast := dialRaw(t, sock)
	fast.send(`{"type":"subscribe","role":"watch"}` + "\n")
	fast.expect("snapshot")

	// Flood: parked asks, each an event for both subscribers. The asker
	// reads its own replies; the slow subscriber reads nothing.
	const n = 3000
	asker := dialRaw(t, sock)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; i < n; i++ {
			if _, err := asker.nc.Write([]byte(fmt.Sprintf(`{"type":"ask_user_request","requestId":"f%d","wait":false,`+q1+"}\n", i))); err != nil {
				t.Errorf("ask %d: %v", i, err)
				return
			}
		}
	}()
	added := 0
	go func() {
		defer wg.Done()
		for added < n {
			m, err := fast.tryRecv(10 * time.Second)
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
		asker.expect("ask_user_queued")
	}
	wg.Wait()
	if added != n {
		t.Fatalf("the fast subscriber saw %d of %d requests", added, n)
	}
	st := dialRaw(t, sock)
	st.send(`{"type":"status"}` + "\n")
	st.expect(fmt.Sprintf("status pending=%d panes=0", n))

	// The slow one finds what the kernel held, the error, then the end.
	var last map[string]any
	for {
		m, err := slow.tryRecv(10 * time.Second)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("slow subscriber: %v", err)
		}
		last = m
	}
	if msg := mismatch(last, "error code=message_too_large"); msg != "" {
		t.Errorf("last message to the slow subscriber: %v (%s)", last, msg)
	}
}

func TestConcurrentAnswersExactlyOneWins(t *testing.T) {
	sock := testDaemon(t, nil)
	for round := 0; round < 20; round++ {
		// Each round its own id: a resolved request's id stays taken.
		id := fmt.Sprintf("r1-%d", round)
		a := dialRaw(t, sock)
		a.send(strings.Replace(ask1, `"r1"`, strconv.Quote(id), 1))
		a.expect("ask_user_queued")
		answerers := []*rawClient{dialRaw(t, sock), dialRaw(t, sock), dialRaw(t, sock)}
		lines := []string{strings.Replace(answer1, `"r1"`, strconv.Quote(id), 1),
			`{"type":"answer","requestId":"` + id + `","answers":["PostgreSQL"],"via":"pane"}` + "\n",
			`{"type":"cancel","requestId":"` + id + `","via":"cli"}` + "\n"}
		var wg sync.WaitGroup
		for i, c := range answerers {
			wg.Add(1)
			go func() { defer wg.Done(); c.send(lines[i]) }()
		}
		wg.Wait()
		oks := 0
		for _, c := range answerers {
			m := c.recv()
			switch {
			case mismatch(m, "ok") == "":
				oks++
			case mismatch(m, "error code=already_resolved") == "":
			default:
				t.Fatalf("unexpected %v", m)
			}
		}
		if oks != 1 {
			t.Fatalf("round %d: %d resolutions succeeded", round, oks)
		}
		a.expect("ask_user_response")
		a.quiet()
	}
}

func TestNotifyCommandRunsWithTheRequest(t *testing.T) {
	out := filepath.Join(t.TempDir(), "notified")
	script := filepath.Join(t.TempDir(), "notify.sh")
	body := "#!/bin/sh\nprintf '%s|%s|%s|%s\\n' \"$1\" \"$ASKUSER_REQUEST_ID\" \"$ASKUSER_AGENT\" \"$ASKUSER_QUESTION\" >> " + out + "\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	sock := testDaemon(t, func(c *config.Config) { c.Notify.Command = []string{script, "$(touch /tmp/no)"} })
	a := dialRaw(t, sock)
	a.send(`{"type":"ask_user_request","requestId":"n1","agent":{"id":"a1","name":"claude-main"},` + q1 + "}\n")
	a.expect("ask_user_queued")
	want := "$(touch /tmp/no)|n1|claude-main|Which database?\n"
	eventually(t, out, func(s string) bool { return s == want })
}

func TestFailingNotifyCommandIsNotFatal(t *testing.T) {
	sock := testDaemon(t, func(c *config.Config) { c.Notify.Command = []string{"/nonexistent/notify"} })
	a := dialRaw(t, sock)
	a.send(ask1)
	a.expect("ask_user_queued")
	b := dialRaw(t, sock)
	b.send(answer1)
	b.expect("ok")
	a.expect("ask_user_response answered=true")
}

// A client that shuts down its writing side after its line (ncat -U, nc -N)
// gets its replies and then the end of the connection, so it can exit.
func TestHalfClosedClientIsClosedWhenDone(t *testing.T) {
	sock := testDaemon(t, nil)
	st := dialRaw(t, sock)
	st.send(`{"type":"status"}` + "\n")
	_ = st.nc.CloseWrite()
	st.expect("status")
	if m, err := st.tryRecv(10 * time.Second); err != io.EOF {
		t.Fatalf("status client: %v %v, want the end", m, err)
	}

	a := dialRaw(t, sock)
	a.send(ask1)
	_ = a.nc.CloseWrite()
	a.expect("ask_user_queued")
	b := dialRaw(t, sock)
	b.send(`{"type":"list"}` + "\n")
	b.expect("list pending.0.status=waiting") // half-closed is not gone
	b.send(answer1)
	b.expect("ok")
	a.expect("ask_user_response answered=true")
	if m, err := a.tryRecv(10 * time.Second); err != io.EOF {
		t.Fatalf("asker: %v %v, want the end", m, err)
	}
}

// A client that shuts down its writing side after a last line without a
// newline still reads: the line is answered, and an ask waits as usual.
func TestLastLineWithoutNewlineBeforeHalfClose(t *testing.T) {
	sock := testDaemon(t, nil)
	st := dialRaw(t, sock)
	st.send(`{"type":"status"}`)
	_ = st.nc.CloseWrite()
	st.expect("status")
	if m, err := st.tryRecv(10 * time.Second); err != io.EOF {
		t.Fatalf("status client: %v %v, want the end", m, err)
	}

	bad := dialRaw(t, sock)
	bad.send(`{"type":"status"`)
	_ = bad.nc.CloseWrite()
	bad.expect("error code=bad_json")

	a := dialRaw(t, sock)
	a.send(strings.TrimSuffix(ask1, "\n") + "\r")
	_ = a.nc.CloseWrite()
	a.expect("ask_user_queued requestId=r1")
	b := dialRaw(t, sock)
	b.send(answer1)
	b.expect("ok")
	a.expect("ask_user_response answered=true")
	if m, err := a.tryRecv(10 * time.Second); err != io.EOF {
		t.Fatalf("asker: %v %v, want the end", m, err)
	}
}
