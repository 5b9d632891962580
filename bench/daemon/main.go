// Command daemon measures askuserd, the real binary in its own process:
//
//		go run ./bench/daemon [-hops 2000] [-agents 10000] [-idle 30s] [-only hop,scale,idle]
//
//	  - hop: the latency of one hop through the daemon — ask → request_added at
//	    a subscriber, and answer → ask_user_response at the asker — next to a
//	    raw JSON echo server over a Unix socket (also its own process, same
//	    run), p50 and p99.
//	  - scale: N agents waiting at once, each on its own connection: all
//	    queued, all answered (each with its own answer, checked), the daemon's
//	    RSS per waiting agent (VmRSS before and after), and the time from the
//	    last answer to the last agent's result.
//	  - idle: the daemon's CPU ticks (utime+stime) over a period with no client.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"askuser/bench/internal/benchdaemon"
	"askuser/bench/internal/proc"
)

func main() {
	echo := flag.String("echo-server", "", "internal: serve a JSON echo on this socket")
	hops := flag.Int("hops", 2000, "round trips per latency measurement")
	agents := flag.Int("agents", 10000, "agents waiting at once in the scale run")
	idle := flag.Duration("idle", 30*time.Second, "how long to watch an idle daemon's CPU")
	only := flag.String("only", "hop,scale,idle", "which measurements, comma-separated")
	flag.StringVar(&syncMode, "sync", "batch", `daemon.sync: "batch" (fsync in groups) or "always" (every ack waits for its fsync)`)
	flag.Parse()
	if *echo != "" {
		serveEcho(*echo)
		return
	}
	if err := run(*hops, *agents, *idle, *only); err != nil {
		fmt.Fprintln(os.Stderr, "bench/daemon:", err)
		os.Exit(1)
	}
}

// daemonProc is a running askuserd serve on a temporary XDG tree.
type daemonProc struct{ *benchdaemon.Daemon }

// syncMode is daemon.sync for every daemon the benchmark starts.
var syncMode = "batch"

func startDaemon(bin, root string) (*daemonProc, error) {
	d, err := benchdaemon.Start(bin, root, fmt.Sprintf("[daemon]\nsync = %q\n", syncMode))
	if err != nil {
		return nil, err
	}
	return &daemonProc{d}, nil
}

