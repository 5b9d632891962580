package daemon

import (
	"context"
	"os"
	"testing"

	"askuser/internal/config"
	"askuser/tests/testdaemon"
)

// runForTest is Run as the shared harness runs it. The daemon's own tests
// cannot use testdaemon/inproc, which imports this package.
func runForTest(ctx context.Context, s testdaemon.Setup) error {
	return Run(ctx, Options{Config: s.Config, SocketPath: s.Socket,
		PendingFilePath: s.PendingFile, Logger: s.Logger, Ready: s.Ready, ConfigFile: s.Config.Path})
}

// testDaemon runs a daemon in-process on a temporary socket; cfg may adjust
// the configuration. It stops when the test ends.
func testDaemon(t testing.TB, cfg func(*config.Config)) string {
	t.Helper()
	return testdaemon.Serve(t, runForTest, "", cfg).Socket
}

// testDaemonWith is testDaemon with the daemon's Options adjusted (memory
// budgets, timeouts).
func testDaemonWith(t testing.TB, adjust func(*Options)) string {
	t.Helper()
	run := func(ctx context.Context, s testdaemon.Setup) error {
		o := Options{Config: s.Config, SocketPath: s.Socket, PendingFilePath: s.PendingFile, Logger: s.Logger, Ready: s.Ready}
		adjust(&o)
		return Run(ctx, o)
	}
	return testdaemon.Serve(t, run, "", nil).Socket
}

// daemonAt runs a daemon in-process on the state dir of root; stop ends it
// (also at cleanup), so that a test can start another on the same state.
func daemonAt(t testing.TB, root string, cfg func(*config.Config)) (sock string, stop func()) {
	t.Helper()
	d := testdaemon.Serve(t, runForTest, root, cfg)
	return d.Socket, d.Stop
}

// eventually waits until check accepts path's content, and returns it.
func eventually(t *testing.T, path string, check func(string) bool) string {
	t.Helper()
	return testdaemon.Eventually(t, path+" to hold what the test expects", func() (bool, string) {
		data, _ := os.ReadFile(path)
		return check(string(data)), string(data)
	})
}
