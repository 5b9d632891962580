package daemon

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"askuser/tests/testdaemon"
)

// bigAsk is a parked ask_user request of about size bytes, in option
// previews: what a hostile client makes every list reply and every event
// about it carry.
func bigAsk(id string, size int) string {
	var opts []string
	for i := 0; size > 0; i++ {
		n := min(size, 3900)
		opts = append(opts, fmt.Sprintf(`{"label":"o%d","preview":"%s"}`, i, strings.Repeat("p", n)))
		size -= n
	}
	var qs []string
	for len(opts) > 0 {
		k := min(len(opts), 60)
		qs = append(qs, fmt.Sprintf(`{"question":"Q%d?","options":[%s]}`, len(qs), strings.Join(opts[:k], ",")))
		opts = opts[k:]
	}
	return `{"type":"ask_user_request","requestId":"` + id + `","wait":false,"questions":[` + strings.Join(qs, ",") + "]}\n"
}

// budgetsOf starts a daemon with adjusted options and returns its socket and
// budgets.
func budgetsOf(t *testing.T, adjust func(*Options)) (string, *outputBudget, *inputBudget) {
	var out *outputBudget
	var in *inputBudget
	sock := testDaemonWith(t, func(o *Options) {
		adjust(o)
		o.budgets = func(ob *outputBudget, ib *inputBudget) { out, in = ob, ib }
	})
	return sock, out, in
}

// statusAnswered: a fresh connection's status is answered, whatever the
// other clients do (docs/contract.md §4).
func statusAnswered(t *testing.T, sock string) {
	t.Helper()
	c := testdaemon.DialRaw(t, sock)
	c.Send(`{"type":"status"}` + "\n")
	c.Expect("status")
}

// closedWith reads c to its end; its last message must be an error that
// says why (its message holding want), unless want is "".
func closedWith(t *testing.T, c *testdaemon.Raw, want string) {
	t.Helper()
	var last map[string]any
	for {
		m, err := c.TryRecv(testdaemon.Wait)
		// A client whose own bytes were left unread sees the end as a
		// reset, after what was written to it.
		if err == io.EOF || errors.Is(err, syscall.ECONNRESET) {
			break
		}
		if err != nil {
			t.Fatalf("the connection was not closed: %v", err)
		}
		last = m
	}
	if want == "" {
		return
	}
	if got := fmt.Sprint(last["message"]); last["type"] != "error" || !strings.Contains(got, want) {
		t.Errorf("last message before the close: %.200s (type %v), want an error saying %q", got, last["type"], want)
	}
}

// Connections that each hold an unfinished line: together they get at most
// the input budget (beyond 4 KiB each), a status is still answered, and
// each is closed with an error once its line is overdue.
func TestUnfinishedLinesStayWithinTheInputBudget(t *testing.T) {
	t.Parallel()
	const budget = 256 << 10
	sock, _, in := budgetsOf(t, func(o *Options) { o.InputBytes = budget; o.LineTimeout = time.Second })
	var holders []*testdaemon.Raw
	var wg sync.WaitGroup
	half := `{"type":"status","pad":"` + strings.Repeat("x", 200<<10)
	for range 10 {
		c := testdaemon.DialRaw(t, sock)
		holders = append(holders, c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = io.WriteString(c.Conn, half) // blocks once the daemon stops reading
		}()
	}
	// Together the lines want eight times the budget, so they fill it: each
	// waits for room it does not get until its line is overdue (1s).
	testdaemon.Eventually(t, "the unfinished lines to take most of the input budget", func() (bool, string) {
		used := in.inUse()
		if used > budget {
			t.Fatalf("unfinished lines hold %d bytes of a %d-byte budget", used, budget)
		}
		return used >= budget/2, fmt.Sprintf("%d bytes of %d taken", used, budget)
	})
	statusAnswered(t, sock)
	for _, c := range holders {
		closedWith(t, c, "not finished within 1s")
	}
	wg.Wait()
	testdaemon.Eventually(t, "the input budget given back after every holder was closed", func() (bool, string) {
		used := in.inUse()
		return used == 0, fmt.Sprintf("%d bytes still taken", used)
	})
	statusAnswered(t, sock)
}

