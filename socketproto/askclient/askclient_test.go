package askclient

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"askuser/socketproto"
	"askuser/tests/testdir"
)

// fakeDaemon speaks the daemon's side of the protocol on a real Unix socket,
// one scripted handler per connection, in order of arrival.
type fakeDaemon struct {
	t        *testing.T
	path     string
	ln       net.Listener
	mu       sync.Mutex
	handlers []func(*serverConn)
	wg       sync.WaitGroup
}

type serverConn struct {
	nc net.Conn
	r  *socketproto.LineReader
	w  *socketproto.LineWriter
}

func (c *serverConn) recv(t *testing.T) socketproto.Message {
	_ = c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := c.r.ReadLine()
	if err != nil {
		t.Errorf("fake daemon read: %v", err)
		return nil
	}
	m, perr := socketproto.DecodeFromClient(line)
	if perr != nil {
		t.Errorf("fake daemon decode %s: %v", line, perr)
		return nil
	}
	return m
}

func (c *serverConn) send(m socketproto.Message) { _ = c.w.Write(m) }

func newFakeDaemon(t *testing.T, handlers ...func(*serverConn)) *fakeDaemon {
	dir, err := os.MkdirTemp("", "ac-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	d := &fakeDaemon{t: t, path: filepath.Join(dir, "s.sock"), handlers: handlers}
	d.listen()
	t.Cleanup(d.stop)
	return d
}

func (d *fakeDaemon) listen() {
	ln, err := net.Listen("unix", d.path)
	if err != nil {
		d.t.Fatal(err)
	}
	d.ln = ln
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			d.mu.Lock()
			var h func(*serverConn)
			if len(d.handlers) > 0 {
				h, d.handlers = d.handlers[0], d.handlers[1:]
			}
			d.mu.Unlock()
			d.wg.Add(1)
			go func() {
				defer d.wg.Done()
				defer nc.Close()
				if h != nil {
					h(&serverConn{nc: nc, r: socketproto.NewLineReader(nc, 0), w: socketproto.NewLineWriter(nc)})
				}
			}()
		}
	}()
}

func (d *fakeDaemon) stop() {
	d.ln.Close()
	d.wg.Wait()
}

func (d *fakeDaemon) opts() Options { return Options{SocketPath: d.path} }

func answered(id string) socketproto.Response {
	return socketproto.Response{RequestID: id, Answered: true,
		Answers:           []socketproto.Answer{{Question: "Q?", Answer: socketproto.AnswerValue{Text: "yes"}}},
		AnswersByQuestion: map[string]string{"Q?": "yes"}, AnsweredVia: socketproto.ViaCLI, Summary: "s"}
}

func oneQuestion() socketproto.AskUserRequest {
	return socketproto.AskUserRequest{Request: socketproto.Request{Questions: []socketproto.Question{{Question: "Q?"}}}}
}

