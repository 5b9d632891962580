package web

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// What the attacks on `askuserd web` (bounds_test.go, and
// BenchmarkWebAttacks) share: raw connections that speak as much HTTP as
// an attacker wants, the process's memory, and a request as large as the
// daemon takes.

// hostOf is base's host:port.
func hostOf(t testing.TB, base string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// rawDial opens a TCP connection to the pane, closed when the test ends.
func rawDial(t testing.TB, base string) (net.Conn, error) {
	d := net.Dialer{Timeout: 2 * time.Second}
	c, err := d.Dial("tcp", hostOf(t, base))
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

var procField = regexp.MustCompile(`(?m)^(Vm\w+):\s+(\d+) kB`)

// procKiB is a field of /proc/PID/status (VmRSS: resident now, VmHWM: the
// most resident so far), in KiB.
func procKiB(t testing.TB, pid int, field string) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range procField.FindAllSubmatch(data, -1) {
		if string(m[1]) == field {
			n, _ := strconv.Atoi(string(m[2]))
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// answered reads what the server sends on c until it closes it or
// deadline: its status line, or "" when it closed without a reply.
// Whether it closed is the second result (false: still open at deadline).
func answered(c net.Conn, deadline time.Duration) (status string, closed bool) {
	_ = c.SetReadDeadline(time.Now().Add(deadline))
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err == nil {
		return strings.TrimSpace(line), true
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return "", false
	}
	return "", true
}

// parkBig asks the daemon, without waiting, the largest request it takes:
// every question it allows, 14 options each, each option with the longest
// preview (some 900 KB). Every view of it that a page is sent is that big.
func parkBig(t testing.TB, e *testenv.Env, id string) {
	t.Helper()
	c, err := net.Dial("unix", e.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write(testdaemon.BigRequestLine(id)); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || strings.Contains(line, `"error"`) {
		t.Fatalf("parking the big request: %v %s", err, line)
	}
}
