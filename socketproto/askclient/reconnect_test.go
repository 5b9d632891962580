package askclient

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"
)

// attempts replaces dialSession, for the bubble's test, with one that
// always fails, noting when each attempt was made (the bubble's fake time).
func attempts(t *testing.T) *[]time.Time {
	t.Helper()
	var at []time.Time
	old := dialSession
	dialSession = func(context.Context, Options) (*session, error) {
		at = append(at, time.Now())
		return nil, errors.New("connection refused")
	}
	t.Cleanup(func() { dialSession = old })
	return &at
}

// gaps is the pauses between attempts.
func gaps(at []time.Time) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(at); i++ {
		out = append(out, at[i].Sub(at[i-1]))
	}
	return out
}

// A daemon that crashed (its socket left behind) is dialled again with a
// pause that doubles from 50 ms up to 1 s, for ReconnectWindow, and then
// the client gives up. Run on the bubble's clock: the 30 s pass at once.
func TestReconnectBacksOffThenGivesUp(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "askuserd.sock")
	if err := os.WriteFile(sock, nil, 0o600); err != nil { // left behind by a crash
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		at := attempts(t)
		start := time.Now()
		_, err := reconnect(context.Background(), Options{SocketPath: sock}, true)
		if err == nil {
			t.Fatal("reconnect got through to nothing")
		}
		if took := time.Since(start); took < ReconnectWindow || took > ReconnectWindow+time.Second {
			t.Errorf("gave up after %v, want ReconnectWindow (%v)", took, ReconnectWindow)
		}
		want := []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second}
		got := gaps(*at)
		if len(got) < len(want) {
			t.Fatalf("pauses %v", got)
		}
		for i, w := range want {
			if got[i] != w {
				t.Errorf("pause %d: %v, want %v (all: %v)", i, got[i], w, got[:len(want)])
			}
		}
	})
}

// A daemon stopped on purpose (its socket removed) while a question waits
// for the user's answer: the client dials once a second, without a
// deadline, until the user starts it again — here ten times the window.
func TestReconnectWaitsOutADeliberateStopWithoutDeadline(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "askuserd.sock") // removed: a clean stop
	synctest.Test(t, func(t *testing.T) {
		at := attempts(t)
		ctx, cancel := context.WithTimeout(context.Background(), 10*ReconnectWindow)
		defer cancel()
		said := 0
		_, err := reconnect(ctx, Options{SocketPath: sock, Say: func(string) { said++ }}, true)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("reconnect ended by itself: %v", err)
		}
		if said != 1 {
			t.Errorf("said it waits %d times, want once", said)
		}
		for i, g := range gaps(*at) {
			if g > time.Second {
				t.Fatalf("pause %d was %v: a stopped daemon is tried at least every second", i, g)
			}
		}
		if n := len(*at); n < 290 {
			t.Errorf("%d attempts in %v", n, 10*ReconnectWindow)
		}
	})
}

// A question no daemon acknowledged is not waited on without a deadline: a
// vanished socket may be a daemon that refused to run.
func TestReconnectUnacknowledgedKeepsTheWindow(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "askuserd.sock")
	synctest.Test(t, func(t *testing.T) {
		attempts(t)
		start := time.Now()
		if _, err := reconnect(context.Background(), Options{SocketPath: sock}, false); err == nil {
			t.Fatal("reconnect got through to nothing")
		}
		if took := time.Since(start); took > ReconnectWindow+time.Second {
			t.Errorf("an unacknowledged question waited %v", took)
		}
	})
}
