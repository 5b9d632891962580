// Command memattack attacks the real askuserd's memory the three ways a
// hostile run once used to get it OOM-killed, and fails when its resident
// memory passes 1 GiB (-rss-limit: what a cgroup's memory.max of 1 GiB
// would kill it at) or it stops answering. Each attack gets a fresh daemon that
// holds one parked request of about 900 KB (16 questions × 14 options, each
// with a 4000-character preview), the largest kind of thing a reply can
// carry:
//
//		go run ./bench/memattack [-only A|B|C] [-log]
//		go run ./bench/memattack -nocgo                # askuserd built with CGO_ENABLED=0
//		go run ./bench/memattack -malloc-arena-max 1   # fewer glibc arenas in a cgo build
//		go run ./bench/memattack -as 1073741824        # also under an address-space limit
//
//	  - A: 20 connections each pipeline 600 {"type":"list"} lines (each reply
//	    carries the big request) and never read.
//	  - B: 20 subscribers never read while another connection sends 300 drafts
//	    on the big request; each draft broadcasts the whole request to every
//	    subscriber.
//	  - C: 1,000 connections each send an unfinished line of 1 MiB minus one
//	    byte and hold it, past the daemon's 30 s line timeout.
//
// For each attack it prints the daemon's peak RSS (VmHWM, sampled), whether
// it stayed alive, and how long a {"type":"status"} from a fresh connection
// took during the attack (the worst of several) and after it. It exits 1 if
// the daemon died or a status was not answered within 5 s.
//
// It also prints the peak address space (VmPeak). An address-space limit
// (prlimit --as) does not stand for a memory limit: the Go runtime reserves
// hundreds of MiB it never touches, and in a cgo build glibc reserves 64 MiB
// per malloc arena and 8 MiB per thread stack, so a 1 GiB one kills even an
// idle daemon now and then; -as is there to look at that. A death shows the
// crash's first lines.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"askuser/bench/internal/proc"
	"askuser/socketproto"
	"askuser/tests/testdaemon"
)

const (
	statusTimeout = 5 * time.Second // a status slower than this counts as not answered
	bigID         = "big"
)

func main() { os.Exit(bench()) }

// bench returns the exit code; every return path removes the temporary
// directory, which os.Exit would skip.
func bench() int {
	only := flag.String("only", "A,B,C", "which attacks, comma-separated: A, B, C")
	showLog := flag.Bool("log", false, "copy the daemon's log (warnings and worse) to stderr")
	noCgo := flag.Bool("nocgo", false, "build askuserd with CGO_ENABLED=0 (a plain go build here links cgo, for net and os/user)")
	arenas := flag.Int("malloc-arena-max", 0, "set MALLOC_ARENA_MAX for the daemon (glibc reserves 64 MiB of address space per arena); 0 leaves it unset")
	asLimit := flag.Int("as", 0, "the daemon's address-space limit in bytes (prlimit --as); 0 runs it without one")
	rssLimit := flag.Int("rss-limit", 1<<30, "fail when the daemon's peak resident memory passes this many bytes")
	flag.Parse()

	root, err := os.MkdirTemp("", "au-mem-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(root)
	bin, err := buildDaemon(root, *noCgo)
	if err != nil {
		return fail(err)
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil && *asLimit > 0 {
		return fail(fmt.Errorf("prlimit (util-linux) is needed to limit the daemon's address space: %w", err))
	}
	var env []string
	if *arenas > 0 {
		env = append(env, fmt.Sprintf("MALLOC_ARENA_MAX=%d", *arenas))
	}
	// Attack C holds 1,000 connections; the daemon inherits the limit.
	proc.RaiseFileLimit(4096)

	big := testdaemon.BigRequestLine(bigID)
	printSetup(bin, *asLimit, env, big)
	failed := false
	for i, name := range strings.Split(*only, ",") {
		a, ok := attacks[strings.ToUpper(strings.TrimSpace(name))]
		if !ok {
			return fail(fmt.Errorf("unknown attack %q (want A, B or C)", name))
		}
		d, err := startDaemon(prlimit, *asLimit, bin, filepath.Join(root, strconv.Itoa(i)), env, *showLog)
		if d != nil && !d.alive() {
			reportDeath(d, a, "before it answered on its socket")
			failed = true
			continue
		}
		if err != nil {
			return fail(err)
		}
		bad, err := runAttack(d, a, big, *rssLimit)
		d.stop()
		if err != nil {
			return fail(fmt.Errorf("attack %s: %w", a.name, err))
		}
		failed = failed || bad
	}
	if failed {
		return 1
	}
	return 0
}

// buildDaemon builds askuserd into root, without cgo when noCgo.
func buildDaemon(root string, noCgo bool) (string, error) {
	bin := filepath.Join(root, "askuserd")
	build := exec.Command("go", "build", "-o", bin, "./cmd/askuserd")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if noCgo {
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
	}
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building askuserd (run from the module root): %w", err)
	}
	return bin, nil
}

// printSetup prints the daemon's linkage and limits, and the parked
// request's size.
func printSetup(bin string, asLimit int, env []string, big []byte) {
	limit := "with no address-space limit"
	if asLimit > 0 {
		limit = fmt.Sprintf("under prlimit --as=%d (%s)", asLimit, mib(asLimit/1024))
	}
	fmt.Printf("memattack: askuserd (%s) %s%s; the parked request is %d bytes (max_message_bytes %d)\n",
		linkage(bin), limit, strings.Join(append([]string{""}, env...), ", "), len(big), socketproto.DefaultLimits().MaxMessageBytes)
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, "memattack:", err)
	return 1
}

