package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"time"

	"askuser/socketproto"
)

// notifyTimeout bounds one run of notify.command; a hook that hangs must not
// pile up processes.
const notifyTimeout = 30 * time.Second

// notifyBacklog bounds the requests waiting for the hook. A burst past it
// (a thousand agents asking at once) skips the hook rather than queue a
// thousand processes.
const notifyBacklog = 64

// notifier runs notify.command for new requests, one at a time, in its own
// goroutine: the queue only does a non-blocking send.
type notifier struct {
	cmd []string
	log *slog.Logger
	ch  chan socketproto.Pending
}

func startNotifier(ctx context.Context, h host) error {
	if len(h.opts.Config.Notify.Command) == 0 {
		return nil
	}
	n := &notifier{cmd: h.opts.Config.Notify.Command, log: h.log, ch: make(chan socketproto.Pending, notifyBacklog)}
	if !h.queue.do(func(q extensionAPI) { q.follow(n) }) {
		return fmt.Errorf("notify: the queue stopped before it started")
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		for {
			select {
			case p := <-n.ch:
				n.run(ctx, p)
			case <-ctx.Done():
				return
			}
		}
	}()
	return nil
}

func (n *notifier) updated(socketproto.Pending)          {}
func (n *notifier) resolved(socketproto.RequestResolved) {}

// added is called in the queue goroutine; it never blocks.
func (n *notifier) added(p socketproto.Pending) {
	select {
	case n.ch <- p:
	default:
		n.log.Warn("notify.command is behind; skipped it for a request", "requestId", p.RequestID)
	}
}

func (n *notifier) run(ctx context.Context, p socketproto.Pending) {
	ctx, cancel := context.WithTimeout(ctx, notifyTimeout)
	defer cancel()
	// No shell: an agent's question text must never be interpreted.
	cmd := exec.CommandContext(ctx, n.cmd[0], n.cmd[1:]...)
	cmd.Env = append(os.Environ(),
		"ASKUSER_REQUEST_ID="+p.RequestID,
		"ASKUSER_AGENT="+p.Agent.DisplayName(),
		"ASKUSER_QUESTION="+firstQuestion(p),
	)
	cmd.WaitDelay = time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		n.log.Warn("notify.command failed", "command", n.cmd, "requestId", p.RequestID, "err", err, "output", string(truncate(out, 500)))
	}
}

func firstQuestion(p socketproto.Pending) string {
	if len(p.Questions) == 0 {
		return ""
	}
	return p.Questions[0].Question
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
