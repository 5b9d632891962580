package testdir

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// A program written while other goroutines start processes runs: none of
// them holds it open for writing. Written with a bare os.WriteFile, the
// first few runs already fail with "text file busy".
func TestWriteExecutableRunsWhileOthersFork(t *testing.T) {
	dir := t.TempDir()
	stop := make(chan struct{})
	var forks sync.WaitGroup
	for range 4 {
		forks.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = exec.Command("true").Run()
			}
		})
	}
	defer forks.Wait()
	defer close(stop)
	for i := range 300 {
		script := filepath.Join(dir, fmt.Sprintf("script-%d", i))
		WriteExecutable(t, script, []byte("#!/bin/sh\nexit 0\n"), 0o700)
		if out, err := exec.Command(script).CombinedOutput(); err != nil {
			t.Fatalf("run %d: %v %s", i, err, out)
		}
	}
}
