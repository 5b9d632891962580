package peertrust

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"askuser/tests/skips"
)

// otherUID is a uid that is not the test's: nobody's.
const otherUID = 65534

func TestCheckDir(t *testing.T) {
	uid := os.Getuid()
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the path to check
		mask  fs.FileMode
		want  string // "" = accepted; "ENOENT" = the stat's error
	}{
		{"0700, ours", func(t *testing.T, d string) string { return mkdir(t, d, "a", 0o700) }, GroupOrOthers, ""},
		{"0755 refused by a client", func(t *testing.T, d string) string { return mkdir(t, d, "a", 0o755) }, GroupOrOthers, "its mode 0755 lets other users in; run chmod 700"},
		{"0750 refused by a client", func(t *testing.T, d string) string { return mkdir(t, d, "a", 0o750) }, GroupOrOthers, "its mode 0750"},
		{"0755 taken by the daemon", func(t *testing.T, d string) string { return mkdir(t, d, "a", 0o755) }, 0o022, ""},
		{"0777 refused by the daemon", func(t *testing.T, d string) string { return mkdir(t, d, "a", 0o777) }, 0o022, "its mode 0777"},
		{"missing", func(t *testing.T, d string) string { return filepath.Join(d, "none") }, GroupOrOthers, "ENOENT"},
		{"a file", func(t *testing.T, d string) string {
			p := filepath.Join(d, "f")
			os.WriteFile(p, nil, 0o600)
			return p
		}, GroupOrOthers, "it is not a directory"},
		{"another user's", func(t *testing.T, d string) string {
			p := mkdir(t, d, "a", 0o700)
			chown(t, p, otherUID)
			return p
		}, GroupOrOthers, "owned by uid 65534"},
		{"another user's symlink to ours", func(t *testing.T, d string) string {
			target := mkdir(t, d, "real", 0o700)
			link := filepath.Join(d, "link")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			lchown(t, link, otherUID)
			return link
		}, GroupOrOthers, "it is a symlink owned by uid 65534"},
		{"our symlink to ours", func(t *testing.T, d string) string {
			target := mkdir(t, d, "real", 0o700)
			link := filepath.Join(d, "link")
			os.Symlink(target, link)
			return link
		}, GroupOrOthers, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.setup(t, t.TempDir())
			err := CheckDir(path, uid, c.mask)
			switch c.want {
			case "":
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
			case "ENOENT":
				if !errors.Is(err, fs.ErrNotExist) || IsRefusal(err) {
					t.Fatalf("want the stat's not-exist error, got %v", err)
				}
			default:
				if !IsRefusal(err) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
					t.Fatalf("got %v; want a refusal naming %s and %q", err, path, c.want)
				}
			}
		})
	}
}

func TestCheckSocketAndPeer(t *testing.T) {
	dir := mkdir(t, t.TempDir(), "s", 0o700)
	sock := filepath.Join(dir, "d.sock")
	if err := CheckSocket(sock, os.Getuid()); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no socket yet: %v", err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if err := CheckSocket(sock, os.Getuid()); err != nil {
		t.Fatalf("our own socket: %v", err)
	}
	if err := CheckSocket(sock, os.Getuid()+1); !IsRefusal(err) || !strings.Contains(err.Error(), "the socket is owned by") {
		t.Fatalf("a socket owned by someone else: %v", err)
	}
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, nil, 0o600)
	if err := CheckSocket(plain, os.Getuid()); !IsRefusal(err) || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("a file: %v", err)
	}
	nc, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := CheckPeer(nc, sock, os.Getuid()); err != nil {
		t.Fatalf("our own peer: %v", err)
	}
	if err := CheckPeer(nc, sock, os.Getuid()+1); !IsRefusal(err) || !strings.Contains(err.Error(), "the process at the other end runs as uid") {
		t.Fatalf("a peer of another uid: %v", err)
	}
}

func mkdir(t *testing.T, parent, name string, mode fs.FileMode) string {
	t.Helper()
	p := filepath.Join(parent, name)
	if err := os.Mkdir(p, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func chown(t *testing.T, p string, uid int) {
	t.Helper()
	if err := os.Chown(p, uid, -1); err != nil {
		skips.Skipf(t, "cannot give %s to uid %d here (%v): needs root", p, uid, err)
	}
}

func lchown(t *testing.T, p string, uid int) {
	t.Helper()
	if err := os.Lchown(p, uid, -1); err != nil {
		skips.Skipf(t, "cannot give %s to uid %d here (%v): needs root", p, uid, err)
	}
}
