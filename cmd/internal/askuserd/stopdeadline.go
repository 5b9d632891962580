package askuserd

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"askuser/cmd/internal/command"
)

// stopWithin is how long a stop asked for by a signal may take
// (docs/contract.md §2): a clean stop takes milliseconds, and a process
// past this is waiting on something that may never come (a file system
// that hangs, an open that blocks).
const stopWithin = 1500 * time.Millisecond

// exit is os.Exit; a test replaces it.
var exit = os.Exit

// exitIfStuck makes sure the process ends within stopWithin of ctx ending
// (the signal), whatever it is waiting on: past that, it says so on stderr
// and exits. The returned func is called once the clean stop is done.
// What a clean stop would have done is not lost: every acknowledged change
// is already written, and a stale socket is removed by the next start.
func exitIfStuck(ctx context.Context, stderr io.Writer, who string) (stopped func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		t := time.NewTimer(stopWithin)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			fmt.Fprintf(stderr, "%s: not stopped cleanly within %v of the signal (something it waits on hangs; see above); exiting now\n", who, stopWithin)
			exit(command.ExitFailed)
		}
	}()
	return sync.OnceFunc(func() { close(done) })
}