func run(hops, agents int, idle time.Duration, only string) error {
	root, err := os.MkdirTemp("", "au-bd-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	bin := filepath.Join(root, "askuserd")
	build := exec.Command("go", "build", "-o", bin, "./cmd/askuserd")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building askuserd (run from the module root): %w", err)
	}
	proc.RaiseFileLimit(agents + 100)
	// The CPUs this process may use, which is also the daemon's GOMAXPROCS.
	fmt.Printf("askuserd bench: %d CPUs, GOMAXPROCS default\n", runtime.NumCPU())
	for i, what := range strings.Split(only, ",") {
		d, err := startDaemon(bin, filepath.Join(root, strconv.Itoa(i)))
		if err != nil {
			return err
		}
		switch what {
		case "hop":
			err = benchHop(d, root, hops)
		case "scale":
			err = benchScale(d, agents)
		case "idle":
			err = benchIdle(d, idle)
		default:
			err = fmt.Errorf("unknown measurement %q", what)
		}
		d.Stop()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	return nil
}

// line is a client connection reading NDJSON.
type line struct {
	nc net.Conn
	br *bufio.Reader
}

func dial(sock string) (*line, error) {
	nc, err := net.Dial("unix", sock)
	if err != nil {
		return nil, err
	}
	return &line{nc: nc, br: bufio.NewReaderSize(nc, 4096)}, nil
}

func (l *line) send(s string) error { _, err := l.nc.Write([]byte(s)); return err }

// exchange sends s and reads until a message of type typ, returning how
// long that took.
func (l *line) exchange(s, typ string) (time.Duration, error) {
	t0 := time.Now()
	if err := l.send(s); err != nil {
		return 0, err
	}
	if _, err := l.next(typ); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// next reads messages until one of type typ, returning it decoded.
func (l *line) next(typ string) (map[string]any, error) {
	_ = l.nc.SetReadDeadline(time.Now().Add(60 * time.Second))
	for {
		b, err := l.br.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, err
		}
		if m["type"] == typ {
			return m, nil
		}
		if m["type"] == "error" {
			return nil, fmt.Errorf("daemon error: %s", b)
		}
	}
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func ask(id, question string, wait bool) string {
	w := ""
	if !wait {
		w = `"wait":false,`
	}
	return `{"type":"ask_user_request","requestId":"` + id + `",` + w + `"questions":[{"question":"` + question +
		`","options":[{"label":"PostgreSQL (Recommended)","description":"Battle-tested"},{"label":"SQLite"}]}]}` + "\n"
}

func benchHop(d *daemonProc, root string, n int) error {
	ec, stopEcho, err := startEcho(root)
	if err != nil {
		return err
	}
	defer stopEcho()
	h, err := dialHop(d.Sock)
	if err != nil {
		return err
	}
	h.echo = ec
	warm := n / 10
	var echoD, addedD, answerD []time.Duration
	for i := 0; i < n+warm; i++ {
		e, a, r, err := h.roundTrips(i)
		if err != nil {
			return err
		}
		if i >= warm {
			echoD, addedD, answerD = append(echoD, e), append(addedD, a), append(answerD, r)
		}
	}
	p50e := percentile(echoD, 0.5)
	fmt.Printf("hop latency over %d round trips (after %d warm-up):\n", n, warm)
	fmt.Printf("  raw JSON echo (unix socket)        p50 %8v  p99 %8v\n", p50e, percentile(echoD, 0.99))
	for _, row := range []struct {
		name string
		d    []time.Duration
	}{{"ask → request_added at subscriber", addedD}, {"answer → ask_user_response", answerD}} {
		p50 := percentile(row.d, 0.5)
		fmt.Printf("  %-34s p50 %8v  p99 %8v  (p50 %.2f× echo)\n", row.name, p50, percentile(row.d, 0.99),
			float64(p50)/float64(p50e))
	}
	return nil
}

// startEcho runs the raw echo server, this program again: the same kind of
// process as the daemon, the same JSON lines. It returns a connection to it.
func startEcho(root string) (*line, func(), error) {
	echoSock := filepath.Join(root, "echo.sock")
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	echo := exec.Command(self, "-echo-server", echoSock)
	echo.SysProcAttr = proc.DiesWithUs()
	echo.Stderr = os.Stderr
	if err := echo.Start(); err != nil {
		return nil, nil, err
	}
	stop := func() { _ = echo.Process.Kill(); _ = echo.Wait() }
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		ec, err := dial(echoSock)
		if err == nil {
			return ec, stop, nil
		}
		if time.Now().After(deadline) {
			stop()
			return nil, nil, fmt.Errorf("echo server: %w", err)
		}
	}
}

// hopConns are the connections one hop measurement uses.
type hopConns struct {
	echo, sub, asker, answerer *line
}

// dialHop dials the daemon's subscriber (its snapshot read), asker and
// answerer.
func dialHop(sock string) (*hopConns, error) {
	h := &hopConns{}
	for _, c := range []**line{&h.sub, &h.asker, &h.answerer} {
		var err error
		if *c, err = dial(sock); err != nil {
			return nil, err
		}
	}
	if _, err := h.sub.exchange(`{"type":"subscribe","role":"watch"}`+"\n", "snapshot"); err != nil {
		return nil, err
	}
	return h, nil
}

// roundTrips times ask i through the echo server, the same ask through the
// daemon to its subscriber, and its answer back to the asker.
func (h *hopConns) roundTrips(i int) (echo, added, answered time.Duration, err error) {
	msg := ask(fmt.Sprintf("h%d", i), "Which database should we use?", true)
	if echo, err = h.echo.exchange(msg, "ask_user_request"); err != nil {
		return 0, 0, 0, err
	}
	t0 := time.Now()
	if err := h.asker.send(msg); err != nil {
		return 0, 0, 0, err
	}
	if _, err := h.sub.next("request_added"); err != nil {
		return 0, 0, 0, err
	}
	added = time.Since(t0)
	if _, err := h.asker.next("ask_user_queued"); err != nil {
		return 0, 0, 0, err
	}
	t0 = time.Now()
	if err := h.answerer.send(`{"type":"answer","requestId":"h` + strconv.Itoa(i) + `","answers":["2"]}` + "\n"); err != nil {
		return 0, 0, 0, err
	}
	if _, err := h.asker.next("ask_user_response"); err != nil {
		return 0, 0, 0, err
	}
	answered = time.Since(t0)
	if _, err := h.answerer.next("ok"); err != nil {
		return 0, 0, 0, err
	}
	return echo, added, answered, nil
}

// serveEcho decodes each JSON line and writes it back re-encoded: the least a
// JSON-over-Unix-socket server can do per message.
func serveEcho(sock string) {
	ln, err := net.Listen("unix", sock)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			br := bufio.NewReader(c)
			for {
				b, err := br.ReadBytes('\n')
				if err != nil {
					return
				}
				var v map[string]any
				if json.Unmarshal(b, &v) != nil {
					return
				}
				out, _ := json.Marshal(v)
				if _, err := c.Write(append(out, '\n')); err != nil {
					return
				}
			}
		}()
	}
}

