package askuserd

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// A signal ends the process within stopWithin whatever it waits on; a clean
// stop in time is left to finish by itself.
func TestExitIfStuck(t *testing.T) {
	run := func(t *testing.T, stopTakes time.Duration) (code int, after time.Duration, said string) {
		code = -1
		synctest.Test(t, func(t *testing.T) {
			exited := make(chan int, 1)
			exit = func(c int) { exited <- c }
			defer func() { exit = nil }()
			var stderr strings.Builder
			ctx, signal := context.WithCancel(context.Background())
			stopped := exitIfStuck(ctx, &stderr, "askuserd")
			signal()
			start := time.Now()
			select {
			case code = <-exited:
				after = time.Since(start)
				said = stderr.String()
			case <-time.After(stopTakes):
				stopped()
				// synctest's clock: an hour passes at once, long past
				// stopWithin, and exit is still not called.
				time.Sleep(time.Hour)
				select {
				case code = <-exited:
				default:
				}
			}
		})
		return code, after, said
	}
	if code, _, _ := run(t, stopWithin/2); code != -1 {
		t.Errorf("a clean stop in time: exit(%d) called", code)
	}
	code, after, said := run(t, time.Hour)
	if code != 1 || after != stopWithin || !strings.Contains(said, "askuserd: not stopped cleanly within 1.5s of the signal") {
		t.Errorf("a stop that hangs: exit(%d) after %v, saying %q; want exit(1) after %v, saying why", code, after, said, stopWithin)
	}
}
