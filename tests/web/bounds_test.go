package web

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"askuser/tests/testdir"
	"askuser/tests/testenv"
	"askuser/tests/webpane"
)

// No client can stop or swell `askuserd web` (docs/contract.md §12, "What
// one client can make it hold"): each attack below is made, as an attacker
// would, on the real binary over loopback, before logging in and after.

// Headers are bounded: one too large is answered 431 at once, and many
// connections sending most of a MiB of headers each leave the pane's
// memory as it was (Go's default let each hold 1 MiB).
func TestWebHeadersBounded(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.StartDaemon()
	w := webpane.Start(t, e)
	host := hostOf(t, w.Base)

	c, err := rawDial(t, w.Base)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nX-Pad: %s", host, strings.Repeat("a", 32<<10))
	if st, _ := answered(c, 30*time.Second); !strings.Contains(st, " 431 ") {
		t.Errorf("32 KiB of headers: the reply was %q, want 431 Request Header Fields Too Large at once", st)
	}

	before := procKiB(t, w.Pid, "VmRSS")
	const conns, each = 150, 1<<20 - 8<<10
	var wg sync.WaitGroup
	for range conns {
		c, err := rawDial(t, w.Base)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			// Until the server closes it, it has not read all it will:
			// its memory is measured after that.
			defer answered(c, 60*time.Second)
			_ = c.SetWriteDeadline(time.Now().Add(60 * time.Second))
			if _, err := fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nX-Pad: ", host); err != nil {
				return
			}
			chunk := []byte(strings.Repeat("a", 64<<10))
			for sent := 0; sent < each; sent += len(chunk) {
				if _, err := c.Write(chunk); err != nil {
					return // the server closed it: what a bound does
				}
			}
		})
	}
	wg.Wait()
	grew := procKiB(t, w.Pid, "VmHWM") - before
	t.Logf("%d connections of %d KiB of headers each: askuserd web grew by at most %d KiB", conns, each>>10, grew)
	if grew > 128<<10 {
		t.Errorf("%d connections of unfinished headers grew askuserd web by %d KiB; want the headers bounded (16 KiB each)", conns, grew)
	}
}

// A body must finish within its deadline: one that never ends is answered
// or closed, before logging in (POST /login) and after (POST /api/action,
// chunked), instead of being held forever. The event stream takes none.
func TestWebBodyMustFinish(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.StartDaemon()
	w := webpane.Start(t, e)
	_, tok := w.HTTPClient()
	host, origin := hostOf(t, w.Base), strings.TrimSuffix(w.Base, "/")

	starts := map[string]string{
		"POST /login, never-ending body": "POST /login HTTP/1.1\r\nHost: " + host + "\r\nOrigin: " + origin +
			"\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"secret\":\"",
		"POST /api/action, never-ending chunked body": "POST /api/action HTTP/1.1\r\nHost: " + host + "\r\nOrigin: " + origin +
			"\r\nAuthorization: Bearer " + tok + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nc\r\n{\"actions\":[\r\n",
	}
	var wg sync.WaitGroup
	for what, start := range starts {
		c, err := rawDial(t, w.Base)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write([]byte(start)); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			// Generous: the bound is 30 s; on a server without one it never ends.
			if st, closed := answered(c, 120*time.Second); !closed {
				t.Errorf("%s: still held after 120 s", what)
			} else {
				t.Logf("%s: %q", what, st)
			}
		})
	}

	c, err := rawDial(t, w.Base)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET /api/events HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Length: 5\r\n\r\nhello", host, tok)
	if st, _ := answered(c, 30*time.Second); !strings.Contains(st, " 400 ") {
		t.Errorf("an event stream with a body: %q, want 400", st)
	}
	wg.Wait()
}

