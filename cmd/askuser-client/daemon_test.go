package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"askuser/daemon"
	"askuser/daemon/config"
	"askuser/socketproto"
)

// A real daemon, in-process on a socket in a fresh directory, for the tests
// of the subcommands that talk to it; the same as package mcpserver's until
// the shared test harness takes both.

const testWait = 10 * time.Second // a safety net, never a measured threshold

// testDaemon runs the daemon in-process on a socket in a fresh directory.
func testDaemon(t *testing.T) string {
	t.Helper()
	sock, _ := testDaemonStoppable(t)
	return sock
}

// testDaemonStoppable is testDaemon with a way to stop the daemon early.
func testDaemonStoppable(t *testing.T) (string, func()) {
	t.Helper()
	dir := t.TempDir()
	sock := filepath.Join(dir, "run", "askuserd.sock")
	cfg := config.Default()
	cfg.Daemon.StateDir = filepath.Join(dir, "state")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- daemon.Run(ctx, daemon.Options{
			Config:          cfg,
			SocketPath:      sock,
			PendingFilePath: filepath.Join(dir, "state", "pending-questions.json"),
			Logger:          slog.New(slog.NewTextHandler(io.Discard, nil)),
			Version:         "test",
		})
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("daemon: %v", err)
				}
			case <-time.After(testWait):
				t.Errorf("daemon did not stop within %v", testWait)
			}
		})
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(testWait)
	for {
		select {
		case err := <-done:
			t.Fatalf("daemon stopped before answering: %v", err)
		default:
		}
		if c, err := socketproto.Dial(sock, 0); err == nil {
			c.Close()
			return sock, stop
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon did not answer on %s within %v", sock, testWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// watchDaemon subscribes to the daemon's events and returns a function that
// reads until a message of the given type arrives.
func watchDaemon(t *testing.T, sock string) func(typ string) socketproto.Message {
	t.Helper()
	c, err := socketproto.Dial(sock, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Send(socketproto.Subscribe{Role: socketproto.RoleWatch}); err != nil {
		t.Fatal(err)
	}
	next := func(typ string) socketproto.Message {
		t.Helper()
		_ = c.NetConn().SetReadDeadline(time.Now().Add(testWait))
		for {
			m, err := c.Recv()
			if err != nil {
				t.Fatalf("waiting for %s: %v", typ, err)
			}
			if m.MessageType() == typ {
				return m
			}
		}
	}
	next("snapshot")
	return next
}

// sendAsUser sends msg on a fresh connection, as the user would from the CLI,
// and expects ok.
func sendAsUser(t *testing.T, sock string, msg socketproto.Message) {
	t.Helper()
	c, err := socketproto.Dial(sock, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Send(msg); err != nil {
		t.Fatal(err)
	}
	_ = c.NetConn().SetReadDeadline(time.Now().Add(testWait))
	m, err := c.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.(socketproto.OK); !ok {
		t.Fatalf("sent %s, got %#v", msg.MessageType(), m)
	}
}
