package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"golang.org/x/term"

	"askuser/daemon"
	"askuser/daemon/config"
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
	if code, ok := parseFlags(fs, args, serveUsage, true); !ok {
		return code
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(os.Stderr, "askuserd serve: --log-level: want debug, info, warn or error, got %q\n", *logLevel)
		return 2
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	cfg, err := config.Load(*configPath)
	if err != nil {
		refuse(logger, "refusing to start: "+err.Error())
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
	})
	if err != nil {
		refuse(logger, strings.TrimPrefix(err.Error(), "askuserd: "))
		return 1
	}
	return 0
}

// refuse says why the daemon will not run. On a terminal it is a sentence
// for the person who typed the command; otherwise stderr is the daemon's
// log (an autostarted daemon's askuserd.log, journald), whose lines are all
// structured, so it is one more of those.
func refuse(logger *slog.Logger, why string) {
	if term.IsTerminal(int(os.Stderr.Fd())) {
		fmt.Fprintf(os.Stderr, "askuserd: %s\n", why)
		return
	}
	logger.Error("askuserd will not run", "reason", why)
}