// linkage says whether the binary links cgo, which decides whether its
// threads come from pthread_create and its C allocations from glibc's
// per-thread arenas, both of which take address space.
func linkage(bin string) string {
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		return "linkage unknown"
	}
	if bytes.Contains(out, []byte("CGO_ENABLED=1")) {
		return "cgo"
	}
	return "no cgo"
}

// attack is one way of making the daemon hold memory. run carries it out
// and measures status during and after it; an error means the attack itself
// could not be carried out, not that the daemon failed it.
type attack struct {
	name, what string
	run        func(d *daemon) (result, error)
}

var attacks = map[string]attack{
	"A": {"A", "pipelined lists", attackLists},
	"B": {"B", "drafts to non-reading subscribers", attackDrafts},
	"C": {"C", "unfinished 1 MiB lines", attackLines},
}

// result is what an attack saw of the daemon from the outside.
type result struct {
	during probes
	after  probe
	note   string
}

// runAttack parks the big request, notes the idle RSS, runs the attack and
// prints its line. It reports true when the daemon died or a status was not
// answered in time.
func runAttack(d *daemon, a attack, big []byte, rssLimit int) (bool, error) {
	if err := park(d.sock, big); err != nil {
		if !waitDeath(d) {
			return false, fmt.Errorf("parking the big request: %w", err)
		}
		reportDeath(d, a, "while it took the big request")
		return true, nil
	}
	time.Sleep(time.Second) // the pending file written, the decoding garbage collected
	idle, _ := proc.StatusKB(d.pid, "VmRSS")
	idleVM, _ := proc.StatusKB(d.pid, "VmSize")
	r, err := a.run(d)
	if err != nil {
		if waitDeath(d) {
			reportDeath(d, a, "during the attack")
			return true, nil
		}
		return false, err
	}
	rssAfter, _ := proc.StatusKB(d.pid, "VmRSS")
	d.sampleNow()
	alive := d.alive()

	state := "alive"
	if !alive {
		state = "DIED (" + d.exitText() + ")"
		rssAfter = 0
	}
	fmt.Printf("%s %s: peak RSS %s (idle with the big request %s, after %s), address space peak %s (idle %s), %s, status during %s / after %s",
		a.name, a.what, mib(int(d.peakKB.Load())), mib(idle), mib(rssAfter), mib(int(d.peakVM.Load())), mib(idleVM), state, r.during, r.after)
	if r.note != "" {
		fmt.Printf("; %s", r.note)
	}
	over := int(d.peakKB.Load())*1024 > rssLimit
	if over {
		fmt.Printf("; OVER the %s limit", mib(rssLimit/1024))
	}
	fmt.Println()
	d.printLog(!alive)
	return !alive || over || r.during.err != nil || r.after.err != nil, nil
}

