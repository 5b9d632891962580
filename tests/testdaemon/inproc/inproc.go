// Package inproc runs the real daemon in-process for tests outside package
// daemon (whose own tests cannot import a package that imports it).
package inproc

import (
	"context"
	"testing"

	"askuser/daemon"
	"askuser/internal/config"
	"askuser/tests/testdaemon"
)

// Run is daemon.Run as a testdaemon.Runner.
func Run(ctx context.Context, s testdaemon.Setup) error {
	return daemon.Run(ctx, daemon.Options{Config: s.Config, SocketPath: s.Socket,
		PendingFilePath: s.PendingFile, Logger: s.Logger, Ready: s.Ready})
}

// Start runs a daemon in a fresh directory until the test ends (or its
// Stop); cfg may adjust the configuration.
func Start(t testing.TB, cfg func(*config.Config)) *testdaemon.Daemon {
	t.Helper()
	return testdaemon.Serve(t, Run, "", cfg)
}