// procStatus reads a field of /proc/PID/status in kB.
func vmRSS(pid int) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			f := strings.Fields(l)
			kb, _ := strconv.Atoi(f[1])
			return kb
		}
	}
	return -1
}

func cpuTicks(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return ut + st, nil
}

func benchScale(d *daemonProc, n int) error {
	pid := d.Cmd.Process.Pid
	time.Sleep(500 * time.Millisecond)
	before := vmRSS(pid)
	t0 := time.Now()
	conns, retries, err := askAll(d.Sock, n)
	defer func() {
		for _, c := range conns {
			c.nc.Close()
		}
	}()
	if err != nil {
		return err
	}
	queued := time.Since(t0)
	burst := vmRSS(pid)
	// Let the pending file's writer settle, and the daemon give back what
	// the burst left (a second after its last step, daemon/memreturn.go).
	time.Sleep(3 * time.Second)
	after := vmRSS(pid)
	fmt.Printf("scale: %d agents waiting at once, each on its own connection\n", n)
	fmt.Printf("  all queued in %v (%d connects retried on a full listen backlog)\n", queued.Round(time.Millisecond), retries)
	// What each waiting agent's KiB is, at 10,000 once settled (the
	// README's benchmark notes have the measurement): 2 stack of its
	// goroutine, 0.5 stacks pooled from its readers, 0.4 its goroutine's
	// descriptor, 0.8 the connection and 0.3 its poll descriptor, 1.0 the
	// request, 0.3 the notifier's copy, 0.8 the pending file's text of it
	// and its merge bases, 0.8 heap spans and the collector's metadata. As
	// the last agent is queued, the burst's garbage and the collector's
	// headroom are on top, given back a second after the daemon goes quiet.
	fmt.Printf("  daemon VmRSS %d KiB idle → %d KiB as the last is queued → %d KiB 3 s later, with %d waiting: %.1f KiB per waiting agent (%.1f as the last is queued)\n",
		before, burst, after, n, float64(after-before)/float64(n), float64(burst-before)/float64(n))

	results := readResults(conns)
	answerer, err := dial(d.Sock)
	if err != nil {
		return err
	}
	oks := readOKs(answerer, n)
	tAnswer := time.Now()
	if err := answerAll(answerer, n); err != nil {
		return err
	}
	lastSent := time.Now()
	last, err := lastResult(results, n)
	if err != nil {
		return err
	}
	if err := <-oks; err != nil {
		return err
	}
	fmt.Printf("  all %d answered correctly: answers written in %v; last answer written → last agent's result %v; first answer → last result %v\n",
		n, lastSent.Sub(tAnswer).Round(time.Millisecond), last.Sub(lastSent).Round(time.Millisecond), last.Sub(tAnswer).Round(time.Millisecond))
	return nil
}

