// Package tests holds askuser's end-to-end tests but the web pane's
// (tests/web) and the real agents' (tests/agents): the real binaries, on a
// real socket, with real files, in temporary directories.
package tests

import (
	"os"
	"testing"

	"askuser/tests/testenv"
)

// Env is the harness's isolated user environment, under the name this
// package's tests use.
type Env = testenv.Env

// NewEnv makes an Env's temporary directories; nothing runs yet.
func NewEnv(t *testing.T) *Env { return testenv.New(t) }

func TestMain(m *testing.M) {
	if marker := os.Getenv(fakeDaemonEnv); marker != "" {
		// This test binary started as askuserd by a client under test.
		os.Exit(refuseAfterTheClientReachedUs(marker))
	}
	os.Exit(testenv.Main(m, "askuser/tests"))
}
