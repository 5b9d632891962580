package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"askuser/internal/atomicfile"
	"askuser/internal/statefile"
)

// SecretFile is the secret's name in the state dir.
const SecretFile = "web-secret"

// secretBytes is how much randomness a secret holds (docs/contract.md §12: 32 bytes).
const secretBytes = 32

// LoadSecret reads the secret at path, making one (mode 0600) if there is
// none yet.
func LoadSecret(path string) (string, error) {
	b, err := statefile.ReadFile(path)
	if err == nil {
		s := strings.TrimSpace(string(b))
		if len(s) >= 40 {
			return s, nil
		}
		// A file that holds no usable secret (emptied, truncated) is replaced:
		// a short secret would be guessable.
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", secretErr("reading", err)
	}
	return RotateSecret(path)
}

// secretErr is a failure to read or write the secret; for something other
// than a regular file at its path (a FIFO, a directory), what to do about
// it: askuserd web never opens it, nor replaces it (docs/contract.md §10).
func secretErr(doing string, err error) error {
	var nr *statefile.NotRegularError
	if errors.As(err, &nr) {
		return fmt.Errorf("%s the web secret: %w; askuserd web keeps its secret only in a regular file, and leaves this one alone: remove it, and a new secret is made (every device logs in again)", doing, err)
	}
	return fmt.Errorf("%s the web secret: %w", doing, err)
}

// RotateSecret writes a new secret at path and returns it. Every session
// token is signed with the secret, so the old ones stop working at once:
// every device is logged out, and a running `askuserd web` notices the new
// file and closes the pages it serves.
func RotateSecret(path string) (string, error) {
	raw := make([]byte, secretBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	s := base64.RawURLEncoding.EncodeToString(raw)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	// Written as every state file is: a reader sees the old secret or the
	// new, and anything but a regular file at path is refused, not renamed
	// over.
	if err := atomicfile.Write(path, []byte(s+"\n"), 0o600); err != nil && !errors.Is(err, atomicfile.ErrNotSynced) {
		return "", secretErr("writing", err)
	}
	return s, nil
}

// secretCheck is how often the secret's file is looked at while no request
// comes: an open event stream is ended within that of a rotation. Every
// request looks at it too (server.session), so none is let in after one.
const secretCheck = time.Second

// watchSecret ends every session when the secret changes (askuserd web
// --rotate), until the server stops. It looks at the file by its path: the
// state dir may have been deleted and written back since the start.
func (s *server) watchSecret() {
	t := time.NewTicker(secretCheck)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.checkSecret()
			s.checkDevices()
		}
	}
}

// checkSecret reloads a changed secret; the open pages' streams end, and
// their tokens no longer verify.
func (s *server) checkSecret() {
	changed, err := s.keys.refresh()
	if err != nil {
		s.log.Warn("the web secret read before stays in force", "err", err)
	}
	if changed {
		s.log.Info("the web secret changed: every session ended")
		s.endSessions()
	}
}

// keyring holds the secret a running server checks against, and the
// identity of the file it read it from. Sessions are bound to the secret
// (their MAC is keyed by it): a new secret ends every one of them.
//
// The file is looked at again by its path, not through a watch: the state
// dir may have been deleted and written back since the server started (a
// watch would still be on the old directory), and `askuserd web --rotate`
// must end every session whatever happened to it.
type keyring struct {
	path string
	mu   sync.RWMutex
	key  string
	id   fileID
	// refused is the file last refused as not a regular file, told once.
	refused fileID
}

// fileID tells one version of the secret file from another without
// reading it: a rename (how the secret is written) makes a new inode, an
// edit in place a new size or mtime.
type fileID struct {
	dev, ino uint64
	size     int64
	mtime    int64
}

func statID(path string) (fileID, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, err
	}
	id := fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), uint64(st.Ino)
	}
	return id, nil
}

func (k *keyring) current() string {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.key
}

// reload reads the file again; it reports whether the secret changed.
func (k *keyring) reload() (bool, error) {
	id, err := statID(k.path)
	if err != nil {
		return false, err
	}
	b, err := statefile.ReadFile(k.path)
	if err != nil {
		return false, secretErr("reading", err)
	}
	s := strings.TrimSpace(string(b))
	if len(s) < 40 {
		return false, fmt.Errorf("%s holds no usable secret", k.path)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	changed := s != k.key
	k.key, k.id = s, id
	return changed, nil
}

// refresh reloads the secret when its file is not the one last read, and
// reports whether the secret changed. A file that is missing or holds no
// secret (the state dir deleted; a rotation half way) keeps the secret
// already held: only a new secret ends the sessions. So does one that is
// not a regular file (a FIFO): it is never opened, and why is the error,
// once for each such file.
func (k *keyring) refresh() (bool, error) {
	id, err := statID(k.path)
	if err != nil {
		return false, nil
	}
	k.mu.RLock()
	same, told := id == k.id, id == k.refused
	k.mu.RUnlock()
	if same || told {
		return false, nil
	}
	changed, err := k.reload()
	var nr *statefile.NotRegularError
	if !errors.As(err, &nr) {
		return changed, nil
	}
	k.mu.Lock()
	k.refused = id
	k.mu.Unlock()
	return false, err
}

// matches reports whether s is the secret, in constant time.
func (k *keyring) matches(s string) bool {
	key := k.current()
	return key != "" && subtle.ConstantTimeCompare([]byte(s), []byte(key)) == 1
}

// sign is the MAC of what under the secret.
func (k *keyring) sign(what string) string {
	m := hmac.New(sha256.New, []byte(k.current()))
	m.Write([]byte(what))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// newSession is a session token: a random id and its MAC. The token is
// not stored (its device keeps a hash of the id, internal/webdevices): a
// rotated secret makes every earlier token invalid.
func (k *keyring) newSession() string {
	tok, _ := k.newSessionID()
	return tok
}

// newSessionID is newSession, with the session's id.
func (k *keyring) newSessionID() (token, id string) {
	raw := make([]byte, 18)
	_, _ = rand.Read(raw)
	id = base64.RawURLEncoding.EncodeToString(raw)
	return id + "." + k.sign("session\x00"+id), id
}

// session checks a token and returns its id.
func (k *keyring) session(v string) (string, bool) {
	id, mac, ok := strings.Cut(v, ".")
	if !ok || id == "" {
		return "", false
	}
	want := k.sign("session\x00" + id)
	return id, hmac.Equal([]byte(mac), []byte(want))
}
