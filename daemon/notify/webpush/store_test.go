package webpush

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"askuser/internal/statefile"
)

// A FIFO at either of the store's files is refused at once, named, and
// left in place: opening it to read would wait for a writer for good.
func TestStoreRefusesAFIFO(t *testing.T) {
	for _, file := range []string{subsFile, keyFile} {
		t.Run(file, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, file)
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(dir, false)
			if err == nil {
				_, err = s.PublicKey()
			}
			var nr *statefile.NotRegularError
			if !errors.As(err, &nr) || !strings.Contains(err.Error(), path+" is a FIFO, not a regular file; ") {
				t.Fatalf("got %v, want %s refused as a FIFO", err, path)
			}
			if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("the FIFO was not left alone: %v, %v", fi, err)
			}
		})
	}
}