// waitDeath gives a daemon that stopped answering a moment to be reaped and
// reports whether it died.
func waitDeath(d *daemon) bool {
	select {
	case <-d.exited:
		return true
	case <-time.After(2 * time.Second):
		return false
	}
}

func reportDeath(d *daemon, a attack, when string) {
	fmt.Printf("%s %s: DIED %s (%s), peak RSS %s, address space peak %s\n",
		a.name, a.what, when, d.exitText(), mib(int(d.peakKB.Load())), mib(int(d.peakVM.Load())))
	d.printLog(true)
}

func mib(kb int) string {
	if kb <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f MiB", float64(kb)/1024)
}

// --- the big request ------------------------------------------------------

// park sends the big request and waits until it is queued.
func park(sock string, big []byte) error {
	nc, err := dialUntil(sock, time.Now().Add(statusTimeout))
	if err != nil {
		return err
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := nc.Write(big); err != nil {
		return err
	}
	b, err := readType(bufio.NewReader(nc), "ask_user_queued")
	if err != nil {
		return fmt.Errorf("%w (%.200s)", err, b)
	}
	return nil
}

// readType reads lines until one of type typ; an error line ends the wait.
func readType(br *bufio.Reader, typ string) ([]byte, error) {
	for {
		b, err := br.ReadBytes('\n')
		if err != nil {
			return b, err
		}
		var m struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return b, err
		}
		switch m.Type {
		case typ:
			return b, nil
		case "error":
			return b, errors.New("the daemon answered with an error")
		}
	}
}

// --- the attacks ----------------------------------------------------------

// attackLists: 20 connections each pipeline 600 list requests and never
// read a reply; each reply carries the big request.
func attackLists(d *daemon) (result, error) {
	conns, err := dialN(d.sock, 20)
	if err != nil {
		return result{}, err
	}
	lines := bytes.Repeat([]byte(`{"type":"list"}`+"\n"), 600)
	var wg sync.WaitGroup
	for _, nc := range conns {
		wg.Go(func() {
			// The write may block once the daemon stops reading a
			// connection that does not read; closing it below ends that.
			_ = nc.SetWriteDeadline(time.Now().Add(time.Minute))
			_, _ = nc.Write(lines)
		})
	}
	during := probeFor(d.sock, 4*time.Second, 4*time.Second, nil)
	closeAll(conns)
	wg.Wait()
	time.Sleep(500 * time.Millisecond)
	return result{during: during, after: statusProbe(d.sock)}, nil
}