func ctx10(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestAskQueuedThenAnswered(t *testing.T) {
	ids := make(chan string, 1)
	d := newFakeDaemon(t, func(c *serverConn) {
		req, ok := c.recv(t).(socketproto.AskUserRequest)
		if !ok {
			t.Errorf("want ask_user_request")
			return
		}
		ids <- req.RequestID
		if !req.Waits() {
			t.Errorf("Ask sent wait=false")
		}
		c.send(socketproto.Queued{RequestID: req.RequestID, Position: 1, PendingFile: "/p.json"})
		c.send(answered(req.RequestID))
	})
	var queued []socketproto.Queued
	resp, err := Ask(ctx10(t), d.opts(), oneQuestion(), func(q socketproto.Queued) { queued = append(queued, q) })
	if err != nil {
		t.Fatal(err)
	}
	if gotID := <-ids; gotID == "" || resp.RequestID != gotID {
		t.Errorf("request id: sent %q, result %q", gotID, resp.RequestID)
	}
	if len(queued) != 1 || queued[0].PendingFile != "/p.json" {
		t.Errorf("onQueued saw %+v", queued)
	}
	if !resp.Answered || resp.AnswersByQuestion["Q?"] != "yes" {
		t.Errorf("result %+v", resp)
	}
}

func TestAskRefused(t *testing.T) {
	d := newFakeDaemon(t, func(c *serverConn) {
		c.recv(t)
		e := socketproto.Errf(socketproto.CodeInvalidRequest, "questions[0].options", "need 2 to 4 options, got 5")
		c.send(e)
	})
	_, err := Ask(ctx10(t), d.opts(), oneQuestion(), nil)
	var pe *socketproto.Error
	if !errors.As(err, &pe) || pe.Field != "questions[0].options" {
		t.Fatalf("want the daemon's error naming the field, got %v", err)
	}
}

// The first connection drops after the acknowledgement; the second must carry
// a wait for the same id and deliver its result.
func TestAskResumesWithWait(t *testing.T) {
	ids := make(chan string, 1)
	d := newFakeDaemon(t,
		func(c *serverConn) {
			req := c.recv(t).(socketproto.AskUserRequest)
			ids <- req.RequestID
			c.send(socketproto.Queued{RequestID: req.RequestID, Position: 1})
		},
		func(c *serverConn) {
			w, ok := c.recv(t).(socketproto.Wait)
			if !ok {
				t.Errorf("resumed connection did not start with wait")
				return
			}
			if want := <-ids; w.RequestID != want {
				t.Errorf("wait for %q, asked %q", w.RequestID, want)
			}
			c.send(answered(w.RequestID))
		})
	resp, err := Ask(ctx10(t), d.opts(), oneQuestion(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Answered {
		t.Errorf("result %+v", resp)
	}
}

// A daemon that restarted without its state answers the resuming wait with
// not_found: the question is asked again, same id, same questions.
func TestAskResumedButRequestGoneAsksAgain(t *testing.T) {
	asked := make(chan socketproto.AskUserRequest, 1)
	d := newFakeDaemon(t,
		func(c *serverConn) {
			req := c.recv(t).(socketproto.AskUserRequest)
			asked <- req
			c.send(socketproto.Queued{RequestID: req.RequestID, Position: 1})
		},
		func(c *serverConn) {
			w := c.recv(t).(socketproto.Wait)
			e := socketproto.Errf(socketproto.CodeNotFound, "requestId", "no request %s", w.RequestID)
			e.RequestID = w.RequestID
			c.send(e)
			again, ok := c.recv(t).(socketproto.AskUserRequest)
			if !ok {
				t.Errorf("after not_found the client did not ask again")
				return
			}
			first := <-asked
			if again.RequestID != first.RequestID || len(again.Questions) != 1 || again.Questions[0].Question != "Q?" || !again.Waits() {
				t.Errorf("asked again with %+v, first %+v", again, first)
			}
			c.send(socketproto.Queued{RequestID: again.RequestID, Position: 1})
			c.send(answered(again.RequestID))
		})
	resp, err := Ask(ctx10(t), d.opts(), oneQuestion(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Answered {
		t.Errorf("result %+v", resp)
	}
}

// Wait has nothing to ask again: a request the daemon forgot while the
// connection was down ends in ErrConnectionLost with the not_found visible.
func TestWaitResumedButRequestGone(t *testing.T) {
	d := newFakeDaemon(t,
		func(c *serverConn) { c.recv(t) },
		func(c *serverConn) {
			w := c.recv(t).(socketproto.Wait)
			e := socketproto.Errf(socketproto.CodeNotFound, "requestId", "no request %s", w.RequestID)
			e.RequestID = w.RequestID
			c.send(e)
		})
	_, err := Wait(ctx10(t), d.opts(), "r1")
	if !errors.Is(err, ErrConnectionLost) {
		t.Fatalf("want ErrConnectionLost, got %v", err)
	}
	var pe *socketproto.Error
	if !errors.As(err, &pe) || pe.Code != socketproto.CodeNotFound {
		t.Errorf("the not_found should stay visible in %v", err)
	}
}

func TestAskGivesUpAfterReconnectWindow(t *testing.T) {
	old := ReconnectWindow
	ReconnectWindow = 300 * time.Millisecond
	t.Cleanup(func() { ReconnectWindow = old })
	var d *fakeDaemon
	d = newFakeDaemon(t, func(c *serverConn) {
		c.recv(t)
		// A crash: the socket stays behind, and nothing will answer again.
		d.ln.(*net.UnixListener).SetUnlinkOnClose(false)
		d.ln.Close()
	})
	_, err := Ask(ctx10(t), d.opts(), oneQuestion(), nil)
	if !errors.Is(err, ErrConnectionLost) {
		t.Fatalf("want ErrConnectionLost, got %v", err)
	}
}

// A daemon stopped on purpose (its socket removed, as a clean stop does) is
// not started again by a waiting client, however long it stays stopped: the
// client says so once and resumes when the user starts one (docs/contract.md §2).
func TestAskWaitsOutADeliberateStop(t *testing.T) {
	old := ReconnectWindow
	ReconnectWindow = 200 * time.Millisecond
	t.Cleanup(func() { ReconnectWindow = old })
	dropped := make(chan struct{})
	var d *fakeDaemon
	d = newFakeDaemon(t,
		func(c *serverConn) {
			req := c.recv(t).(socketproto.AskUserRequest)
			c.send(socketproto.Queued{RequestID: req.RequestID, Position: 1})
			d.ln.Close() // unlinks the socket: a clean stop
			close(dropped)
		},
		func(c *serverConn) {
			w := c.recv(t).(socketproto.Wait)
			c.send(answered(w.RequestID))
		})
	said := make(chan string, 4)
	o := d.opts()
	o.Autostart = true
	o.DaemonBinary = "/nonexistent/askuserd-must-not-be-started"
	o.Say = func(s string) { said <- s }
	got := make(chan error, 1)
	go func() {
		_, err := Ask(ctx10(t), o, oneQuestion(), nil)
		got <- err
	}()
	<-dropped
	select {
	case s := <-said:
		if !strings.Contains(s, "stopped on purpose; waiting for it to be started again") {
			t.Errorf("said %q", s)
		}
	case err := <-got:
		t.Fatalf("Ask ended while the daemon was stopped: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("the client did not say it waits for the daemon")
	}
	// That it waits past the window, on and on, is the rule of
	// TestReconnectWaitsOutADeliberateStopWithoutDeadline, on a fake clock.
	d.wg.Wait()
	d.listen() // the user starts it again
	if err := <-got; err != nil {
		t.Fatalf("Ask after the restart: %v", err)
	}
	if len(said) != 0 {
		t.Errorf("said more than once: %q", <-said)
	}
}

func TestAskCancelledWithdraws(t *testing.T) {
	got := make(chan socketproto.Cancel, 1)
	d := newFakeDaemon(t, func(c *serverConn) {
		req := c.recv(t).(socketproto.AskUserRequest)
		c.send(socketproto.Queued{RequestID: req.RequestID, Position: 1})
		if cn, ok := c.recv(t).(socketproto.Cancel); ok {
			if cn.RequestID != req.RequestID || cn.Via != "" {
				t.Errorf("withdraw sent %+v for %s", cn, req.RequestID)
			}
			c.send(socketproto.OK{RequestID: cn.RequestID})
			got <- cn
		}
	})
	ctx, cancel := context.WithCancel(ctx10(t))
	_, err := Ask(ctx, d.opts(), oneQuestion(), func(socketproto.Queued) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the daemon never saw the cancel")
	}
}

func TestWaitNotFoundIsPlainError(t *testing.T) {
	d := newFakeDaemon(t, func(c *serverConn) {
		w := c.recv(t).(socketproto.Wait)
		c.send(socketproto.Errf(socketproto.CodeNotFound, "requestId", "no request %s", w.RequestID))
	})
	_, err := Wait(ctx10(t), d.opts(), "r1")
	var pe *socketproto.Error
	if !errors.As(err, &pe) || pe.Code != socketproto.CodeNotFound || errors.Is(err, ErrConnectionLost) {
		t.Fatalf("want a plain not_found, got %v", err)
	}
}

func TestCallAndPark(t *testing.T) {
	d := newFakeDaemon(t,
		func(c *serverConn) {
			if _, ok := c.recv(t).(socketproto.ListRequest); ok {
				c.send(socketproto.List{Pending: []socketproto.Pending{{Request: socketproto.Request{RequestID: "a"}}}})
			}
		},
		func(c *serverConn) {
			req := c.recv(t).(socketproto.AskUserRequest)
			if req.Waits() {
				t.Errorf("Park sent a waiting request")
			}
			c.send(socketproto.Queued{RequestID: "r9", Position: 2})
		})
	m, err := Call(ctx10(t), d.opts(), socketproto.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if l, ok := m.(socketproto.List); !ok || len(l.Pending) != 1 {
		t.Errorf("list reply %+v", m)
	}
	q, err := Park(ctx10(t), d.opts(), oneQuestion())
	if err != nil || q.RequestID != "r9" || q.Position != 2 {
		t.Errorf("park: %+v %v", q, err)
	}
}

func TestConnectUnreachable(t *testing.T) {
	dir := testdir.Private(t)
	o := Options{SocketPath: filepath.Join(dir, "none.sock")}
	if _, err := Connect(ctx10(t), o); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("want ErrUnreachable, got %v", err)
	}
	o.Autostart = true
	o.DaemonBinary = filepath.Join(dir, "no-such-askuserd")
	if _, err := Connect(ctx10(t), o); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("autostart of a missing binary: want ErrUnreachable, got %v", err)
	}
}

func TestAgentFromEnv(t *testing.T) {
	cases := []struct {
		id, parent, sub string
		want            socketproto.Agent
	}{
		{"", "", "", socketproto.Agent{}},
		{"a1", "", "", socketproto.Agent{ID: "a1"}},
		{"a1", "p0", "", socketproto.Agent{ID: "a1", ParentID: "p0"}},
		{"", "", "1", socketproto.Agent{Subagent: true}},
		{"", "", "0", socketproto.Agent{}},
		{"", "", "true", socketproto.Agent{Subagent: true}},
	}
	wd, _ := os.Getwd()
	for _, c := range cases {
		t.Setenv(EnvAgentID, c.id)
		t.Setenv(EnvParentID, c.parent)
		t.Setenv(EnvSubagent, c.sub)
		c.want.Cwd = wd
		if got := AgentFromEnv(); got != c.want {
			t.Errorf("env %q %q %q: got %+v, want %+v", c.id, c.parent, c.sub, got, c.want)
		}
	}
}

// A daemon that keeps failing is started a bounded number of times and its
// failure reported, rather than respawned until the deadline.
func TestConnectAutostartFailingDaemon(t *testing.T) {
	old := autostartWait
	autostartWait = 500 * time.Millisecond
	t.Cleanup(func() { autostartWait = old })
	dir := testdir.Private(t)
	starts := filepath.Join(dir, "starts")
	script := filepath.Join(dir, "askuserd")
	body := "#!/bin/sh\necho \"$@\" >> " + starts + "\nexit 3\n"
	testdir.WriteExecutable(t, script, []byte(body), 0o755)
	sock := filepath.Join(dir, "s.sock")
	o := Options{SocketPath: sock, Autostart: true, DaemonBinary: script, ConfigPath: "/cfg.toml"}
	_, err := Connect(ctx10(t), o)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("want ErrUnreachable naming the exit, got %v", err)
	}
	b, _ := os.ReadFile(starts)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 1 || len(lines) > maxStarts {
		t.Errorf("started %d times, want 1 to %d", len(lines), maxStarts)
	}
	if lines[0] != "serve --socket "+sock+" --config /cfg.toml" {
		t.Errorf("started as %q", lines[0])
	}
}

// A cancelled Wait stops waiting without withdrawing the parked request.
func TestWaitCancelledLeavesRequest(t *testing.T) {
	next := make(chan string, 1)
	waiting := make(chan struct{})
	d := newFakeDaemon(t, func(c *serverConn) {
		w := c.recv(t).(socketproto.Wait)
		close(waiting)
		_ = c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, err := c.r.ReadLine()
		if err == nil {
			next <- "sent after wait for " + w.RequestID + ": " + string(line)
			return
		}
		next <- ""
	})
	ctx, cancel := context.WithCancel(ctx10(t))
	go func() { <-waiting; cancel() }() // once the daemon holds the wait
	if _, err := Wait(ctx, d.opts(), "parked-1"); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if got := <-next; got != "" {
		t.Errorf("Wait withdrew: %s", got)
	}
}

// A started daemon that refuses to run says why on its start-status pipe,
// typed (docs/contract.md §2): Connect reports that at once, without a log
// file to read, and does not start it again.
func TestConnectAutostartRefusalFromStartStatus(t *testing.T) {
	dir := testdir.Private(t)
	starts := filepath.Join(dir, "starts")
	script := filepath.Join(dir, "askuserd")
	body := "#!/bin/sh\necho x >> " + starts + "\n" +
		`printf '%s\n' '{"type":"start_status","ready":false,"code":"refused","message":"the state dir is held by pid 42 on /elsewhere.sock"}' >&$` + socketproto.StartFDEnv + "\nexit 1\n"
	testdir.WriteExecutable(t, script, []byte(body), 0o755)
	o := Options{SocketPath: filepath.Join(dir, "s.sock"), Autostart: true, DaemonBinary: script}
	start := time.Now()
	_, err := Connect(ctx10(t), o)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "refused to run: the state dir is held by pid 42 on /elsewhere.sock") {
		t.Fatalf("want the daemon's own reason, got %v", err)
	}
	if sr := new(StartRefusal); !errors.As(err, &sr) || sr.Reason != "the state dir is held by pid 42 on /elsewhere.sock" {
		t.Errorf("the refusal is not a StartRefusal with its reason: %v", err)
	}
	if waited := time.Since(start); waited > autostartWait/2 {
		t.Errorf("took %v: the refusal should end Connect at once", waited)
	}
	if b, _ := os.ReadFile(starts); strings.Count(string(b), "x") != 1 {
		t.Errorf("started %d times; a refusal of its own is not retried", strings.Count(string(b), "x"))
	}
}

// refusingStart puts in startDaemon's place a daemon that listens on the
// socket, waits for a client to reach it, and only then refuses to run as
// askuserd does when the state dir is held by a daemon on another socket:
// its listener closed (the socket removed, as after a clean stop), the
// connection dropped unread, its reason on the start-status pipe. The race
// in which a client dials a daemon that is about to refuse is thus taken
// every time, not by luck. reached is closed when a client got through.
func refusingStart(t *testing.T, reason string) (reached <-chan struct{}, starts *int) {
	t.Helper()
	old := startDaemon
	t.Cleanup(func() { startDaemon = old })
	got := make(chan struct{})
	var n int
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	startDaemon = func(o Options) (<-chan startOutcome, error) {
		n++
		ln, err := net.Listen("unix", o.SocketPath)
		if err != nil {
			return nil, err
		}
		out := make(chan startOutcome, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc, err := ln.Accept()
			ln.Close() // unlinks the socket
			if err == nil {
				if n == 1 {
					close(got)
				}
				nc.Close()
			}
			out <- startOutcome{
				status: socketproto.StartStatus{Code: socketproto.StartRefused, Message: reason},
				exit:   errors.New("exit status 1"),
			}
		}()
		return out, nil
	}
	return got, &n
}

// The daemon started for an ask refuses to run after the client reached its
// socket: the ask ends at once with the daemon's reason, unreachable (the
// question was not asked), and does not take the vanished socket for a
// deliberate stop to wait out.
func TestAskWhenTheStartedDaemonRefusesAfterTheClientReachedIt(t *testing.T) {
	dir := testdir.Private(t)
	reached, starts := refusingStart(t, "another askuserd is running: the state dir /s is in use by askuserd (pid 42) on /elsewhere.sock")
	said := make(chan string, 4)
	o := Options{SocketPath: filepath.Join(dir, "s.sock"), Autostart: true, Say: func(s string) { said <- s }}
	_, err := Ask(ctx10(t), o, oneQuestion(), nil)
	select {
	case <-reached:
	default:
		t.Fatal("the client never reached the refusing daemon's socket: the race was not taken")
	}
	var sr *StartRefusal
	if !errors.As(err, &sr) || !strings.Contains(sr.Reason, "the state dir /s is in use") {
		t.Fatalf("want the daemon's reason, got %v", err)
	}
	if !errors.Is(err, ErrUnreachable) || errors.Is(err, ErrConnectionLost) {
		t.Errorf("want unreachable, the question not asked; got %v", err)
	}
	if *starts != 1 {
		t.Errorf("started %d daemons; a refusal of its own is not retried", *starts)
	}
	if len(said) != 0 {
		t.Errorf("said %q", <-said)
	}
}

// vanishingDaemon takes the first connection and closes its listener,
// which unlinks the socket as a clean stop does, without reading a line.
func vanishingDaemon(t *testing.T) *fakeDaemon {
	d := newFakeDaemon(t)
	d.mu.Lock() // the accepting goroutine reads handlers under mu
	d.handlers = append(d.handlers, func(*serverConn) { d.ln.Close() })
	d.mu.Unlock()
	return d
}

// A daemon this client did not start (another client's) takes the
// connection and goes away, its socket removed, before reading the
// question: without an acknowledgement that is no deliberate stop of a
// daemon the question waits on. The client reconnects as a new ask would,
// and the daemon it starts refusing ends the ask at once with its reason.
func TestAskUnacknowledgedWhenTheSocketVanishes(t *testing.T) {
	d := vanishingDaemon(t)
	_, _ = refusingStart(t, "the state dir /s is in use")
	o := d.opts()
	o.Autostart = true
	said := make(chan string, 4)
	o.Say = func(s string) { said <- s }
	_, err := Ask(ctx10(t), o, oneQuestion(), nil)
	var sr *StartRefusal
	if !errors.As(err, &sr) || errors.Is(err, ErrConnectionLost) {
		t.Fatalf("want the started daemon's refusal, got %v", err)
	}
	if len(said) != 0 {
		t.Errorf("said %q", <-said)
	}

	// Without autostart it gives up after the reconnect window.
	old := ReconnectWindow
	ReconnectWindow = 200 * time.Millisecond
	t.Cleanup(func() { ReconnectWindow = old })
	o = vanishingDaemon(t).opts()
	o.Say = func(s string) { said <- s }
	if _, err := Ask(ctx10(t), o, oneQuestion(), nil); !errors.Is(err, ErrConnectionLost) {
		t.Fatalf("without autostart: want ErrConnectionLost, got %v", err)
	}
	if len(said) != 0 {
		t.Errorf("said %q", <-said)
	}
}

// A daemon that reads the question and never acknowledges it does not hold
// the asker for ever: only an acknowledged question waits without a deadline.
func TestAskWithoutAcknowledgementGivesUp(t *testing.T) {
	old := AckWait
	AckWait = 200 * time.Millisecond
	t.Cleanup(func() { AckWait = old })
	release := make(chan struct{})
	d := newFakeDaemon(t, func(c *serverConn) {
		c.recv(t)
		<-release
	})
	defer close(release)
	_, err := Ask(ctx10(t), d.opts(), oneQuestion(), nil)
	if !errors.Is(err, ErrConnectionLost) || !strings.Contains(err.Error(), "did not acknowledge") {
		t.Fatalf("want ErrConnectionLost saying it was not acknowledged, got %v", err)
	}
}

// Nothing Call sends waits for the user: a reply that never comes is
// reported after ReplyWait.
func TestCallWithoutReplyGivesUp(t *testing.T) {
	old := ReplyWait
	ReplyWait = 200 * time.Millisecond
	t.Cleanup(func() { ReplyWait = old })
	release := make(chan struct{})
	d := newFakeDaemon(t, func(c *serverConn) {
		c.recv(t)
		<-release
	})
	defer close(release)
	_, err := Call(ctx10(t), d.opts(), socketproto.StatusRequest{})
	if !errors.Is(err, ErrConnectionLost) || !strings.Contains(err.Error(), "did not reply to status") {
		t.Fatalf("want ErrConnectionLost saying status got no reply, got %v", err)
	}
}
