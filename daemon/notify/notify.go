// Package notify decides when the user is told that a person is needed, and
// when what it said goes away: the policy of docs/contract.md §6 "Notify"
// (a grace period for prompts settled at once, one notice for a burst,
// silence while the user is at a pane or page, one reminder) and the
// fan-out of its notices to the notifiers (notify.command, ntfy, Web Push).
//
// It is told of requests added and resolved and of the user's activity; it
// knows nothing of the queue's insides, the socket or any surface. Each
// notifier runs in its own goroutine, so a slow ntfy server never delays a
// push, and nothing here ever blocks the queue.
package notify

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"askuser/socketproto"
	"askuser/socketproto/agenttext"
)

// Kind is why a notice is sent.
type Kind string

const (
	KindNew      Kind = "new"      // requests that started waiting
	KindUpdate   Kind = "update"   // a notice for several lost one of them: shown again, quietly
	KindReminder Kind = "reminder" // still unanswered after notify.repeat
)

// Notice is one notification: it announces one request or a burst of them.
type Notice struct {
	// Tag names the notification on every device, so that it can be
	// replaced and closed: the id of its first request.
	Tag      string
	Kind     Kind
	Requests []socketproto.Pending
	// Waiting is how many requests wait for the user in all (the badge).
	Waiting int
}

// Gone says that notice Tag's last request was resolved (answered on any
// surface, declined or withdrawn): every copy of it should go.
type Gone struct {
	Tag       string
	RequestID string // the request resolved last
	Outcome   socketproto.Outcome
	Via       socketproto.Via
	Waiting   int
}

// Notifier delivers notices somewhere. Its methods run in the notifier's
// own goroutine and may block on I/O (bounded by their ctx).
type Notifier interface {
	Name() string
	Announce(ctx context.Context, n Notice)
	Withdraw(ctx context.Context, g Gone)
}

// Permission reports whether the notice asks for a permission (any option
// approves its preview): such a notice is more urgent, and its
// notification never answers anything.
func (n Notice) Permission() bool {
	for _, p := range n.Requests {
		for _, q := range p.Questions {
			for _, o := range q.Options {
				if o.ApprovesPreview {
					return true
				}
			}
		}
	}
	return false
}

// Title is the notice's first line, cleaned for any surface.
func (n Notice) Title() string {
	if len(n.Requests) == 0 {
		return "askuser"
	}
	who := agenttext.Clean(n.Requests[0].Agent.DisplayName(), false)
	if who == "" {
		who = "An agent"
	}
	if len(n.Requests) > 1 {
		// Agents, not requests: three asks from one shell are one agent.
		if k := n.Agents(); k > 1 {
			return fmt.Sprintf("%d agents are waiting", k)
		}
		return fmt.Sprintf("%s has %d requests waiting", who, len(n.Requests))
	}
	verb := "asks"
	if n.Permission() {
		verb = "asks for permission"
	}
	if n.Kind == KindReminder {
		verb = "is still waiting"
	}
	return who + " " + verb
}

// Agents is how many distinct agents the notice's requests come from: by
// the agent's id where it has one, else by its name; requests that say
// nothing of their agent are one unknown agent.
func (n Notice) Agents() int {
	seen := map[string]bool{}
	for _, p := range n.Requests {
		key := "name:" + p.Agent.DisplayName()
		if p.Agent != nil && p.Agent.ID != "" {
			key = "id:" + p.Agent.ID
		}
		seen[key] = true
	}
	return len(seen)
}

// Body is the notice's text: the question of a single request (and how many
// more it has), or one line per request of a burst. Cleaned through
// agenttext, as every surface shows agent text.
func (n Notice) Body() string {
	var b strings.Builder
	for i, p := range n.Requests {
		if i == 4 {
			fmt.Fprintf(&b, "\n… and %d more", len(n.Requests)-i)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		q := firstQuestion(p)
		if len(n.Requests) > 1 {
			q = oneLine(q)
			if who := agenttext.Clean(p.Agent.DisplayName(), false); who != "" {
				q = who + ": " + q
			}
		}
		b.WriteString(q)
		if len(n.Requests) == 1 && len(p.Questions) > 1 {
			fmt.Fprintf(&b, "\n(and %d more questions)", len(p.Questions)-1)
		}
	}
	return b.String()
}

func firstQuestion(p socketproto.Pending) string {
	if len(p.Questions) == 0 {
		return ""
	}
	return agenttext.Clean(p.Questions[0].Question, true)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

// Choices are the options a notification may offer as actions for n: only
// for one request of one single-select question with options, none of which
// approves anything (an Allow is never taken from a notification: its
// preview must have been seen whole). Nil otherwise.
func (n Notice) Choices() []string {
	if len(n.Requests) != 1 || n.Permission() {
		return nil
	}
	p := n.Requests[0]
	if len(p.Questions) != 1 {
		return nil
	}
	q := socketproto.ApplyInput(p.Questions[0])
	if q.IsMulti() || len(q.Options) == 0 {
		return nil
	}
	out := make([]string, len(q.Options))
	for i, o := range q.Options {
		out[i] = agenttext.Clean(o.Label, false)
	}
	return out
}

// worker runs one notifier's calls in order, in its own goroutine.
type worker struct {
	n   Notifier
	log *slog.Logger

	mu     sync.Mutex
	jobs   []func(context.Context)
	signal chan struct{}
}

// backlog bounds a notifier's unsent calls: one that cannot keep up (a
// server that hangs) loses the oldest rather than grow without end.
const backlog = 256

func (w *worker) push(job func(context.Context)) {
	w.mu.Lock()
	if len(w.jobs) >= backlog {
		w.jobs = w.jobs[1:]
		w.log.Warn("notify: a notifier is behind; dropped its oldest call", "notifier", w.n.Name())
	}
	w.jobs = append(w.jobs, job)
	w.mu.Unlock()
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

func (w *worker) run(ctx context.Context) {
	for {
		w.mu.Lock()
		jobs := w.jobs
		w.jobs = nil
		w.mu.Unlock()
		for _, job := range jobs {
			if ctx.Err() != nil {
				return
			}
			job(ctx)
		}
		select {
		case <-w.signal:
		case <-ctx.Done():
			return
		}
	}
}