// attackDrafts: 20 subscribers that never read, then 300 drafts on the big
// request from another connection, each broadcast to every subscriber.
func attackDrafts(d *daemon) (result, error) {
	const nSubs, nDrafts = 20, 300
	subs, err := dialN(d.sock, nSubs)
	if err != nil {
		return result{}, err
	}
	defer closeAll(subs)
	for _, nc := range subs {
		if _, err := nc.Write([]byte(`{"type":"subscribe","role":"watch"}` + "\n")); err != nil {
			return result{}, err
		}
	}
	time.Sleep(300 * time.Millisecond) // subscribed, their snapshots made
	drafter, err := dialUntil(d.sock, time.Now().Add(statusTimeout))
	if err != nil {
		return result{}, err
	}
	defer drafter.Close()
	_ = drafter.SetDeadline(time.Now().Add(time.Minute))

	tally := make(chan draftTally, 1)
	done := make(chan struct{})
	go func() { tally <- countReplies(drafter, nDrafts); close(done) }()
	go func() {
		w := bufio.NewWriter(drafter)
		for i := range nDrafts {
			fmt.Fprintf(w, `{"type":"draft","requestId":%q,"index":0,"answer":"x%d"}`+"\n", bigID, i)
		}
		_ = w.Flush()
	}()
	during := probeFor(d.sock, 2*time.Second, 30*time.Second, done)
	t := <-tally
	cut := countDisconnected(subs, 3*time.Second)
	closeAll(subs)
	time.Sleep(500 * time.Millisecond)
	note := fmt.Sprintf("%d/%d drafts ok in %v, %d of %d subscribers disconnected by the daemon",
		t.ok, nDrafts, t.took.Round(time.Millisecond), cut, nSubs)
	if t.other != "" {
		note += fmt.Sprintf(", first other reply: %.200s", t.other)
	}
	return result{during: during, after: statusProbe(d.sock), note: note}, nil
}

type draftTally struct {
	ok    int
	other string // the first reply that was not ok, or the read error
	took  time.Duration
}

// countReplies reads n replies and counts the oks.
func countReplies(nc net.Conn, n int) draftTally {
	t0 := time.Now()
	var t draftTally
	br := bufio.NewReader(nc)
	for range n {
		b, err := br.ReadBytes('\n')
		if err != nil {
			t.other = "read: " + err.Error()
			break
		}
		if bytes.HasPrefix(b, []byte(`{"type":"ok"`)) {
			t.ok++
		} else if t.other == "" {
			t.other = strings.TrimSpace(string(b))
		}
	}
	t.took = time.Since(t0)
	return t
}

// countDisconnected reads each connection to its end for up to wait and
// counts those the daemon closed.
func countDisconnected(conns []net.Conn, wait time.Duration) int {
	var n atomic.Int32
	var wg sync.WaitGroup
	for _, nc := range conns {
		wg.Go(func() {
			_ = nc.SetReadDeadline(time.Now().Add(wait))
			if _, err := io.Copy(io.Discard, nc); !errors.Is(err, os.ErrDeadlineExceeded) {
				n.Add(1)
			}
		})
	}
	wg.Wait()
	return int(n.Load())
}

// attackLines: 1,000 connections each send an unfinished line of 1 MiB
// minus one byte, all sharing one payload, and hold it until the daemon
// closes them (its line timeout is 30 s).
func attackLines(d *daemon) (result, error) {
	const n = 1000
	payload := make([]byte, 1<<20-1)
	copy(payload, `{"type":"status","pad":"`)
	for i := len(`{"type":"status","pad":"`); i < len(payload); i++ {
		payload[i] = 'a'
	}
	start := time.Now()
	giveUp := start.Add(45 * time.Second)
	closedAt := make(chan time.Duration, n) // when the daemon closed each; -1 when it did not
	var conns []net.Conn
	var dialErr error
	var wg sync.WaitGroup
	for range n {
		nc, err := dialUntil(d.sock, time.Now().Add(statusTimeout))
		if err != nil {
			dialErr = err
			break
		}
		conns = append(conns, nc)
		wg.Go(func() { closedAt <- holdLine(nc, payload, start, giveUp) })
	}
	during := probeFor(d.sock, 10*time.Second, 10*time.Second, nil)

	var closed int
	var first, last time.Duration
	timeout := time.After(time.Until(giveUp) + time.Second)
collect:
	for range conns {
		select {
		case at := <-closedAt:
			if at < 0 {
				continue
			}
			if closed == 0 || at < first {
				first = at
			}
			last = max(last, at)
			closed++
		case <-timeout:
			break collect
		}
	}
	closeAll(conns)
	wg.Wait()
	after := statusProbe(d.sock)
	note := fmt.Sprintf("%d connections held lines, %d closed by the daemon", len(conns), closed)
	if closed > 0 {
		note += fmt.Sprintf(" %.1f–%.1f s after the attack began", first.Seconds(), last.Seconds())
	}
	if dialErr != nil {
		note += fmt.Sprintf("; connection %d could not connect: %v", len(conns)+1, dialErr)
	}
	return result{during: during, after: after, note: note}, nil
}

