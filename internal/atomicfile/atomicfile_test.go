package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	for _, content := range []string{"first", "second, longer than the first"} {
		if err := Write(path, []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", fi.Mode().Perm())
	}
	if left, _ := filepath.Glob(TempPattern(path)); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestWriteRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "target"), link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{fifo: "a FIFO", link: "a symlink", sub: "a directory"} {
		err := Write(path, []byte("x"), 0o600)
		var nr *NotRegularError
		if !errors.As(err, &nr) || Kind(nr.Mode) != kind {
			t.Errorf("%s: %v, want it refused as %s", path, err, kind)
		}
		fi, _ := os.Lstat(path)
		if fi.Mode().IsRegular() {
			t.Errorf("%s was replaced", path)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestWriteMissingDir(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "no", "such"), []byte("x"), 0o600); err == nil {
		t.Fatal("written into a missing directory")
	}
}

// A failure is reported against the file being written, not the temporary
// file's name, which differs at every try: the same trouble reads the same.
func TestWriteFailureNamesThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gone", "state.jsonl")
	err1, err2 := Write(path, []byte("x"), 0o600), Write(path, []byte("x"), 0o600)
	if err1 == nil || err1.Error() != err2.Error() || !strings.Contains(err1.Error(), path+":") {
		t.Errorf("errors %q and %q; want the same, naming %s", err1, err2, path)
	}
}
