package testdaemon

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"askuser/internal/config"
)

// Setup is what a Runner needs to run a daemon for a test.
type Setup struct {
	Config      config.Config
	Socket      string
	PendingFile string
	Logger      *slog.Logger
	Ready       func() // called once the socket accepts connections
}

// Runner runs a daemon until ctx ends: daemon.Run, adapted.
type Runner func(ctx context.Context, s Setup) error

// Daemon is a daemon running in-process for a test.
type Daemon struct {
	Root        string // its directory: run/ holds the socket, state/ the state
	Socket      string
	StateDir    string
	PendingFile string
	// Stop ends the daemon and waits for Run to return; it runs at cleanup
	// too, and later calls do nothing.
	Stop func()
	// Log is every line the daemon logged, debug included (the test's log
	// shows warnings and errors only); only with ServeLogged.
	Log *LogBuffer
}

// ShortRoot is a temporary directory removed at cleanup. Unix socket paths
// are short (108 bytes); t.TempDir() can be too long for one.
func ShortRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "aud-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Serve runs a daemon in-process with the state dir of root (a new
// ShortRoot when ""), so that a test can stop it and start another on the
// same state; cfg may adjust the configuration. It returns once the socket
// answers.
func Serve(t testing.TB, run Runner, root string, cfg func(*config.Config)) *Daemon {
	t.Helper()
	return serve(t, run, root, cfg, false)
}

// ServeLogged is Serve, keeping every line the daemon logs in its Log: a
// test can look at what a log would tell whoever reads it.
func ServeLogged(t testing.TB, run Runner, root string, cfg func(*config.Config)) *Daemon {
	t.Helper()
	return serve(t, run, root, cfg, true)
}

func serve(t testing.TB, run Runner, root string, cfg func(*config.Config), logged bool) *Daemon {
	t.Helper()
	if root == "" {
		root = ShortRoot(t)
	}
	d := &Daemon{Root: root,
		Socket:      filepath.Join(root, "run", "askuserd.sock"),
		StateDir:    filepath.Join(root, "state"),
		PendingFile: filepath.Join(root, "state", "pending-questions.json"),
	}
	logger := TestLogger(t)
	if logged {
		d.Log = &LogBuffer{}
		logger = slog.New(teeHandler{logger.Handler(), slog.NewTextHandler(d.Log, &slog.HandlerOptions{Level: slog.LevelDebug})})
	}
	c := config.Default()
	c.Daemon.StateDir = d.StateDir
	if cfg != nil {
		cfg(&c)
	}
	ready := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, Setup{Config: c, Socket: d.Socket, PendingFile: d.PendingFile,
			Logger: logger, Ready: func() { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("the daemon stopped before it listened: %v", err)
	}
	var once sync.Once
	d.Stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(Wait):
				t.Errorf("Run did not return within %v of its context ending", Wait)
			}
		})
	}
	t.Cleanup(d.Stop)
	return d
}

// TestLogger sends a daemon's warnings and errors to the test's log, shown
// on failure.
func TestLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// teeHandler hands each record to every handler that takes its level.
type teeHandler []slog.Handler

func (h teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	for _, x := range h {
		if x.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (h teeHandler) Handle(ctx context.Context, r slog.Record) error {
	var first error
	for _, x := range h {
		if x.Enabled(ctx, r.Level) {
			if err := x.Handle(ctx, r.Clone()); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

func (h teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make(teeHandler, len(h))
	for i, x := range h {
		out[i] = x.WithAttrs(as)
	}
	return out
}

func (h teeHandler) WithGroup(name string) slog.Handler {
	out := make(teeHandler, len(h))
	for i, x := range h {
		out[i] = x.WithGroup(name)
	}
	return out
}
