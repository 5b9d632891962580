package notify

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"askuser/socketproto"
)

// recorder is a notifier that writes down what it was told.
type recorder struct {
	mu  sync.Mutex
	got []string
}

func (r *recorder) Name() string { return "recorder" }
func (r *recorder) Announce(_ context.Context, n Notice) {
	ids := []string{}
	for _, p := range n.Requests {
		ids = append(ids, p.RequestID)
	}
	r.add(fmt.Sprintf("%s %s [%s] waiting=%d", n.Kind, n.Tag, strings.Join(ids, " "), n.Waiting))
}
func (r *recorder) Withdraw(_ context.Context, g Gone) {
	r.add(fmt.Sprintf("gone %s %s waiting=%d", g.Tag, g.Outcome, g.Waiting))
}
func (r *recorder) add(s string) { r.mu.Lock(); r.got = append(r.got, s); r.mu.Unlock() }
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.got
	r.got = nil
	return out
}

func pending(id string) socketproto.Pending {
	return socketproto.Pending{Request: socketproto.Request{RequestID: id,
		Questions: []socketproto.Question{{Question: "Which one " + id + "?", Options: []socketproto.Option{{Label: "A"}, {Label: "B"}}}}}}
}

// The policy's rules as a story each, run on synctest's fake clock.
func TestPolicy(t *testing.T) {
	set := Settings{Grace: time.Second, Burst: 5 * time.Second, Idle: time.Minute, Repeat: 10 * time.Minute}
	type step struct {
		after  time.Duration // then wait this long
		do     func(p *Policy)
		expect []string // what the notifiers heard by then
	}
	add := func(id string) func(*Policy) { return func(p *Policy) { p.Added(pending(id)) } }
	answer := func(id string) func(*Policy) {
		return func(p *Policy) {
			p.Resolved(socketproto.RequestResolved{RequestID: id, Outcome: socketproto.OutcomeAnswered, Via: socketproto.ViaPane})
		}
	}
	key := func(p *Policy) { p.Active(time.Now()) }
	cases := []struct {
		name  string
		steps []step
	}{
		{"one question, then answered", []step{
			{0, add("a"), nil},
			{900 * time.Millisecond, nil, nil},
			{200 * time.Millisecond, nil, []string{"new a [a] waiting=1"}},
			{0, answer("a"), []string{"gone a answered waiting=0"}},
		}},
		{"settled within the grace: never announced", []step{
			{0, add("a"), nil},
			{500 * time.Millisecond, answer("a"), nil},
			{time.Hour, nil, nil},
		}},
		{"three quick questions are one notice", []step{
			{0, add("a"), nil},
			{500 * time.Millisecond, add("b"), nil},
			{500 * time.Millisecond, add("c"), nil},
			{1100 * time.Millisecond, nil, []string{"new a [a b c] waiting=3"}},
			{0, answer("b"), []string{"update a [a c] waiting=2"}},
			{0, answer("a"), []string{"update a [c] waiting=1"}},
			{0, answer("c"), []string{"gone a answered waiting=0"}},
		}},
		{"a burst is cut after Burst", []step{
			{900 * time.Millisecond, add("a"), nil},
			{900 * time.Millisecond, add("b"), nil},
			{900 * time.Millisecond, add("c"), nil},
			{900 * time.Millisecond, add("d"), nil},
			{900 * time.Millisecond, add("e"), nil},
			{600 * time.Millisecond, add("f"), []string{"new a [a b c d e f] waiting=6"}},
			{0, add("g"), nil},
			{1100 * time.Millisecond, nil, []string{"new g [g] waiting=7"}},
		}},
		{"no notice while the user is at a pane; a reminder once gone", []step{
			{0, key, nil},
			{0, add("a"), nil},
			{2 * time.Second, nil, nil},
			{10 * time.Minute, nil, []string{"reminder a [a] waiting=1"}},
			{time.Hour, nil, nil},
		}},
		{"a request from before a restart is closed when answered, and reminded", []step{
			{0, func(p *Policy) { r := pending("old"); r.CreatedAt = time.Now(); p.Restored(r) }, nil},
			{2 * time.Second, nil, nil},
			{0, add("a"), nil},
			{2 * time.Second, nil, []string{"new a [a] waiting=2"}},
			{10 * time.Minute, nil, []string{"reminder old [old] waiting=2", "reminder a [a] waiting=2"}},
			{0, answer("old"), []string{"gone old answered waiting=1"}},
		}},
		{"the reminder waits while the user is still there", []step{
			{0, add("a"), nil},
			{2 * time.Second, nil, []string{"new a [a] waiting=1"}},
			{9*time.Minute + 50*time.Second, nil, nil},
			{30 * time.Second, key, nil},
			{31 * time.Second, nil, []string{"reminder a [a] waiting=1"}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := &recorder{}
				p := New(set, slog.New(slog.NewTextHandler(io.Discard, nil)), rec)
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan struct{})
				go func() { p.Run(ctx); close(done) }()
				for i, s := range c.steps {
					if s.do != nil {
						s.do(p)
					}
					// synctest's fake clock: the sleep moves it on at once, firing
					// the policy's timers due meanwhile; Wait lets them finish.
					time.Sleep(s.after)
					synctest.Wait()
					got := rec.take()
					if strings.Join(got, "\n") != strings.Join(s.expect, "\n") {
						t.Fatalf("step %d: heard\n%s\nwant\n%s", i, strings.Join(got, "\n"), strings.Join(s.expect, "\n"))
					}
				}
				cancel()
				<-done
			})
		})
	}
}

