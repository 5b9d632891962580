package askuserd

import (
	"log/slog"
	"os"

	"golang.org/x/sys/unix"

	"askuser/internal/statefile"
)

// paneLog appends the pane's own log lines (the raw errors behind a "Not
// connected" notice) to path, the daemon's log: the terminal is the pane's
// screen, and askuserd.log is where every error of askuserd is looked for.
// A line that cannot be written is dropped: it is only the detail behind a
// notice the user already sees.
func paneLog(path string) func(line string) {
	return func(line string) {
		// Through statefile: a FIFO at the log's path must not block the pane.
		f, _, err := statefile.Open(path, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT, 0o600)
		if err != nil {
			return
		}
		defer f.Close()
		slog.New(slog.NewTextHandler(f, nil)).Info("pane: "+line, "pid", os.Getpid())
	}
}
