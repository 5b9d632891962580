package askuserd

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"askuser/cmd/internal/clientflags"
	"askuser/cmd/internal/command"
	"askuser/internal/config"
	"askuser/internal/webdevices"
	"askuser/socketproto/askclient"
	"askuser/views"
)

// paneOptions are the flags of `askuserd` with no command: the pane.
type paneOptions struct {
	socket, configPath string
	split, demo        bool
}

func newPaneCommand(runF func(paneOptions, command.Streams) error) *command.Command {
	return &command.Command{
		Synopsis: `[--socket PATH] [--config PATH] [--split] [--demo]

Opens the pane in this terminal, starting the daemon in the background first
if none answers on the socket. q (or Ctrl-C) quits the pane; the daemon and
its questions go on.`,
		Setup: func(fs *flag.FlagSet) command.Run {
			var o paneOptions
			fs.StringVar(&o.socket, "socket", "", "the daemon's Unix socket")
			fs.StringVar(&o.configPath, "config", "", "config.toml to read")
			fs.BoolVar(&o.split, "split", false, "inside tmux: open the pane in a new split beside this one")
			fs.BoolVar(&o.demo, "demo", false, "show fixture questions, without any daemon")
			return func(_ []string, s command.Streams) error { return runF(o, s) }
		},
	}
}

// runPane is `askuserd` without a command (docs/contract.md §2, §6).
func runPane(o paneOptions, s command.Streams) error {
	// A config.toml that does not load does not keep the user from their
	// questions: the pane opens on its defaults and says why, in the pane
	// (a daemon already running keeps its last good config).
	cfg, warning := config.LoadWhere(o.configPath)
	if warning != "" {
		cfg.Warnings = append([]string{warning}, cfg.Warnings...)
	}
	opt := views.Options{
		Socket:     cfg.SocketPath(o.socket),
		SoftLimit:  cfg.Limits.AnswerSoftLimit,
		Bell:       cfg.UI.Bell,
		Editor:     cfg.Editor(),
		InputGuard: cfg.UI.InputGuard.Duration,
		Warnings:   cfg.Warnings,
		Devices:    &webdevices.Store{Dir: cfg.StateDir()},
	}
	opt.Unsubscribe = func(endpoint string) error { return unsubscribe(opt.Socket, cfg.Limits.MaxMessageBytes, endpoint) }
	if o.split {
		return splitPane(opt.Socket, o.configPath, o.demo, s)
	}
	if o.demo {
		return views.RunDemo(opt)
	}
	if err := ensureDaemon(opt.Socket, o.configPath, cfg); err != nil {
		return err
	}
	// A daemon that crashes is started again, the way it was started here;
	// one stopped on purpose stays stopped.
	opt.RestartDaemon = func() error { return ensureDaemon(opt.Socket, o.configPath, cfg) }
	opt.Log = paneLog(cfg.DaemonLogPath())
	return views.Run(opt, cfg.Limits.MaxMessageBytes)
}

// splitPane runs this same pane in a new tmux split. The socket is passed
// explicitly: the new pane runs in the tmux server's environment, which may
// not have this shell's XDG_RUNTIME_DIR or ASKUSER_SOCKET.
func splitPane(socket, configPath string, demo bool, s command.Streams) error {
	if os.Getenv("TMUX") == "" {
		fmt.Fprintln(s.Err, "askuserd --split needs tmux: run it inside a tmux session")
		return command.Exit(command.ExitUsage)
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	argv := []string{"split-window", "-h"}
	// tmux's "current pane" is the attached client's; with no client (a
	// detached session, a script) it is window 0. TMUX_PANE names the pane
	// this command runs in, which is the one to split.
	var target []string
	if pane := os.Getenv("TMUX_PANE"); pane != "" {
		target = []string{"-t", pane}
	}
	argv = append(argv, target...)
	// Halved, an 80-column terminal leaves 39: one too few for the pane,
	// which would only say "terminal too small". Take what it needs then.
	width, err := exec.Command("tmux", append(append([]string{"display-message", "-p"}, target...), "#{pane_width}")...).Output()
	if w, werr := strconv.Atoi(strings.TrimSpace(string(width))); err == nil && werr == nil && (w-1)/2 < views.MinWidth {
		argv = append(argv, "-l", strconv.Itoa(views.MinWidth))
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
		return fmt.Errorf("tmux split-window: %v: %s", err, out)
	}
	return nil
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
