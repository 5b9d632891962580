package daemon

import (
	"log/slog"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// A client's line waits while maxInbox functions wait to run, as it waited
// for a full channel before; the queue's own posts (timers, steps) never
// wait, or a step posting to a full inbox would wait for itself.
func TestAClientsLineWaitsForRoomInTheInbox(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(Options{}, slog.New(slog.DiscardHandler))
		q.steps.Lock() // as a goroutine running steps holds it
		for range maxInbox {
			if !q.post(func(*state) {}) {
				t.Fatal("post refused before the queue stopped")
			}
		}
		var added atomic.Bool
		go func() {
			if q.postLine(func(*state) {}) {
				added.Store(true)
			}
		}()
		synctest.Wait()
		if added.Load() {
			t.Fatal("a client's line went into a full inbox")
		}
		if !q.post(func(*state) {}) {
			t.Fatal("the queue's own post waited for room, or was refused")
		}
		q.runGroups(1) // one group taken: room again
		q.steps.Unlock()
		synctest.Wait()
		if !added.Load() {
			t.Fatal("the client's line still waits with room in the inbox")
		}
	})
}
