package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"askuser/daemon"
	"askuser/internal/config"
)

const stopUsage = `usage: askuserd stop [--socket PATH] [--config FILE]

Stops the daemon listening on the socket cleanly (SIGTERM to the pid its lock
file names) and waits until it has exited. Its pending questions stay in its
state dir and come back when a daemon starts again.
`

// stopWait bounds how long stop waits for the daemon to exit.
const stopWait = 10 * time.Second

// runStop is `askuserd stop`.
func runStop(args []string) int {
	fs := flag.NewFlagSet("askuserd stop", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	socket := fs.String("socket", "", "the socket of the daemon to stop")
	configPath := fs.String("config", "", "config.toml to read instead of $XDG_CONFIG_HOME/askuser/config.toml")
	if code, ok := parseFlags(fs, args, stopUsage, false); !ok {
		return code
	}
	cfg, err := config.Load(*configPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "askuserd stop: %v\n", err)
		return 1
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(os.Stderr, "askuserd stop: warning: %s\n", w)
	}
	sock := cfg.SocketPath(*socket)
	pid, held, err := daemon.ReadLock(sock)
	if err != nil {
		fmt.Fprintf(os.Stderr, "askuserd stop: %v\n", err)
		return 1
	}
	if !held {
		// Already the state asked for: not an error, as with systemctl stop.
		fmt.Fprintf(os.Stderr, "askuserd stop: no daemon is running on %s\n", sock)
		return 0
	}
	if pid == 0 {
		fmt.Fprintf(os.Stderr, "askuserd stop: a daemon holds the lock beside %s but did not write its pid\n", sock)
		return 1
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		fmt.Fprintf(os.Stderr, "askuserd stop: signalling pid %d: %v\n", pid, err)
		return 1
	}
	deadline := time.Now().Add(stopWait)
	for time.Now().Before(deadline) {
		if _, held, _ := daemon.ReadLock(sock); !held {
			fmt.Fprintf(os.Stderr, "askuserd (pid %d) stopped\n", pid)
			return 0
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "askuserd stop: pid %d still runs after %s; kill -9 %d would stop it (its questions are on disk)\n",
		pid, stopWait, pid)
	return 1
}
