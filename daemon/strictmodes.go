package daemon

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"askuser/socketproto/peertrust"
)

// checkStateDirs checks the state dir, and a pending file's directory that
// lies elsewhere (daemon.pending_file), as OpenSSH's StrictModes checks
// ~/.ssh (docs/contract.md §2), before anything in them is read or trusted: whoever can
// write there, or replace the directory, can hand the user's agents answers
// the user never gave (a pending file renamed into place answers for them).
// A directory that does not exist yet is made first, 0700.
func checkStateDirs(stateDir, pendingFile string) error {
	uid := os.Getuid()
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	if err := strictDir(stateDir, "the state dir", "daemon.state_dir", uid); err != nil {
		return err
	}
	pd := filepath.Dir(pendingFile)
	if pendingFile == "" || sameDir(pd, stateDir) {
		return nil
	}
	// One that cannot be made is the pending file's own trouble, reported
	// as such when it is written; the daemon still serves.
	if err := os.MkdirAll(pd, 0o700); err != nil {
		return nil
	}
	return strictDir(pd, "the pending file's directory", "daemon.pending_file", uid)
}

func sameDir(a, b string) bool {
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}

// strictDir refuses dir (what names it for the message, key the config key
// that moves it) unless:
//   - every symlink on the way to it is the user's or root's (its owner
//     could point it elsewhere);
//   - the directory it resolves to is the user's and not writable by group
//     or others;
//   - every directory above that is the user's or root's, and none is
//     writable by others without the sticky bit (they could rename it and
//     put their own in its place). /tmp, sticky, is fine.
//
// Group-writable directories above are accepted, as docs/contract.md §2 asks only about
// others; OpenSSH's owner rule for them (root or the user) is kept.
func strictDir(dir, what, key string, uid int) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, dir, err)
	}
	c := dirCheck{dir: dir, what: what, uid: uid, elsewhere: "set " + key + " to a directory of your own"}
	if err := c.symlinksTo(abs); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, dir, err)
	}
	if err := c.itself(real); err != nil {
		return err
	}
	return c.above(real)
}

// dirCheck is one strictDir: the directory as configured, what names it,
// the user's uid, and the advice to move it.
type dirCheck struct {
	dir, what, elsewhere string
	uid                  int
}

// symlinksTo refuses a symlink on the path as written that someone else
// owns: a symlink in it is followed on every open.
func (c dirCheck) symlinksTo(abs string) error {
	for p := abs; ; p = filepath.Dir(p) {
		li, err := os.Lstat(p)
		if err != nil {
			return fmt.Errorf("%s %s: %w", c.what, c.dir, err)
		}
		if li.Mode()&fs.ModeSymlink != 0 && !trustedOwner(peertrust.Owner(li), c.uid) {
			return &peertrust.Refusal{Path: p,
				Why: "a symlink on the way to " + c.what + " " + abs + " is owned by " + peertrust.Who(peertrust.Owner(li)) + ", who could point it anywhere",
				Fix: "replace it with a directory of your own, or " + c.elsewhere}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// itself refuses the directory the path resolves to, real, unless it is a
// directory of the user's that no one else may write.
func (c dirCheck) itself(real string) error {
	fi, err := os.Stat(real)
	if err != nil {
		return fmt.Errorf("%s %s: %w", c.what, c.dir, err)
	}
	if !fi.IsDir() {
		return &peertrust.Refusal{Path: real, Why: c.what + " is not a directory", Fix: "remove it, or " + c.elsewhere}
	}
	if o := peertrust.Owner(fi); o != c.uid {
		return &peertrust.Refusal{Path: real,
			Why: c.what + " is owned by " + peertrust.Who(o) + ", not by you (uid " + strconv.Itoa(c.uid) + "), who may have put files there for askuserd to trust",
			Fix: "remove it (as root if need be) or " + c.elsewhere + "; if it is yours after all, check what is in it, then run chown -R " + strconv.Itoa(c.uid) + " " + real}
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return &peertrust.Refusal{Path: real,
			Why: fmt.Sprintf("%s has mode %04o, which lets other users write there", c.what, perm),
			Fix: "run chmod 700 " + real}
	}
	return nil
}

// above refuses a directory above real that someone other than the user or
// root owns, or that others may write without the sticky bit.
func (c dirCheck) above(real string) error {
	for p := filepath.Dir(real); ; p = filepath.Dir(p) {
		pi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("%s %s: %s: %w", c.what, c.dir, p, err)
		}
		above := "it is above " + c.what + " " + real
		if o := peertrust.Owner(pi); !trustedOwner(o, c.uid) {
			return &peertrust.Refusal{Path: p,
				Why: above + " and owned by " + peertrust.Who(o) + ", who could replace " + c.what + " with their own",
				Fix: c.elsewhere + " (under one that only you and root own)"}
		}
		if pi.Mode().Perm()&0o002 != 0 && pi.Mode()&fs.ModeSticky == 0 {
			return &peertrust.Refusal{Path: p,
				Why: fmt.Sprintf("%s and has mode %04o: every user may write there, and without the sticky bit any of them could replace %s with their own", above, pi.Mode().Perm(), c.what),
				Fix: "run chmod o-w " + p + " (or chmod +t " + p + "), or " + c.elsewhere}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// trustedOwner: root, or the user.
func trustedOwner(owner, uid int) bool { return owner == uid || owner == 0 }