// Thousands of connections that never finish their headers (slowloris)
// leave no one out: a logged-in request, an event stream and a real page
// still work while they are held, though the pane has few descriptors.
func TestWebConnectionFlood(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.StartDaemon()
	wrapper := filepath.Join(t.TempDir(), "askuserd-lowfd")
	script := "#!/bin/sh\nulimit -n 256 || exit 97\nexec " + testenv.Bin("askuserd") + " \"$@\"\n"
	testdir.WriteExecutable(t, wrapper, []byte(script), 0o700)
	w := webpane.StartWith(t, e, wrapper, "127.0.0.1:0")
	client, tok := w.HTTPClient()
	cmd, _, _ := e.StartClient("", "ask", "--question", secretQuestion, "--option", "Yes", "--option", "No", "--request-id", "req-flood")
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitListed(t, e)

	host := hostOf(t, w.Base)
	var flood []net.Conn
	for range 3000 {
		c, err := rawDial(t, w.Base)
		if err != nil {
			break // the listen backlog is full: the flood is as big as it gets
		}
		// Every one starts a request and never finishes its headers.
		_, _ = fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nX-Slow: ", host)
		flood = append(flood, c)
	}
	t.Logf("%d connections hold unfinished headers", len(flood))

	// On a new connection, as a page arriving now makes it.
	fresh := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	if st, body, _ := do(t, fresh, "GET", w.Base+"api/session", map[string]string{"Authorization": "Bearer " + tok}, ""); st != 200 {
		t.Errorf("a logged-in request under the flood: %d %s", st, body)
	}
	if v := settledView(t, client, w.Base); len(v.Requests) == 0 {
		t.Errorf("the event stream under the flood shows no request: %+v", v)
	}
	b := webpane.NewBrowser(t, 400, 800)
	b.Open(w)
	b.WaitText(secretQuestion)
	testenv.Says(t, "askuserd web", w.Out.String, "closed idle connections") // it runs on: its output comes through a pipe
}

// One session's event streams are bounded: past eight the oldest close.
// And streams that never read, while a view of some 900 KB changes again
// and again, leave the pane's memory bounded: a view is encoded once per
// change and shared by the streams, and a stream not read is dropped.
func TestWebEventStreamsBounded(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	e.StartDaemon()
	w := webpane.Start(t, e)
	parkBig(t, e, "req-big")
	client, tok := w.HTTPClient()
	settledView(t, client, w.Base)

	var ss []*stream
	for range 24 {
		ss = append(ss, openStream(t, client, w.Base))
	}
	for i, s := range ss[:16] {
		select {
		case <-s.closed:
		case <-time.After(30 * time.Second):
			t.Fatalf("stream %d of 24 of one session still open: want only the newest 8 kept", i+1)
		}
	}
	for i, s := range ss[16:] {
		select {
		case <-s.closed:
			t.Errorf("stream %d of 24, one of the newest 8, was closed", i+17)
		default:
		}
	}
	for _, s := range ss {
		s.close()
	}

	before := procKiB(t, w.Pid, "VmRSS")
	host, origin := hostOf(t, w.Base), strings.TrimSuffix(w.Base, "/")
	for range 24 {
		c, err := rawDial(t, w.Base)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.(*net.TCPConn).SetReadBuffer(4096)
		fmt.Fprintf(c, "GET /api/events HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", host, tok)
	}
	hdr := map[string]string{"Origin": origin, "Content-Type": "application/json"}
	for i := range 200 {
		delta := 1 - 2*(i%2) // the cursor steps down and back: a new view each time
		if st, body, _ := do(t, client, "POST", w.Base+"api/action", hdr, fmt.Sprintf(`{"actions":[{"kind":"move","delta":%d}]}`, delta)); st != 200 {
			t.Fatalf("action %d: %d %s", i, st, body)
		}
	}
	grew := procKiB(t, w.Pid, "VmHWM") - before
	t.Logf("24 unread streams of one session, 200 views of the big request: askuserd web grew by at most %d KiB", grew)
	if grew > 128<<10 {
		t.Errorf("24 unread streams grew askuserd web by %d KiB; want the views shared and the streams bounded", grew)
	}
	if st, body, _ := do(t, client, "GET", w.Base+"api/session", nil, ""); st != 200 {
		t.Errorf("a logged-in request after the streams: %d %s", st, body)
	}
}
