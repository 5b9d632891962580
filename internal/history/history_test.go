package history

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"

	"askuser/internal/statefile"
)

// askuser-client history with a FIFO at history.jsonl says what is there
// at once, instead of waiting for a writer for good.
func TestLastRefusesAFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), File)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := Last(path, 0)
	var nr *statefile.NotRegularError
	if !errors.As(err, &nr) || err.Error() != path+" is a FIFO, not a regular file" {
		t.Fatalf("got %v, want %s refused as a FIFO", err, path)
	}
}
