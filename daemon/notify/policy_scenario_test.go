package notify

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"askuser/internal/storytest"
	"askuser/socketproto"
)

// The policy's times (grace, bursts, idle, repeat) are pinned by stories,
// testdata/policy/*.txtar, each run on synctest's clock; their
// language is in testdata/policy/README.md.
func TestPolicyScenarios(t *testing.T) {
	storytest.Scripts(t, "testdata/policy/*.txtar", runPolicyScript)
}

func runPolicyScript(t *testing.T, file string, script []storytest.Line) {
	set := Settings{Grace: time.Second, Burst: 5 * time.Second, Idle: time.Minute, Repeat: 10 * time.Minute}
	if len(script) > 0 && script[0].Words[0] == "settings" {
		set = parseSettings(t, file, script[0])
		script = script[1:]
	}
	rec := &recorder{}
	p := New(set, slog.New(slog.NewTextHandler(io.Discard, nil)), rec)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	var heard []string // told and not yet checked
	for _, l := range script {
		at := fmt.Sprintf("%s:%d", file, l.N)
		if l.Words[0] == "heard" {
			want := strings.Join(l.Words[1:], " ")
			if len(heard) == 0 || heard[0] != want {
				t.Fatalf("%s: want heard %q, the notifiers were told %q", at, want, heard)
			}
			heard = heard[1:]
			continue
		}
		if len(heard) > 0 {
			t.Fatalf("%s: before this step the notifiers were told, unexpected: %q", at, heard)
		}
		policyStep(t, at, p, l.Words)
		synctest.Wait()
		heard = append(heard, rec.take()...)
	}
	if len(heard) > 0 {
		t.Fatalf("%s: by the end the notifiers were told, unexpected: %q", file, heard)
	}
}

// policyStep does one line that is not "heard".
func policyStep(t *testing.T, at string, p *Policy, w []string) {
	arg := func() string {
		if len(w) != 2 {
			t.Fatalf("%s: %q takes one argument", at, w[0])
		}
		return w[1]
	}
	switch w[0] {
	case "add":
		p.Added(pending(arg()))
	case "restore":
		r := pending(arg())
		r.CreatedAt = time.Now()
		p.Restored(r)
	case "answer":
		if len(w) < 2 {
			t.Fatalf("%s: answer takes the requests answered", at)
		}
		for _, id := range w[1:] { // several: answered together, before the policy looks
			p.Resolved(socketproto.RequestResolved{RequestID: id, Outcome: socketproto.OutcomeAnswered, Via: socketproto.ViaPane})
		}
	case "key":
		p.Active(time.Now())
	case "wait":
		d, err := time.ParseDuration(arg())
		if err != nil {
			t.Fatalf("%s: %v", at, err)
		}
		time.Sleep(d) // synctest's clock: the story's time passing
	default:
		t.Fatalf("%s: no step %q (see testdata/policy/README.md)", at, w[0])
	}
}

func parseSettings(t *testing.T, file string, l storytest.Line) Settings {
	var s Settings
	fields := map[string]*time.Duration{"grace": &s.Grace, "burst": &s.Burst, "idle": &s.Idle, "repeat": &s.Repeat}
	for _, kv := range l.Words[1:] {
		k, v, _ := strings.Cut(kv, "=")
		d, err := time.ParseDuration(v)
		if fields[k] == nil || err != nil {
			t.Fatalf("%s:%d: want grace=, burst=, idle=, repeat= with a duration, got %q", file, l.N, kv)
		}
		*fields[k] = d
	}
	return s
}
