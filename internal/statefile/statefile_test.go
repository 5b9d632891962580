package statefile

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// kinds makes one of each kind of file in dir and returns its path.
var kinds = map[string]func(t *testing.T, dir string) string{
	"regular": regularFile,
	"missing": func(t *testing.T, dir string) string { return filepath.Join(dir, "missing") },
	"fifo":    fifo,
	"directory": func(t *testing.T, dir string) string {
		p := filepath.Join(dir, "dir")
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	},
	"socket": func(t *testing.T, dir string) string {
		p := filepath.Join(dir, "sock")
		l, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		l.(*net.UnixListener).SetUnlinkOnClose(false)
		t.Cleanup(func() { l.Close() })
		return p
	},
	"device": func(t *testing.T, dir string) string { return os.DevNull },
	"link to a regular file": func(t *testing.T, dir string) string {
		return link(t, dir, regularFile(t, dir))
	},
	"link to a FIFO": func(t *testing.T, dir string) string {
		return link(t, dir, fifo(t, dir))
	},
}

func regularFile(t *testing.T, dir string) string {
	p := filepath.Join(dir, "file")
	if err := os.WriteFile(p, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func fifo(t *testing.T, dir string) string {
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func link(t *testing.T, dir, target string) string {
	p := filepath.Join(dir, "link")
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// within runs f and fails the test if it has not returned by the deadline:
// an open that blocks on a FIFO would otherwise hang the test binary.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

func TestReadFile(t *testing.T) {
	for _, tc := range []struct {
		kind, want string // want: the content, or the start of the error's kind
		follow     bool
	}{
		{kind: "regular", want: "hello\n"},
		{kind: "missing", want: "no such file"},
		{kind: "fifo", want: "a FIFO"},
		{kind: "directory", want: "a directory"},
		{kind: "socket", want: "a socket"},
		{kind: "device", want: "a device"},
		{kind: "link to a regular file", want: "a symlink"},
		{kind: "link to a regular file", follow: true, want: "hello\n"},
		{kind: "link to a FIFO", want: "a symlink"},
		{kind: "link to a FIFO", follow: true, want: "a FIFO"},
		{kind: "device", follow: true, want: "a device"},
	} {
		name := tc.kind
		if tc.follow {
			name += ", followed"
		}
		t.Run(name, func(t *testing.T) {
			path := kinds[tc.kind](t, t.TempDir())
			var data []byte
			var err error
			within(t, "reading "+tc.kind, func() {
				if tc.follow {
					data, err = ReadFileFollow(path)
				} else {
					data, err = ReadFile(path)
				}
			})
			if tc.want == "hello\n" {
				if err != nil || string(data) != tc.want {
					t.Fatalf("got %q, %v; want %q", data, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %q, %v; want an error saying %q", data, err, tc.want)
			}
			var nr *NotRegularError
			if errors.As(err, &nr) != (tc.kind != "missing") {
				t.Errorf("%v: a *NotRegularError is for anything but a regular file or nothing", err)
			}
			if tc.kind == "missing" && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%v: want fs.ErrNotExist", err)
			}
			if nr != nil && (nr.Path != path || !strings.HasSuffix(err.Error(), "not a regular file")) {
				t.Errorf("%v: want it to name %s and say it is not a regular file", err, path)
			}
		})
	}
}

// Writing is refused as reading is: appending to a FIFO would block until
// a reader came, and creating through it would write to whoever reads.
func TestOpenForAppendingRefusesAllButARegularFile(t *testing.T) {
	for kind, make := range kinds {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			path := make(t, dir)
			var err error
			within(t, "opening "+kind+" to append", func() {
				var f *os.File
				f, _, err = Open(path, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT, 0o600)
				if err == nil {
					_, err = f.WriteString("more\n")
					f.Close()
				}
			})
			var nr *NotRegularError
			switch kind {
			case "regular", "missing":
				if err != nil {
					t.Fatal(err)
				}
				if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
					t.Fatalf("after appending: %v, %v", fi, err)
				}
			default:
				if !errors.As(err, &nr) {
					t.Fatalf("got %v, want a *NotRegularError", err)
				}
				if fi, err := os.Lstat(path); err != nil || fi.Mode().IsRegular() {
					t.Errorf("%s was not left alone: %v, %v", path, fi, err)
				}
			}
		})
	}
}

// A FIFO that has a reader could be opened for writing at once: it is
// refused all the same, before any byte goes to the reader.
func TestOpenRefusesAFIFOWithAReader(t *testing.T) {
	path := fifo(t, t.TempDir())
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, _, err := Open(path, unix.O_WRONLY|unix.O_APPEND, 0)
	var nr *NotRegularError
	if !errors.As(err, &nr) || nr.Mode&fs.ModeNamedPipe == 0 {
		if f != nil {
			f.Close()
		}
		t.Fatalf("got %v, want %s refused as a FIFO", err, path)
	}
}

func TestOpenReturnsABlockingRegularFile(t *testing.T) {
	path := regularFile(t, t.TempDir())
	f, fi, err := Open(path, unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if fi.Size() != 6 {
		t.Errorf("FileInfo says %d bytes, want 6", fi.Size())
	}
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil || fl&unix.O_NONBLOCK != 0 {
		t.Errorf("flags %#x, %v: the file is still non-blocking", fl, err)
	}
}
