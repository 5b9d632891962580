package daemon

import (
	"sort"
	"sync"
	"time"
)

// Memory is bounded in bytes whatever clients do (docs/contract.md §4). Two things a
// client can make the daemon hold grow with what it sends or fails to read:
//
//   - unread output: lines queued for a connection that does not read
//     them. Each connection may hold ConnOutputBytes beyond the line being
//     written; all of them together OutputBytes. A connection past its own
//     budget is closed with an error; when the total is past its budget,
//     the connections with the most unread output are closed until it fits.
//     A line is counted once per connection it waits for, an upper bound
//     (an event sent to ten subscribers is encoded once and shared).
//   - unfinished input: a line read in part. Each connection may hold
//     max_message_bytes of it; all of them together InputBytes beyond the
//     first inputFreeBytes of each. A reader that would need more waits
//     for room; a line not finished within LineTimeout closes its
//     connection, so a client that never finishes cannot hold room forever.
//
// The defaults below are what the README states.
const (
	defaultConnOutputBytes = 4 << 20
	defaultOutputBytes     = 128 << 20
	defaultInputBytes      = 128 << 20
	inputFreeBytes         = 4 << 10
	defaultLineTimeout     = 30 * time.Second
)

// inputBudget is the daemon-wide room for unfinished input lines.
type inputBudget struct {
	mu    sync.Mutex
	used  int
	limit int
	freed chan struct{} // closed (and replaced) whenever room is given back
	stop  chan struct{} // closed at shutdown: nobody waits any more
}

func newInputBudget(limit int) *inputBudget {
	return &inputBudget{limit: limit, freed: make(chan struct{}), stop: make(chan struct{})}
}

// take reserves n bytes, waiting for room until deadline. It reports false
// when the deadline passed or the daemon is stopping.
func (b *inputBudget) take(n int, deadline time.Time) bool {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		b.mu.Lock()
		if b.used+n <= b.limit {
			b.used += n
			b.mu.Unlock()
			return true
		}
		freed := b.freed
		b.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(time.Until(deadline))
		}
		select {
		case <-freed:
		case <-timer.C:
			return false
		case <-b.stop:
			return false
		}
	}
}

// give returns n reserved bytes and wakes whoever waits for room.
func (b *inputBudget) give(n int) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
}

// inUse is the bytes reserved now (for tests and benchmarks).
func (b *inputBudget) inUse() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// shutdown wakes every waiting reader for good.
func (b *inputBudget) shutdown() { close(b.stop) }

// outputBudget is the daemon-wide room for unread output. It knows every
// outbox so that, past its limit, it can close the ones holding the most.
type outputBudget struct {
	limit int

	mu    sync.Mutex
	used  int
	boxes map[*outbox]struct{}
}

func newOutputBudget(limit int) *outputBudget {
	return &outputBudget{limit: limit, boxes: map[*outbox]struct{}{}}
}

func (b *outputBudget) register(o *outbox) {
	b.mu.Lock()
	b.boxes[o] = struct{}{}
	b.mu.Unlock()
}

func (b *outputBudget) unregister(o *outbox) {
	b.mu.Lock()
	delete(b.boxes, o)
	b.mu.Unlock()
}

// add counts n more bytes waiting; past the limit, the connections with the
// most unread output are closed until the total fits again. Called without
// any outbox's lock held.
func (b *outputBudget) add(n int) {
	b.mu.Lock()
	b.used += n
	over := b.used > b.limit
	b.mu.Unlock()
	if over {
		b.shed()
	}
}

// sub counts n bytes written or dropped.
func (b *outputBudget) sub(n int) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// inUse is the bytes waiting now (for tests and benchmarks).
func (b *outputBudget) inUse() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// shed closes outboxes until the total fits: first the ones that have
// taken nothing for the longest (a client that stopped reading), the
// biggest first among equals. A reader that keeps up has written lately and
// goes last. What an outbox being closed still holds is counted as freed:
// its writer gives it back within evictGrace, and shedding more for it
// would close readers that keep up.
func (b *outputBudget) shed() {
	type box struct {
		o       *outbox
		size    int
		since   time.Time
		closing bool
	}
	b.mu.Lock()
	boxes := make([]box, 0, len(b.boxes))
	for o := range b.boxes {
		boxes = append(boxes, box{o: o})
	}
	b.mu.Unlock()
	freeing := 0
	for i := range boxes {
		x := &boxes[i]
		x.size, x.since, x.closing = x.o.condition()
		if x.closing {
			freeing += x.size
		}
	}
	sort.Slice(boxes, func(i, j int) bool {
		if !boxes[i].since.Equal(boxes[j].since) {
			return boxes[i].since.Before(boxes[j].since)
		}
		return boxes[i].size > boxes[j].size
	})
	for _, x := range boxes {
		if b.inUse()-freeing <= b.limit {
			return
		}
		if x.size > 0 && !x.closing {
			x.o.evict()
			freeing += x.size
		}
	}
}
