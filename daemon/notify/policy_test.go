package notify

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
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

// With nothing waiting the policy sleeps without a timer: no idle wake-ups.
func TestPolicyHasNoTimerWhenNothingWaits(t *testing.T) {
	p := New(DefaultSettings, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, ok := p.next(); ok {
		t.Fatal("a deadline with nothing waiting")
	}
	p.take(event{at: time.Now(), added: ptr(pending("a"))})
	if _, ok := p.next(); !ok {
		t.Fatal("no deadline with a request waiting")
	}
	p.take(event{at: time.Now(), resolved: &socketproto.RequestResolved{RequestID: "a"}})
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
