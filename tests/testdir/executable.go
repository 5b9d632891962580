package testdir

import (
	"os"
	"syscall"
	"testing"
)

// WriteExecutable writes a program (a script, a copied binary) that the test
// will run. A file written while parallel tests start processes can fail to
// run with "text file busy": a child forked in the moment the file is open
// for writing holds that descriptor until it execs, and Linux refuses to
// exec a file open for writing (golang/go#22315). syscall.ForkLock is the
// lock every fork in this process takes for writing, so holding it for
// reading from open to close means no child can inherit the descriptor.
func WriteExecutable(t testing.TB, path string, content []byte, perm os.FileMode) {
	t.Helper()
	syscall.ForkLock.RLock()
	err := os.WriteFile(path, content, perm)
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
}

// CopyExecutable copies the program at src to dst, as WriteExecutable
// writes it, runnable by every user (tests run copies as other users).
func CopyExecutable(t testing.TB, src, dst string) {
	t.Helper()
	content, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	WriteExecutable(t, dst, content, 0o755)
}
