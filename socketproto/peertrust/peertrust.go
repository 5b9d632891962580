// Package peertrust decides whether the other end of askuser's socket is
// the user's own (docs/contract.md §2): the socket's directory and the socket owned by
// the user and closed to everyone else, and the process at the other end
// running as the user, by the kernel's word (SO_PEERCRED, LOCAL_PEERCRED).
// The daemon asks it of every connection it accepts and of its socket's
// directory; every client asks it, through socketproto.Dial, before it sends
// a byte. Since askuser answers permission prompts, an answer from someone
// else's socket would run a command on the user's behalf: nothing else in
// askuser decides this, and nothing falls back to another socket.
package peertrust

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"
)

// Refusal is a socket, a directory or a peer that is not the user's own.
type Refusal struct {
	Path string // the directory or socket refused
	Why  string // what was found, e.g. "owned by uid 1001 (mallory), not by you (uid 1000)"
	Fix  string // what the user can do
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("refusing %s: %s; %s", r.Path, r.Why, r.Fix)
}

// GroupOrOthers are the mode bits a client refuses on the socket's
// directory: any access by anyone but the user. The daemon makes the
// directory 0700, and tightens one of the user's own that is wider.
const GroupOrOthers fs.FileMode = 0o077

// CheckDir refuses dir unless it is a directory owned by uid (a symlink to
// it owned by uid too) without any of the mode bits in forbidden. A dir that
// does not exist is not a refusal: the error is the stat's, and says so
// (fs.ErrNotExist), for the caller to treat as "no daemon there".
func CheckDir(dir string, uid int, forbidden fs.FileMode) error {
	li, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if li.Mode()&fs.ModeSymlink != 0 && ownerOf(li) != uid {
		// A link planted in a shared directory (/tmp) could point the
		// socket anywhere: it must be the user's too.
		return &Refusal{Path: dir, Why: "it is a symlink " + owned(ownerOf(li), uid),
			Fix: "remove it (rm " + dir + ") or set XDG_RUNTIME_DIR; askuser uses only a socket directory you own"}
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return &Refusal{Path: dir, Why: "it is not a directory", Fix: "remove it, or set XDG_RUNTIME_DIR or ASKUSER_SOCKET elsewhere"}
	}
	if o := ownerOf(fi); o != uid {
		return &Refusal{Path: dir, Why: owned(o, uid),
			Fix: "another user may have made it to catch your questions: remove it (as root if need be) or set XDG_RUNTIME_DIR; askuser never uses a socket directory it does not own"}
	}
	if perm := fi.Mode().Perm(); perm&forbidden != 0 {
		return &Refusal{Path: dir, Why: fmt.Sprintf("its mode %04o lets other users in", perm),
			Fix: "run chmod 700 " + dir}
	}
	return nil
}

// CheckSocket refuses a socket at path that uid does not own. A missing
// socket is not a refusal: the error is the stat's.
func CheckSocket(path string, uid int) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return &Refusal{Path: path, Why: "it is not a socket", Fix: "remove it, or point ASKUSER_SOCKET elsewhere"}
	}
	if o := ownerOf(fi); o != uid {
		return &Refusal{Path: path, Why: "the socket is " + owned(o, uid),
			Fix: "remove it (as root if need be); askuser never talks to a socket it does not own"}
	}
	return nil
}

// CheckPeer refuses a connection, dialled at path, whose other end does not
// run as uid.
func CheckPeer(c syscall.Conn, path string, uid int) error {
	got, err := PeerUID(c)
	if err != nil {
		return &Refusal{Path: path, Why: "cannot tell who is at the other end: " + err.Error(),
			Fix: "askuser does not talk to a peer it cannot identify"}
	}
	if got != uid {
		return &Refusal{Path: path, Why: "the process at the other end runs as " + who(got) + ", not as you (uid " + strconv.Itoa(uid) + ")",
			Fix: "another user may be listening there to catch your questions: stop using that socket (check ASKUSER_SOCKET and XDG_RUNTIME_DIR)"}
	}
	return nil
}

// owned says who owns a file, beside who should.
func owned(owner, uid int) string {
	return "owned by " + who(owner) + ", not by you (uid " + strconv.Itoa(uid) + ")"
}

// Who names a uid, with its user name when it has one: "uid 1001 (mallory)".
func Who(uid int) string { return who(uid) }

// Owner is the uid that owns fi, or -1 when the system does not say.
func Owner(fi fs.FileInfo) int { return ownerOf(fi) }

func who(uid int) string {
	s := "uid " + strconv.Itoa(uid)
	if name := userName(uid); name != "" {
		s += " (" + name + ")"
	}
	return s
}

func ownerOf(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// IsRefusal reports whether err is a refusal of this package's.
func IsRefusal(err error) bool {
	var r *Refusal
	return errors.As(err, &r)
}