// askAll has n agents ask, each on its own connection, and waits until
// every one is queued. retries counts the connects retried on a full listen
// backlog. conns holds the connections made, even on an error.
func askAll(sock string, n int) (conns []*line, retries int, err error) {
	for i := 0; i < n; i++ {
		c, err := dialRetrying(sock, &retries)
		if err != nil {
			return conns, retries, fmt.Errorf("agent %d: %w", i, err)
		}
		conns = append(conns, c)
		if err := c.send(ask(fmt.Sprintf("a%d", i), fmt.Sprintf("Question for agent %d?", i), true)); err != nil {
			return conns, retries, err
		}
	}
	for i, c := range conns {
		m, err := c.next("ask_user_queued")
		if err != nil {
			return conns, retries, fmt.Errorf("agent %d: %w", i, err)
		}
		if m["requestId"] != fmt.Sprintf("a%d", i) {
			return conns, retries, fmt.Errorf("agent %d queued as %v", i, m["requestId"])
		}
	}
	return conns, retries, nil
}

// dialRetrying dials, retrying while the listen backlog is full (the
// daemon is busy accepting), up to 100000 retries counted in *retries.
func dialRetrying(sock string, retries *int) (*line, error) {
	c, err := dial(sock)
	for errors.Is(err, syscall.EAGAIN) && *retries < 100000 {
		*retries++
		time.Sleep(time.Millisecond)
		c, err = dial(sock)
	}
	return c, err
}

// agentResult is what agent i read, checked, and when.
type agentResult struct {
	i   int
	err error
	at  time.Time
}

// readResults has each agent read its own result concurrently and check it
// is the answer meant for it.
func readResults(conns []*line) <-chan agentResult {
	results := make(chan agentResult, len(conns))
	for i, c := range conns {
		go func() {
			m, err := c.next("ask_user_response")
			if err == nil {
				want := "Answer for agent " + strconv.Itoa(i)
				if a := fmt.Sprint(m["answersByQuestion"].(map[string]any)[fmt.Sprintf("Question for agent %d?", i)]); a != want {
					err = fmt.Errorf("agent %d got %q, want %q", i, a, want)
				}
			}
			results <- agentResult{i, err, time.Now()}
		}()
	}
	return results
}

// readOKs reads the daemon's n "ok" replies to the answerer, and sends
// nil once it has, or the first error.
func readOKs(answerer *line, n int) <-chan error {
	oks := make(chan error, 1)
	go func() {
		for i := 0; i < n; i++ {
			if _, err := answerer.next("ok"); err != nil {
				oks <- err
				return
			}
		}
		oks <- nil
	}()
	return oks
}

// answerAll writes each agent's own answer, as fast as the socket takes them.
func answerAll(answerer *line, n int) error {
	w := bufio.NewWriterSize(answerer.nc, 1<<16)
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, `{"type":"answer","requestId":"a%d","answers":["Answer for agent %d"],"via":"cli"}`+"\n", i, i)
	}
	return w.Flush()
}

// lastResult waits for n results and returns when the last one was read.
func lastResult(results <-chan agentResult, n int) (time.Time, error) {
	var last time.Time
	for i := 0; i < n; i++ {
		g := <-results
		if g.err != nil {
			return time.Time{}, g.err
		}
		if g.at.After(last) {
			last = g.at
		}
	}
	return last, nil
}

func benchIdle(d *daemonProc, period time.Duration) error {
	pid := d.Cmd.Process.Pid
	time.Sleep(time.Second) // start-up work done
	t0, err := cpuTicks(pid)
	if err != nil {
		return err
	}
	time.Sleep(period)
	t1, err := cpuTicks(pid)
	if err != nil {
		return err
	}
	fmt.Printf("idle: %d CPU ticks (utime+stime, 1 tick = 10 ms) in %v with no client\n", t1-t0, period)
	return nil
}
