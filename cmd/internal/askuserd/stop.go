package askuserd

import (
	"flag"
	"fmt"
	"syscall"
	"time"

	"askuser/cmd/internal/clientflags"
	"askuser/cmd/internal/command"
	"askuser/daemon"
)

// stopOptions are `askuserd stop`'s flags.
type stopOptions struct {
	socket, configPath string
}

func newStopCommand(runF func(stopOptions, command.Streams) error) *command.Command {
	return &command.Command{
		Name:    "stop",
		Summary: "stop the running daemon and wait for it",
		Synopsis: `stop [--socket PATH] [--config FILE]

Stops the daemon listening on the socket cleanly (SIGTERM to the pid its lock
file names) and waits until it has exited. Its pending questions stay in its
state dir and come back when a daemon starts again.`,
		Setup: func(fs *flag.FlagSet) command.Run {
			var o stopOptions
			fs.StringVar(&o.socket, "socket", "", "the socket of the daemon to stop")
			fs.StringVar(&o.configPath, "config", "", "config.toml to read instead of $XDG_CONFIG_HOME/askuser/config.toml")
			return func(_ []string, s command.Streams) error { return runF(o, s) }
		},
	}
}

// stopWait bounds how long stop waits for the daemon to exit.
const stopWait = 10 * time.Second

// runStop is `askuserd stop`.
func runStop(o stopOptions, s command.Streams) error {
	// Whatever else config.toml says, stop finds the daemon and stops it.
	cfg := clientflags.LoadWhere(o.configPath, s.Err, "askuserd stop")
	sock := cfg.SocketPath(o.socket)
	pid, held, err := daemon.ReadLock(sock)
	if err != nil {
		return err
	}
	if !held {
		// Already the state asked for: not an error, as with systemctl stop.
		fmt.Fprintf(s.Err, "askuserd stop: no daemon is running on %s\n", sock)
		return nil
	}
	if pid == 0 {
		return fmt.Errorf("a daemon holds the lock beside %s but did not write its pid", sock)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("signalling pid %d: %v", pid, err)
	}
	deadline := time.Now().Add(stopWait)
	for time.Now().Before(deadline) {
		if _, held, _ := daemon.ReadLock(sock); !held {
			fmt.Fprintf(s.Err, "askuserd (pid %d) stopped\n", pid)
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("pid %d still runs after %s; kill -9 %d would stop it (its questions are on disk)", pid, stopWait, pid)
}
