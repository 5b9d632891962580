package testdaemon

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// Wait bounds every wait on the daemon: a safety net, never a measured
// threshold.
const Wait = 10 * time.Second

// Raw is a connection that sends bytes exactly as given (bad JSON, half
// lines, invalid UTF-8) and reads replies as generic JSON, so that a test
// sees exactly what travels.
type Raw struct {
	T    testing.TB // whose Fatal a failed read calls; a subtest may set its own
	Conn *net.UnixConn
	br   *bufio.Reader
}

// DialRaw connects to sock; the connection is closed when the test ends.
func DialRaw(t testing.TB, sock string) *Raw {
	t.Helper()
	nc, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatalf("dial %s: %v", sock, err)
	}
	t.Cleanup(func() { nc.Close() })
	return &Raw{T: t, Conn: nc, br: bufio.NewReaderSize(nc, 1<<16)}
}

// Send writes s as it is.
func (c *Raw) Send(s string) {
	c.T.Helper()
	if _, err := c.Conn.Write([]byte(s)); err != nil {
		c.T.Fatalf("write: %v", err)
	}
}

// Recv reads one message, failing the test after Wait.
func (c *Raw) Recv() map[string]any {
	c.T.Helper()
	m, err := c.TryRecv(Wait)
	if err != nil {
		c.T.Fatalf("recv: %v", err)
	}
	return m
}

// TryRecv reads one message within timeout.
func (c *Raw) TryRecv(timeout time.Duration) (map[string]any, error) {
	_ = c.Conn.SetReadDeadline(time.Now().Add(timeout))
	defer c.Conn.SetReadDeadline(time.Time{})
	line, err := c.br.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("daemon sent invalid JSON %q: %v", line, err)
	}
	return m, nil
}

// Expect reads one message and checks it against want: "type key=value…",
// keys dotted into nested objects and lists, values compared as Lookup
// prints them.
func (c *Raw) Expect(want string) map[string]any {
	c.T.Helper()
	m, err := c.TryRecv(Wait)
	if err != nil {
		c.T.Fatalf("waiting for %q: %v", want, err)
	}
	if msg := Mismatch(m, want); msg != "" {
		b, _ := json.Marshal(m)
		c.T.Fatalf("want %q, got %s (%s)", want, b, msg)
	}
	return m
}

// Until reads messages until one of type typ and returns it.
func (c *Raw) Until(typ string) map[string]any {
	c.T.Helper()
	for {
		if m := c.Recv(); m["type"] == typ {
			return m
		}
	}
}

// Quiet asserts that nothing arrives within a short while. It is a check for
// absence, not a timing assertion: a late message would fail a later step.
func (c *Raw) Quiet() {
	c.T.Helper()
	if m, err := c.TryRecv(100 * time.Millisecond); err == nil {
		b, _ := json.Marshal(m)
		c.T.Fatalf("unexpected message %s", b)
	}
}

// Mismatch says how m differs from want ("type key=value…"), or "".
func Mismatch(m map[string]any, want string) string {
	parts := strings.Fields(want)
	if m["type"] != parts[0] {
		return "type differs"
	}
	for _, kv := range parts[1:] {
		k, v, _ := strings.Cut(kv, "=")
		if got := Lookup(m, k); got != v {
			return fmt.Sprintf("%s is %q", k, got)
		}
	}
	return ""
}

// Lookup follows a dotted path ("request.questions.0.question") through m;
// a string comes back as it is, anything else as JSON, a missing key as
// "<missing>".
func Lookup(m map[string]any, path string) string {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		switch v := cur.(type) {
		case map[string]any:
			cur = v[k]
		case []any:
			var i int
			if _, err := fmt.Sscan(k, &i); err != nil || i >= len(v) {
				return "<missing>"
			}
			cur = v[i]
		default:
			return "<missing>"
		}
	}
	if s, ok := cur.(string); ok {
		return s
	}
	b, _ := json.Marshal(cur)
	return string(b)
}
