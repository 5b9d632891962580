package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"askuser/cmd/internal/clientflags"
	"askuser/internal/config"
	"askuser/socketproto/askclient"
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
       askuserd web [--listen ADDR] [--url] [--rotate]  the web pane, for a browser or a phone (askuserd web --help)
`

// runPane is `askuserd` without "serve" (docs/contract.md §2, §6).
func runPane(args []string) int {
	fs := flag.NewFlagSet("askuserd", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	socket := fs.String("socket", "", "the daemon's Unix socket")
	configPath := fs.String("config", "", "config.toml to read")
	split := fs.Bool("split", false, "open the pane in a new tmux split")
	demo := fs.Bool("demo", false, "show fixture questions, without any daemon")
	if code, ok := parseFlags(fs, args, paneUsage, false); !ok {
		return code
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
		Warnings:   cfg.Warnings,
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
	if err := ensureDaemon(opt.Socket, *configPath, cfg); err != nil {
		fmt.Fprintf(os.Stderr, "askuserd: %v\n", err)
		return 1
	}
	// A daemon that crashes is started again, the way it was started here;
	// one stopped on purpose stays stopped.
	opt.RestartDaemon = func() error { return ensureDaemon(opt.Socket, *configPath, cfg) }
	opt.Log = paneLog(cfg.DaemonLogPath())
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
	argv := []string{"split-window", "-h"}
	// tmux's "current pane" is the attached client's; with no client (a
	// detached session, a script) it is window 0. TMUX_PANE names the pane
	// this command runs in, which is the one to split.
	if pane := os.Getenv("TMUX_PANE"); pane != "" {
		argv = append(argv, "-t", pane)
	}
	argv = append(argv, exe, "--socket", socket)
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

// ensureDaemon starts `askuserd serve` (this same binary) in the background
// when nothing answers on the socket, and waits until it does: the same
// autostart askuser-client uses.
func ensureDaemon(socket, configPath string, cfg config.Config) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	// socket is resolved already, and ClientOptions keeps it as it is.
	opts := clientflags.ClientOptions(cfg, socket, configPath, true)
	opts.DaemonBinary = exe
	c, err := askclient.Connect(context.Background(), opts)
	if err != nil {
		return err
	}
	return c.Close()
}