// holdLine writes the unfinished line, then waits for the daemon to close
// the connection. It returns when that happened, counted from start, or -1
// when giveUp came first.
func holdLine(nc net.Conn, payload []byte, start, giveUp time.Time) time.Duration {
	_ = nc.SetDeadline(giveUp)
	// The write blocks while the daemon makes this line wait for room in
	// its input budget; it fails when the daemon closes the connection.
	_, err := nc.Write(payload)
	if err == nil {
		_, err = io.Copy(io.Discard, nc) // nil at the daemon's close
	}
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, net.ErrClosed) {
		return -1
	}
	return time.Since(start)
}

// --- connections and status probes ---------------------------------------

// dialUntil connects, retrying while the listen backlog is full.
func dialUntil(sock string, deadline time.Time) (net.Conn, error) {
	for {
		nc, err := net.DialTimeout("unix", sock, time.Until(deadline))
		if err == nil || !errors.Is(err, syscall.EAGAIN) || time.Now().After(deadline) {
			return nc, err
		}
		time.Sleep(time.Millisecond)
	}
}

func dialN(sock string, n int) ([]net.Conn, error) {
	conns := make([]net.Conn, 0, n)
	for range n {
		nc, err := dialUntil(sock, time.Now().Add(statusTimeout))
		if err != nil {
			closeAll(conns)
			return nil, err
		}
		conns = append(conns, nc)
	}
	return conns, nil
}

func closeAll(conns []net.Conn) {
	for _, nc := range conns {
		_ = nc.Close()
	}
}

// probe is one status round trip from a fresh connection, connecting
// included.
type probe struct {
	took time.Duration
	err  error
}

func (p probe) String() string {
	if p.err != nil {
		return fmt.Sprintf("FAILED after %v (%v)", p.took.Round(time.Millisecond), p.err)
	}
	return fmtLatency(p.took)
}

func fmtLatency(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
	return d.Round(time.Millisecond).String()
}

func statusProbe(sock string) probe {
	t0 := time.Now()
	deadline := t0.Add(statusTimeout)
	nc, err := dialUntil(sock, deadline)
	if err != nil {
		return probe{time.Since(t0), err}
	}
	defer nc.Close()
	_ = nc.SetDeadline(deadline)
	if _, err := nc.Write([]byte(`{"type":"status"}` + "\n")); err != nil {
		return probe{time.Since(t0), err}
	}
	if _, err := readType(bufio.NewReader(nc), "status"); err != nil {
		return probe{time.Since(t0), err}
	}
	return probe{took: time.Since(t0)}
}

// probes is a series of status round trips made while an attack runs.
type probes struct {
	n     int
	worst time.Duration
	err   error // the first that failed
}

func (p probes) String() string {
	if p.err != nil {
		return fmt.Sprintf("FAILED (%v)", p.err)
	}
	return fmt.Sprintf("%s (worst of %d)", fmtLatency(p.worst), p.n)
}

// probeFor probes every quarter second for at least least, then until done
// is closed, for at most most.
func probeFor(sock string, least, most time.Duration, done <-chan struct{}) probes {
	var ps probes
	t0 := time.Now()
	for {
		p := statusProbe(sock)
		ps.n++
		ps.worst = max(ps.worst, p.took)
		if p.err != nil && ps.err == nil {
			ps.err = p.err
		}
		el := time.Since(t0)
		if el >= most || (el >= least && isClosed(done)) {
			return ps
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func isClosed(c <-chan struct{}) bool {
	if c == nil {
		return true
	}
	select {
	case <-c:
		return true
	default:
		return false
	}
}
