package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"askuser/daemon/config"
	"askuser/socketproto"
	"askuser/views"
)

const paneUsage = `usage: askuserd [--socket PATH] [--config PATH] [--split] [--demo]

Opens the pane in this terminal, starting the daemon in the background first
if none answers on the socket. q (or Ctrl-C) quits the pane; the daemon and
its questions go on.

  --split   inside tmux: open the pane in a new split beside this one
  --demo    show fixture questions, without any daemon

       askuserd serve [--socket PATH] [--config PATH]   the daemon alone, in the foreground
       askuserd stop [--socket PATH] [--config PATH]    stop the running daemon and wait for it
`

// runPane is `askuserd` without "serve" (SPEC §2, §6).
func runPane(args []string) int {
	fs := flag.NewFlagSet("askuserd", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	socket := fs.String("socket", "", "the daemon's Unix socket")
	configPath := fs.String("config", "", "config.toml to read")
	split := fs.Bool("split", false, "open the pane in a new tmux split")
	demo := fs.Bool("demo", false, "show fixture questions, without any daemon")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(os.Stdout, paneUsage)
			return 0
		}
		fmt.Fprintf(os.Stderr, "askuserd: %v\n%s", err, paneUsage)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "askuserd: unexpected argument %q\n%s", fs.Arg(0), paneUsage)
		return 2
	}
	cfg, err := config.Load(*configPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "askuserd: %v\n", err)
		return 1
	}
	opt := views.Options{
		Socket:     cfg.SocketPath(*socket),
		SoftLimit:  cfg.Limits.AnswerSoftLimit,
		Bell:       cfg.UI.Bell,
		Editor:     cfg.Editor(),
		InputGuard: cfg.UI.InputGuard.Duration,
	}
	if *split {
		return splitPane(opt.Socket, *configPath, *demo)
	}
	if *demo {
		if err := views.RunDemo(opt); err != nil {
			fmt.Fprintf(os.Stderr, "askuserd: %v\n", err)
			return 1
		}
		return 0
	}
	if err := ensureDaemon(opt.Socket, *configPath, cfg.StateDir()); err != nil {
		fmt.Fprintf(os.Stderr, "askuserd: %v\n", err)
		return 1
	}
	if err := views.Run(opt, cfg.Limits.MaxMessageBytes); err != nil {
		fmt.Fprintf(os.Stderr, "askuserd: %v\n", err)
		return 1
	}
	return 0
}

// splitPane runs this same pane in a new tmux split. The socket is passed
// explicitly: the new pane runs in the tmux server's environment, which may
// not have this shell's XDG_RUNTIME_DIR or ASKUSER_SOCKET.
func splitPane(socket, configPath string, demo bool) int {
	if os.Getenv("TMUX") == "" {
		fmt.Fprintln(os.Stderr, "askuserd --split needs tmux: run it inside a tmux session")
		return 2
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "askuserd: %v\n", err)
		return 1
	}
	argv := []string{"split-window", "-h", exe, "--socket", socket}
	if configPath != "" {
		abs, _ := filepath.Abs(configPath)
		argv = append(argv, "--config", abs)
	}
	if demo {
		argv = append(argv, "--demo")
	}
	out, err := exec.Command("tmux", argv...).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "askuserd: tmux split-window: %v: %s\n", err, out)
		return 1
	}
	return 0
}

// ensureDaemon starts `askuserd serve` in the background when nothing
// answers on the socket, and waits until it does.
func ensureDaemon(socket, configPath, stateDir string) error {
	if c, err := socketproto.Dial(socket, 0); err == nil {
		c.Close()
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	logPath := filepath.Join(stateDir, "askuserd.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("daemon log: %w", err)
	}
	defer logf.Close()
	argv := []string{"serve", "--socket", socket}
	if configPath != "" {
		argv = append(argv, "--config", configPath)
	}
	cmd := exec.Command(exe, argv...)
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own session: the daemon outlives this pane and its terminal.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting askuserd serve: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // reap it if it dies while the pane runs
	var exitErr error
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := socketproto.Dial(socket, 0); err == nil {
			c.Close()
			return nil
		}
		select {
		case err := <-exited:
			// Another pane may have started a daemon at the same moment, and
			// ours stepped aside: keep waiting for that one to answer.
			exitErr = fmt.Errorf("askuserd serve exited (%v)", err)
			exited = nil
		case <-time.After(20 * time.Millisecond):
		}
	}
	if exitErr != nil {
		return fmt.Errorf("%v and nothing answers on %s; see %s", exitErr, socket, logPath)
	}
	return fmt.Errorf("askuserd serve did not answer on %s within 10s; see %s", socket, logPath)
}
