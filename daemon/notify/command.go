package notify

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// commandTimeout bounds one run of notify.command; a hook that hangs must
// not pile up processes.
const commandTimeout = 30 * time.Second

// Command runs notify.command (docs/contract.md §6 "Notify hook") for each
// notice, and again when what it announced is gone, so that a script that
// posted to a phone can delete its message. Never through a shell: an
// agent's text must never be interpreted.
type Command struct {
	Argv []string
	Log  *slog.Logger

	// opened: the notifications (by tag) this run has told the program
	// of. Only the notifier's own goroutine touches it.
	opened map[string]bool
}

func (c *Command) Name() string { return "notify.command" }

// commandEvent is ASKUSER_EVENT for each kind of notice.
var commandEvent = map[Kind]string{KindNew: "added", KindUpdate: "updated", KindReminder: "reminder"}

func (c *Command) Announce(ctx context.Context, n Notice) {
	ids := make([]string, len(n.Requests))
	for i, p := range n.Requests {
		ids[i] = p.RequestID
	}
	agent, question := "", ""
	if len(n.Requests) > 0 {
		agent = n.Requests[0].Agent.DisplayName()
		question = firstQuestion(n.Requests[0])
	}
	permission := "0"
	if n.Permission() {
		permission = "1"
	}
	// The program sees each notification begin with "added": one that
	// this run never announced (a request restored after a restart,
	// reminded) is added first, as the reminder it is.
	event := commandEvent[n.Kind]
	if !c.opened[n.Tag] {
		event = commandEvent[KindNew]
		if c.opened == nil {
			c.opened = map[string]bool{}
		}
		c.opened[n.Tag] = true
	}
	// ASKUSER_REQUEST_ID is a request the notification announces now (the
	// first of them); ASKUSER_TAG names the notification through all its
	// calls.
	first := n.Tag
	if len(ids) > 0 {
		first = ids[0]
	}
	c.run(ctx, n.Tag,
		"ASKUSER_EVENT="+event,
		"ASKUSER_TAG="+n.Tag,
		"ASKUSER_REQUEST_ID="+first,
		"ASKUSER_REQUEST_IDS="+strings.Join(ids, " "),
		"ASKUSER_AGENT="+agent,
		"ASKUSER_QUESTION="+question,
		"ASKUSER_TITLE="+n.Title(),
		"ASKUSER_TEXT="+n.Body(),
		"ASKUSER_PERMISSION="+permission,
		"ASKUSER_WAITING="+strconv.Itoa(n.Waiting),
	)
}

func (c *Command) Withdraw(ctx context.Context, g Gone) {
	delete(c.opened, g.Tag)
	c.run(ctx, g.Tag,
		"ASKUSER_EVENT=resolved",
		"ASKUSER_TAG="+g.Tag,
		"ASKUSER_REQUEST_ID="+g.RequestID,
		"ASKUSER_OUTCOME="+string(g.Outcome),
		"ASKUSER_VIA="+string(g.Via),
		"ASKUSER_WAITING="+strconv.Itoa(g.Waiting),
	)
}

func (c *Command) run(ctx context.Context, tag string, env ...string) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Argv[0], c.Argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		if len(out) > 500 {
			out = out[:500]
		}
		c.Log.Warn("notify.command failed", "command", c.Argv, "requestId", tag, "err", err, "output", string(out))
	}
}