// A client that pipelines lists of a big queue and never reads is closed
// with an error once its unread output passes its budget; the daemon-wide
// total never holds much more than that.
func TestPipelinedRepliesNeverReadCloseTheConnection(t *testing.T) {
	t.Parallel()
	const conn = 1 << 20
	sock, out, _ := budgetsOf(t, func(o *Options) { o.ConnOutputBytes = conn })
	a := testdaemon.DialRaw(t, sock)
	a.Send(bigAsk("big", 300<<10))
	a.Expect("ask_user_queued")

	hog := testdaemon.DialRaw(t, sock)
	_ = hog.Conn.SetReadBuffer(4096)
	go func() { _, _ = io.WriteString(hog.Conn, strings.Repeat(`{"type":"list"}`+"\n", 200)) }()
	// The unread output is measured from the first list to the hog's close.
	peakUntil := samplePeak(out.inUse)
	statusAnswered(t, sock)
	closedWith(t, hog, "bytes waited for this connection to read them")
	peak := peakUntil()
	// One reply may be queued past the budget (a line always fits an empty
	// outbox), and the replies of the lines in hand may be made before the
	// close.
	if limit := conn + (maxUnhandled+1)*(310<<10); peak > limit {
		t.Errorf("unread output peaked at %d bytes, over %d", peak, limit)
	}
}

// samplePeak samples inUse until the returned function is called, which
// returns the highest value seen. The budgets keep no high-water mark, so
// the peak is caught by sampling: every millisecond is a sampling rate,
// not a wait for anything.
func samplePeak(inUse func() int) (stop func() int) {
	done := make(chan struct{})
	peak := make(chan int)
	go func() {
		highest := inUse()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				peak <- max(highest, inUse())
				return
			case <-tick.C:
				highest = max(highest, inUse())
			}
		}
	}()
	return func() int {
		close(done)
		return <-peak
	}
}

// Many subscribers that never read, and drafts that each broadcast a big
// request: past the daemon-wide budget the connections holding the most
// are closed; a subscriber that reads sees every update.
func TestDaemonWideOutputBudgetShedsTheBiggest(t *testing.T) {
	t.Parallel()
	const total = 2 << 20
	// Each connection alone may hold more than all together: only the
	// daemon-wide budget closes anyone here.
	sock, out, _ := budgetsOf(t, func(o *Options) { o.OutputBytes = total; o.ConnOutputBytes = 8 << 20 })
	a := testdaemon.DialRaw(t, sock)
	a.Send(bigAsk("big", 200<<10))
	a.Expect("ask_user_queued")

	var idle []*testdaemon.Raw
	for range 6 {
		c := testdaemon.DialRaw(t, sock)
		c.Send(`{"type":"subscribe","role":"watch"}` + "\n")
		c.Expect("snapshot")
		_ = c.Conn.SetReadBuffer(4096)
		idle = append(idle, c)
	}
	reader := testdaemon.DialRaw(t, sock)
	reader.Send(`{"type":"subscribe","role":"watch"}` + "\n")
	reader.Expect("snapshot")
	// The reader keeps up: it takes each update before the next draft.
	const drafts = 30
	peak := 0
	for i := range drafts {
		a.Send(fmt.Sprintf(`{"type":"draft","requestId":"big","index":0,"answer":"d%d"}`+"\n", i))
		a.Expect("ok")
		peak = max(peak, out.inUse())
		if m := reader.Until("request_updated"); testdaemon.Lookup(m, "request.draft.0") != fmt.Sprintf("d%d", i) {
			t.Fatalf("the reading subscriber got draft %s, want d%d", testdaemon.Lookup(m, "request.draft.0"), i)
		}
	}
	// Past the limit by at most what connections being shed still hold
	// (their writers give it back within evictGrace) and one line.
	if limit := 2*total + (220 << 10); peak > limit {
		t.Errorf("unread output peaked at %d bytes, over %d", peak, limit)
	}
	statusAnswered(t, sock)
	// They do not read: the error that explains the close may well be
	// dropped with them once evictGrace is over.
	for _, c := range idle {
		closedWith(t, c, "")
	}
	testdaemon.Eventually(t, "the unread output back within the daemon-wide budget after the shedding", func() (bool, string) {
		used := out.inUse()
		return used <= total, fmt.Sprintf("%d bytes unread, budget %d", used, total)
	})
}
