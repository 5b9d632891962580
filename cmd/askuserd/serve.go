package main

import (
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

	"askuser/daemon"
	"askuser/internal/config"
	"askuser/socketproto"
)

const serveUsage = `usage: askuserd serve [--socket PATH] [--config FILE] [--log-level debug|info|warn|error]

Runs the askuser daemon in the foreground, without a pane, until SIGINT,
SIGTERM or SIGHUP (each a clean stop). Logs go to stderr.
`

// runServe is `askuserd serve`: flags and config, then daemon.Run until a signal.
func runServe(args []string) int {
	fs := flag.NewFlagSet("askuserd serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	socket := fs.String("socket", "", "the Unix socket to listen on")
	configPath := fs.String("config", "", "config.toml to read instead of $XDG_CONFIG_HOME/askuser/config.toml")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	status := openStartStatus()
	if code, ok := parseFlags(fs, args, serveUsage, true); !ok {
		status.refused(errors.New("usage: see askuserd serve --help"))
		return code
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(os.Stderr, "askuserd serve: --log-level: want debug, info, warn or error, got %q\n", *logLevel)
		status.refused(fmt.Errorf("--log-level: want debug, info, warn or error, got %q", *logLevel))
		return 2
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	cfg, err := config.Load(*configPath)
	if err != nil {
		refuse("refusing to start: " + err.Error())
		status.refused(err)
		return 1
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
	err = daemon.Run(ctx, daemon.Options{
		Config:          cfg,
		SocketPath:      cfg.SocketPath(*socket),
		PendingFilePath: cfg.PendingFilePath(),
		Logger:          logger,
		Version:         daemon.Version,
		Ready:           status.ready,
	})
	if err != nil {
		refuse(strings.TrimPrefix(err.Error(), "askuserd: "))
		status.refused(err)
		return 1
	}
	return 0
}

// refuse says why the daemon will not run, as a sentence for the person
// who typed the command (or who reads an autostarted daemon's log). A
// program that started the daemon learns it from the start-status pipe,
// typed, never by reading this.
func refuse(why string) {
	fmt.Fprintf(os.Stderr, "askuserd: %s\n", why)
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
	if errors.Is(err, daemon.ErrAlreadyRunning) {
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
