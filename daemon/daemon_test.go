package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"askuser/daemon/config"
)

// testDaemon runs a daemon in-process on a temporary socket; cfg may adjust
// the configuration. It stops when the test ends.
func testDaemon(t testing.TB, cfg func(*config.Config)) string {
	t.Helper()
	sock, _ := daemonAt(t, shortRoot(t), cfg)
	return sock
}

// daemonAt runs a daemon in-process on the state dir of root; stop ends it
// (also at cleanup), so that a test can start another on the same state.
func daemonAt(t testing.TB, root string, cfg func(*config.Config)) (sock string, stop func()) {
	t.Helper()
	c := config.Default()
	c.Daemon.StateDir = filepath.Join(root, "state")
	if cfg != nil {
		cfg(&c)
	}
	sock = filepath.Join(root, "run", "askuserd.sock")
	ready := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Config: c, SocketPath: sock,
			PendingFilePath: filepath.Join(root, "state", "pending-questions.json"), Logger: testLogger(t),
			Ready: func() { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("Run did not return within 10s of its context ending")
			}
		})
	}
	t.Cleanup(stop)
	return sock, stop
}

// shortRoot is a temporary directory removed at cleanup. Unix socket paths
// are short (108 bytes); t.TempDir() can be too long for one.
func shortRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "aud-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// rawClient is a connection that sends bytes as given and reads lines as
// generic JSON, so that tests see exactly what travels.
type rawClient struct {
	t  testing.TB
	nc *net.UnixConn
	br *bufio.Reader
}

func dialRaw(t testing.TB, sock string) *rawClient {
	t.Helper()
	nc, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawClient{t: t, nc: nc, br: bufio.NewReaderSize(nc, 1<<16)}
}

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := c.nc.Write([]byte(line)); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// recv reads one message, failing after a generous safety timeout.
func (c *rawClient) recv() map[string]any {
	c.t.Helper()
	m, err := c.tryRecv(10 * time.Second)
	if err != nil {
		c.t.Fatalf("recv: %v", err)
	}
	return m
}

func (c *rawClient) tryRecv(timeout time.Duration) (map[string]any, error) {
	_ = c.nc.SetReadDeadline(time.Now().Add(timeout))
	defer c.nc.SetReadDeadline(time.Time{})
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

// expect reads one message and checks it against want: "type key=value…",
// keys dotted into nested objects, values compared as printed.
func (c *rawClient) expect(want string) map[string]any {
	c.t.Helper()
	m := c.recv()
	if msg := mismatch(m, want); msg != "" {
		b, _ := json.Marshal(m)
		c.t.Fatalf("want %q, got %s (%s)", want, b, msg)
	}
	return m
}

func mismatch(m map[string]any, want string) string {
	parts := strings.Fields(want)
	if m["type"] != parts[0] {
		return "type differs"
	}
	for _, kv := range parts[1:] {
		k, v, _ := strings.Cut(kv, "=")
		if got := lookup(m, k); got != v {
			return fmt.Sprintf("%s is %q", k, got)
		}
	}
	return ""
}

func lookup(m map[string]any, path string) string {
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
	switch v := cur.(type) {
	case nil:
		return "null"
	case string:
		return v
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// quiet asserts that nothing arrives within a short while. It is a check for
// absence, not a timing assertion: a late message would fail a later step.
func (c *rawClient) quiet() {
	c.t.Helper()
	if m, err := c.tryRecv(100 * time.Millisecond); err == nil {
		b, _ := json.Marshal(m)
		c.t.Fatalf("unexpected message %s", b)
	}
}

// testLogger sends the daemon's log to the test's log, shown on failure.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// until reads messages until one of type typ and returns it.
func (c *rawClient) until(typ string) map[string]any {
	c.t.Helper()
	for {
		if m := c.recv(); m["type"] == typ {
			return m
		}
	}
}

// eventually polls a file until check accepts its content (safety net 10 s).
func eventually(t *testing.T, path string, check func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		if check(string(data)) {
			return string(data)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never became as expected; last content:\n%s", path, data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
