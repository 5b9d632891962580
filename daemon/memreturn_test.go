package daemon

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestMemoryReturn: memory is given back once, after the steps stop for a
// quiet second, only when there is enough to give, and never by a daemon
// that does nothing.
func TestMemoryReturn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newMemoryReturn()
		// Atomics: synctest.Wait orders nothing for the race detector.
		var beyond, given atomic.Uint64
		beyond.Store(returnAtLeast)
		m.beyondLive = beyond.Load
		m.give = func() { given.Add(1) }
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go m.run(ctx)

		time.Sleep(time.Hour)
		synctest.Wait()
		if given.Load() != 0 {
			t.Fatalf("an idle daemon gave memory back %d times", given.Load())
		}

		// A burst: steps every 100 ms for 3 s. Nothing is given back while
		// it lasts.
		for range 30 {
			m.stepped()
			time.Sleep(100 * time.Millisecond)
		}
		synctest.Wait()
		if given.Load() != 0 {
			t.Fatalf("memory given back during the burst (%d times)", given.Load())
		}
		time.Sleep(quietBeforeReturn)
		synctest.Wait()
		if given.Load() != 1 {
			t.Fatalf("after the burst and a quiet second: given back %d times, want once", given.Load())
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if given.Load() != 1 {
			t.Fatalf("quiet afterwards: given back %d times, want once", given.Load())
		}

		// A step that left little behind gives nothing back.
		beyond.Store(returnAtLeast - 1)
		m.stepped()
		time.Sleep(2 * quietBeforeReturn)
		synctest.Wait()
		if given.Load() != 1 {
			t.Fatalf("with %d bytes beyond live: given back %d times, want no more", beyond.Load(), given.Load())
		}
		cancel()
	})
}
