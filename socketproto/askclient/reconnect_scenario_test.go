package askclient

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"askuser/internal/storytest"
)

var update = flag.Bool("update", false, "rewrite the -- happens -- sections of testdata/reconnect/*.txtar")

// Reconnect's back-off is pinned by stories, testdata/reconnect/*.txtar,
// run on synctest's clock: the archive's comment says what it pins, its
// "setup" section what the socket and the dials do, and its "happens"
// section every attempt, what the client said and how reconnect ended, at
// the bubble's times (go test ./socketproto/askclient -run
// TestReconnectScenarios -update rewrites "happens").
//
// setup lines:
//
//	socket left | socket gone     the daemon crashed (its socket left) or was stopped (removed)
//	acked                         the daemon had acknowledged the question
//	daemon back at 2s             dials from then on connect
//	daemon refuses at 1s          from then on the daemon started for it refuses to run
//	socket back at 90s            the socket appears again (a daemon restarted) at that time
//	give up at 5m                 the caller's context ends then (Ctrl-C)
func TestReconnectScenarios(t *testing.T) {
	storytest.Transcripts(t, "testdata/reconnect/*.txtar", *update,
		"go test ./socketproto/askclient -run TestReconnectScenarios -update", runReconnectStory)
}

// reconnectStory is a story's setup, read from its lines.
type reconnectStory struct {
	socketLeft bool
	acked      bool
	backAt     time.Duration // 0: never
	refuseAt   time.Duration // 0: never
	reappearAt time.Duration // 0: never
	giveUpAt   time.Duration // 0: never
}

func readStory(t *testing.T, file, setup string) reconnectStory {
	var s reconnectStory
	at := func(l, prefix string) time.Duration {
		d, err := time.ParseDuration(strings.TrimPrefix(l, prefix))
		if err != nil {
			t.Fatalf("%s: %q: %v", file, l, err)
		}
		return d
	}
	for _, l := range strings.Split(setup, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "" || strings.HasPrefix(l, "#") || l == "socket gone":
		case l == "socket left":
			s.socketLeft = true
		case l == "acked":
			s.acked = true
		case strings.HasPrefix(l, "daemon back at "):
			s.backAt = at(l, "daemon back at ")
		case strings.HasPrefix(l, "daemon refuses at "):
			s.refuseAt = at(l, "daemon refuses at ")
		case strings.HasPrefix(l, "socket back at "):
			s.reappearAt = at(l, "socket back at ")
		case strings.HasPrefix(l, "give up at "):
			s.giveUpAt = at(l, "give up at ")
		default:
			t.Fatalf("%s: no setup line %q", file, l)
		}
	}
	return s
}

// runReconnectStory runs reconnect as the story sets it up and says what
// happened, one line each, times from its start.
func runReconnectStory(t *testing.T, file, setup string) string {
	s := readStory(t, file, setup)
	sock := filepath.Join(t.TempDir(), "askuserd.sock")
	if s.socketLeft {
		if err := os.WriteFile(sock, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	since := func() time.Duration { return time.Since(start) }
	var lines []string
	var tries []time.Duration
	old := dialSession
	t.Cleanup(func() { dialSession = old })
	dialSession = func(ctx context.Context, o Options) (*session, error) {
		now := since()
		tries = append(tries, now)
		switch {
		case s.refuseAt > 0 && now >= s.refuseAt:
			return nil, &StartRefusal{Reason: "another askuserd is running"}
		case s.backAt > 0 && now >= s.backAt:
			return &session{}, nil
		}
		return nil, errors.New("connection refused")
	}
	if s.reappearAt > 0 {
		time.AfterFunc(s.reappearAt, func() { _ = os.WriteFile(sock, nil, 0o600) })
	}
	ctx := context.Background()
	if s.giveUpAt > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.giveUpAt)
		defer cancel()
	}
	say := func(msg string) {
		lines = append(lines, attemptLines(tries)...)
		tries = nil
		lines = append(lines, fmt.Sprintf("said at %v: %s", since(), strings.ReplaceAll(msg, sock, "SOCKET")))
	}
	_, err := reconnect(ctx, Options{SocketPath: sock, Say: say}, s.acked)
	lines = append(lines, attemptLines(tries)...)
	end := "connected"
	if err != nil {
		end = err.Error()
	}
	lines = append(lines, fmt.Sprintf("ends at %v: %s", since(), end))
	return strings.Join(lines, "\n") + "\n"
}

// attemptLines says when each dial was made; a run of three or more at
// the same pause is one line.
func attemptLines(at []time.Duration) []string {
	var out []string
	for i := 0; i < len(at); {
		j := i + 1
		if i > 0 {
			gap := at[i] - at[i-1]
			for j < len(at) && at[j]-at[j-1] == gap {
				j++
			}
			if j-i >= 3 {
				out = append(out, fmt.Sprintf("dialled %d times, %v to %v, every %v", j-i, at[i], at[j-1], gap))
				i = j
				continue
			}
		}
		out = append(out, fmt.Sprintf("dialled at %v", at[i]))
		i++
	}
	return out
}
