// Package testdir makes the directories and files tests need. It imports
// nothing of askuser, so that any package's tests may use it, socketproto's
// included.
package testdir

import (
	"os"
	"testing"
)

// Private is a temporary directory only the user may enter, as clients
// require of the socket's directory (t.TempDir's is 0755).
func Private(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}