// With nothing waiting the policy sleeps without a timer: no idle wake-ups.
func TestPolicyHasNoTimerWhenNothingWaits(t *testing.T) {
	p := New(DefaultSettings, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, ok := p.next(); ok {
		t.Fatal("a deadline with nothing waiting")
	}
	p.take(event{added: ptr(pending("a"))}, time.Now())
	if _, ok := p.next(); !ok {
		t.Fatal("no deadline with a request waiting")
	}
	p.take(event{resolved: &socketproto.RequestResolved{RequestID: "a"}}, time.Now())
	if _, ok := p.next(); ok {
		t.Fatal("a deadline left after the last request went")
	}
}

func ptr[T any](v T) *T { return &v }

func TestNoticeText(t *testing.T) {
	allow := socketproto.Pending{Request: socketproto.Request{RequestID: "p", Agent: &socketproto.Agent{Name: "claude"},
		Questions: []socketproto.Question{{Question: "Run rm -rf build?\u202e", Options: []socketproto.Option{{Label: "Allow", Preview: "x", ApprovesPreview: true}, {Label: "Deny"}}}}}}
	n := Notice{Tag: "p", Kind: KindNew, Requests: []socketproto.Pending{allow}}
	if got := n.Title(); got != "claude asks for permission" {
		t.Errorf("title %q", got)
	}
	if got := n.Body(); got != `Run rm -rf build?\u202e` {
		t.Errorf("body %q", got)
	}
	if n.Choices() != nil {
		t.Errorf("a permission prompt offers choices: %v", n.Choices())
	}
	one := Notice{Requests: []socketproto.Pending{pending("a")}}
	if got := strings.Join(one.Choices(), ","); got != "A,B" {
		t.Errorf("choices %q", got)
	}
	// A burst counts agents, not requests: two asks that say no agent
	// are one unknown agent, and claude another.
	three := Notice{Requests: []socketproto.Pending{pending("a"), pending("b"), allow}}
	if three.Title() != "2 agents are waiting" || three.Choices() != nil {
		t.Errorf("burst: %q %v", three.Title(), three.Choices())
	}
	from := func(id, name, agentID string) socketproto.Pending {
		p := pending(id)
		p.Agent = &socketproto.Agent{Name: name, ID: agentID}
		return p
	}
	for _, c := range []struct {
		reqs []socketproto.Pending
		want string
	}{
		{[]socketproto.Pending{from("1", "bash", ""), from("2", "bash", ""), from("3", "bash", ""), from("4", "Claude Code", "")}, "2 agents are waiting"},
		{[]socketproto.Pending{from("1", "bash", ""), from("2", "bash", ""), from("3", "bash", "")}, "bash has 3 requests waiting"},
		{[]socketproto.Pending{from("1", "claude", "s1"), from("2", "claude", "s2")}, "2 agents are waiting"},
		{[]socketproto.Pending{from("1", "claude", "s1"), from("2", "claude", "s1")}, "claude has 2 requests waiting"},
	} {
		if got := (Notice{Kind: KindNew, Requests: c.reqs}).Title(); got != c.want {
			t.Errorf("title %q, want %q", got, c.want)
		}
	}
}
