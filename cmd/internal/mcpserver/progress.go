package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"askuser/socketproto"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressInterval is how often a waiting call reports progress (docs/contract.md §8):
// clients that reset their request timeout on progress keep waiting for a
// person who may take minutes. A variable so tests can shorten it.
var progressInterval = 15 * time.Second

// progress sends progress notifications for one call while it waits,
// when the client asked for them with a progress token.
type progress struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any
	start   time.Time

	mu    sync.Mutex // keeps notifications in order of their progress value
	count float64

	done chan struct{}
	wg   sync.WaitGroup
}

// startProgress starts the ticker; stop must be called when the call ends.
func startProgress(ctx context.Context, req *mcp.CallToolRequest) *progress {
	p := &progress{ctx: ctx, session: req.Session, start: time.Now(), done: make(chan struct{})}
	if req.Params != nil {
		p.token = req.Params.GetProgressToken()
	}
	if p.token == nil || p.session == nil {
		return p
	}
	p.wg.Add(1)
	go p.loop(progressInterval)
	return p
}

func (p *progress) loop(every time.Duration) {
	defer p.wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-p.ctx.Done():
			return
		case <-t.C:
			p.send(fmt.Sprintf("still waiting for the user (%s)", time.Since(p.start).Round(time.Second)))
		}
	}
}

// queued is askclient.Ask's onQueued: the first notification says where the
// question waits, so a person watching the agent knows where to answer.
func (p *progress) queued(q socketproto.Queued) {
	if p.token == nil || p.session == nil {
		return
	}
	where := fmt.Sprintf("queued as %s (position %d); answer in the askuserd pane, with 'askuser-client answer %s …'",
		q.RequestID, q.Position, q.RequestID)
	if q.PendingFile != "" {
		where += ", or in " + q.PendingFile
	}
	p.send(where)
}

func (p *progress) send(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count++
	// A client that went away cannot be told; the call ends through its ctx.
	_ = p.session.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{
		ProgressToken: p.token,
		Progress:      p.count,
		Message:       msg,
	})
}

func (p *progress) stop() {
	close(p.done)
	p.wg.Wait()
}
