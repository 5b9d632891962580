package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"askuser/internal/config"
	"askuser/socketproto/peertrust"
	"askuser/tests/skips"
	"askuser/tests/testdaemon"
)

// nobody is a uid that is not the test's.
const nobody = 65534

// TestStrictStateDir: the state dir is checked as OpenSSH's StrictModes
// checks ~/.ssh (docs/contract.md §2), each refusal naming the path to fix and how.
func TestStrictStateDir(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// setup gets a fresh 0700 directory of the user's and returns the
		// state dir and the path the refusal must name.
		setup func(t *testing.T, root string) (dir, names string)
		want  string // "" = accepted
	}{
		{"0700, ours", func(t *testing.T, r string) (string, string) { return mkdirMode(t, r, "s", 0o700), "" }, ""},
		{"0755, readable only", func(t *testing.T, r string) (string, string) { return mkdirMode(t, r, "s", 0o755), "" }, ""},
		{"0770, group-writable", func(t *testing.T, r string) (string, string) {
			d := mkdirMode(t, r, "s", 0o770)
			return d, d
		}, "mode 0770, which lets other users write there; run chmod 700 "},
		{"0777, world-writable", func(t *testing.T, r string) (string, string) {
			d := mkdirMode(t, r, "s", 0o777)
			return d, d
		}, "mode 0777, which lets other users write there; run chmod 700 "},
		{"owned by another user", func(t *testing.T, r string) (string, string) {
			d := mkdirMode(t, r, "s", 0o700)
			giveAway(t, d, false)
			return d, d
		}, "the state dir is owned by uid 65534"},
		{"under a sticky world-writable directory, like /tmp", func(t *testing.T, r string) (string, string) {
			p := mkdirMode(t, r, "tmp", 0o777|os.ModeSticky)
			return mkdirMode(t, p, "s", 0o700), ""
		}, ""},
		{"under a world-writable directory without the sticky bit", func(t *testing.T, r string) (string, string) {
			p := mkdirMode(t, r, "open", 0o777)
			return mkdirMode(t, filepath.Join(p, "a"), "s", 0o700), p
		}, "mode 0777: every user may write there, and without the sticky bit any of them could replace the state dir with their own; run chmod o-w "},
		{"under a directory of another user's", func(t *testing.T, r string) (string, string) {
			p := mkdirMode(t, r, "theirs", 0o755)
			d := mkdirMode(t, p, "s", 0o700)
			giveAway(t, p, false)
			return d, p
		}, "and owned by uid 65534"},
		{"our symlink to our directory", func(t *testing.T, r string) (string, string) {
			d := mkdirMode(t, r, "real", 0o700)
			l := filepath.Join(r, "link")
			symlink(t, d, l)
			return l, ""
		}, ""},
		{"another user's symlink to our directory", func(t *testing.T, r string) (string, string) {
			d := mkdirMode(t, r, "real", 0o700)
			l := filepath.Join(r, "link")
			symlink(t, d, l)
			giveAway(t, l, true)
			return l, l
		}, "a symlink on the way to the state dir"},
		{"our symlink to another user's directory", func(t *testing.T, r string) (string, string) {
			d := mkdirMode(t, r, "real", 0o700)
			giveAway(t, d, false)
			l := filepath.Join(r, "link")
			symlink(t, d, l)
			return l, d
		}, "the state dir is owned by uid 65534"},
		{"missing: made 0700", func(t *testing.T, r string) (string, string) {
			return filepath.Join(r, "new", "askuser"), ""
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, names := c.setup(t, mkdirMode(t, t.TempDir(), "root", 0o700))
			err := checkStateDirs(dir, filepath.Join(dir, "pending-questions.json"))
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm()&0o022 != 0 {
					t.Fatalf("state dir after the check: %v, %v", fi.Mode(), err)
				}
				return
			}
			if !peertrust.IsRefusal(err) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "refusing "+names+":") {
				t.Fatalf("got %v\nwant a refusal of %s saying %q", err, names, c.want)
			}
		})
	}
}

// TestStrictPendingFileDir: a pending file configured outside the state dir
// has its directory checked the same way.
func TestStrictPendingFileDir(t *testing.T) {
	t.Parallel()
	root := mkdirMode(t, t.TempDir(), "root", 0o700)
	state := mkdirMode(t, root, "state", 0o700)
	open := mkdirMode(t, root, "shared", 0o777)
	err := checkStateDirs(state, filepath.Join(open, "pending.json"))
	if !peertrust.IsRefusal(err) || !strings.Contains(err.Error(), "refusing "+open+": the pending file's directory has mode 0777") ||
		!strings.Contains(err.Error(), "chmod 700 "+open) {
		t.Fatalf("a world-writable pending file directory: %v", err)
	}
	private := mkdirMode(t, root, "mine", 0o700)
	if err := checkStateDirs(state, filepath.Join(private, "pending.json")); err != nil {
		t.Fatalf("a private pending file directory: %v", err)
	}
}

// TestRunRefusesUnsafeStateDir: the daemon does not start on such a dir.
func TestRunRefusesUnsafeStateDir(t *testing.T) {
	t.Parallel()
	root := mkdirMode(t, t.TempDir(), "root", 0o700)
	state := mkdirMode(t, root, "state", 0o777)
	c := config.Default()
	c.Daemon.StateDir = state
	sock := filepath.Join(mkdirMode(t, root, "run", 0o700), "d.sock")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// A daemon that does start is stopped at once, for the test to fail.
	err := Run(ctx, Options{Config: c, SocketPath: sock, Logger: testdaemon.TestLogger(t), Ready: cancel})
	if err == nil || !strings.Contains(err.Error(), "run chmod 700 "+state) {
		t.Fatalf("Run on a 0777 state dir: %v", err)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("the refused daemon left a socket: %v", err)
	}
}

func mkdirMode(t *testing.T, parent, name string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(parent, name)
	if err := os.MkdirAll(p, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// giveAway makes p another user's; that needs root, which CI has.
func giveAway(t *testing.T, p string, link bool) {
	t.Helper()
	chown := os.Chown
	if link {
		chown = os.Lchown
	}
	if err := chown(p, nobody, -1); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("giving %s to uid %d: %v (CI runs as root)", p, nobody, err)
		}
		skips.Skipf(t, "giving %s to another uid needs root: %v", p, err)
	}
}
