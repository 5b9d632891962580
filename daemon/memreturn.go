package daemon

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// A burst (10,000 agents asking within a second, the pending file rewritten
// under it) leaves the heap much larger than what the queue then holds: Go
// keeps freed pages, up to twice what is live, for the next burst. A daemon
// whose queue then waits, for hours perhaps, gives them back instead: once
// it has been quiet for quietBeforeReturn after some work, if the heap holds
// more than returnAtLeast bytes beyond what is live, a collection runs and
// the free pages go back to the system. An idle daemon does not wake for it.
const (
	quietBeforeReturn = time.Second
	returnAtLeast     = 16 << 20
)

// memoryReturn gives back the memory a burst of work left behind.
type memoryReturn struct {
	steps atomic.Uint64 // the queue's steps so far
	armed atomic.Bool   // run waits on wake for the next step
	wake  chan struct{}

	beyondLive func() uint64 // heapBeyondLive (tests: another measure)
	give       func()        // debug.FreeOSMemory (tests: a count)
}

func newMemoryReturn() *memoryReturn {
	return &memoryReturn{wake: make(chan struct{}, 1), beyondLive: heapBeyondLive, give: debug.FreeOSMemory}
}

// stepped is called by the queue after each group of steps: a counter, and
// a wake-up only for the first step after a quiet time.
func (m *memoryReturn) stepped() {
	m.steps.Add(1)
	if m.armed.Load() && m.armed.CompareAndSwap(true, false) {
		select {
		case m.wake <- struct{}{}:
		default:
		}
	}
}

// run waits for work, then for quiet after it, then gives memory back if
// there is enough to give; until ctx ends.
func (m *memoryReturn) run(ctx context.Context) {
	for {
		m.armed.Store(true)
		select {
		case <-m.wake:
		case <-ctx.Done():
			return
		}
		if !m.waitQuiet(ctx) {
			return
		}
		if m.beyondLive() >= returnAtLeast {
			m.give()
		}
	}
}

// waitQuiet returns true once no step came for quietBeforeReturn, false
// when ctx ended first. It wakes once per quietBeforeReturn, not per step.
func (m *memoryReturn) waitQuiet(ctx context.Context) bool {
	t := time.NewTimer(quietBeforeReturn)
	defer t.Stop()
	for {
		seen := m.steps.Load()
		select {
		case <-t.C:
		case <-ctx.Done():
			return false
		}
		if m.steps.Load() == seen {
			return true
		}
		t.Reset(quietBeforeReturn)
	}
}

// heapBeyondLive is the heap memory the process holds (not returned to the
// system) beyond what was live at the last collection.
func heapBeyondLive() uint64 {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	metrics.Read(s)
	held := s[0].Value.Uint64() + s[1].Value.Uint64() + s[2].Value.Uint64()
	live := s[3].Value.Uint64()
	if held < live {
		return 0
	}
	return held - live
}
