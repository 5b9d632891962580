package askuserd

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"askuser/cmd/internal/command"
	"askuser/daemon"
	"askuser/internal/config"
	"askuser/socketproto"
)

// serveOptions are `askuserd serve`'s flags.
type serveOptions struct {
	socket, configPath string
	logLevel           slog.Level
}

func newServeCommand(runF func(serveOptions, command.Streams) error) *command.Command {
	return &command.Command{
		Name:    "serve",
		Summary: "the daemon alone, in the foreground",
		Synopsis: `serve [--socket PATH] [--config FILE] [--log-level debug|info|warn|error]

Runs the askuser daemon in the foreground, without a pane, until SIGINT,
SIGTERM or SIGHUP (each a clean stop). Logs go to stderr.`,
		Setup: func(fs *flag.FlagSet) command.Run {
			var o serveOptions
			fs.StringVar(&o.socket, "socket", "", "the Unix socket to listen on")
			fs.StringVar(&o.configPath, "config", "", "config.toml to read instead of $XDG_CONFIG_HOME/askuser/config.toml")
			logLevel := fs.String("log-level", "info", "debug, info, warn or error")
			return func(_ []string, s command.Streams) error {
				if err := o.logLevel.UnmarshalText([]byte(*logLevel)); err != nil {
					why := fmt.Sprintf("--log-level: want debug, info, warn or error, got %q", *logLevel)
					openStartStatus().refused(errors.New(why))
					return command.UsageError{Msg: why}
				}
				return runF(o, s)
			}
		},
		// The program that started this daemon waits to hear that it will
		// not run.
		NotRun: func(error) { openStartStatus().refused(errors.New("usage: see askuserd serve --help")) },
	}
}

// runServe is `askuserd serve`: config, then daemon.Run until a signal.
func runServe(o serveOptions, s command.Streams) error {
	status := openStartStatus()
	logger := slog.New(slog.NewTextHandler(s.Err, &slog.HandlerOptions{Level: o.logLevel}))
	cfg, err := config.Load(o.configPath)
	if err != nil {
		refuse(s.Err, "refusing to start: "+err.Error())
		status.refused(err)
		return command.Exit(command.ExitFailed)
	}
	for _, w := range cfg.Warnings {
		logger.Warn(w)
	}

	// SIGHUP too: a daemon started from a terminal that closes must stop
	// cleanly (socket removed, journal synced), not die mid-write.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// After the first signal, a second one is not swallowed: it ends the
	// process at once should shutting down ever hang.
	go func() { <-ctx.Done(); stop() }()
	// And one signal is enough whatever hangs: a stop takes at most
	// stopWithin.
	stopped := exitIfStuck(ctx, s.Err, "askuserd")
	err = daemon.Run(ctx, daemon.Options{
		Config:          cfg,
		SocketPath:      cfg.SocketPath(o.socket),
		PendingFilePath: cfg.PendingFilePath(),
		Logger:          logger,
		Version:         daemon.Version,
		Ready:           status.ready,
		ConfigFile:      cmp.Or(o.configPath, config.DefaultPath()),
	})
	stopped()
	if err != nil {
		refuse(s.Err, strings.TrimPrefix(err.Error(), "askuserd: "))
		status.refused(err)
		return command.Exit(command.ExitFailed)
	}
	return nil
}

// refuse says why the daemon will not run (as "askuserd:", the daemon's
// own voice, not "askuserd serve:"), as a sentence for the person
// who typed the command (or who reads an autostarted daemon's log). A
// program that started the daemon learns it from the start-status pipe,
// typed, never by reading this.
func refuse(stderr io.Writer, why string) {
	fmt.Fprintf(stderr, "askuserd: %s\n", why)
}

// startStatus is the start-status pipe of docs/contract.md §2, when the
// program that started this daemon asked for one (ASKUSER_START_FD): one
// line, ready or refused, then closed. Without one its methods do nothing.
type startStatus struct{ f *os.File }

func openStartStatus() *startStatus {
	v := os.Getenv(socketproto.StartFDEnv)
	if v == "" {
		return &startStatus{}
	}
	// Not for the daemon's own children (a notify command).
	os.Unsetenv(socketproto.StartFDEnv)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return &startStatus{}
	}
	return &startStatus{f: os.NewFile(uintptr(fd), "start-status")}
}

func (s *startStatus) ready() {
	s.say(socketproto.StartStatus{Ready: true, Pid: os.Getpid()})
}

func (s *startStatus) refused(err error) {
	code := socketproto.StartRefused
	// Another daemon on this socket answers its clients; one on another
	// socket that holds the state dir does not, and would leave a client
	// that started this one polling a socket nobody will listen on.
	if errors.Is(err, daemon.ErrAlreadyRunning) && !errors.Is(err, daemon.ErrStateDirInUse) {
		code = socketproto.StartAlreadyRunning
	}
	s.say(socketproto.StartStatus{Code: code, Message: strings.TrimPrefix(err.Error(), "askuserd: ")})
}

func (s *startStatus) say(st socketproto.StartStatus) {
	if s.f == nil {
		return
	}
	line, _ := socketproto.Encode(st)
	_, _ = s.f.Write(line)
	_ = s.f.Close()
	s.f = nil
}
