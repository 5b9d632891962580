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
)

// SecretFile is the secret's name in the state dir.
const SecretFile = "web-secret"

// secretBytes is how much randomness a secret holds (docs/contract.md §12: 32 bytes).
const secretBytes = 32

// LoadSecret reads the secret at path, making one (mode 0600) if there is
// none yet.
func LoadSecret(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		s := strings.TrimSpace(string(b))
		if len(s) >= 40 {
			return s, nil
		}
		// A file that holds no usable secret (emptied, truncated) is replaced:
		// a short secret would be guessable.
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("reading the web secret: %w", err)
	}
	return RotateSecret(path)
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
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, SecretFile+".tmp*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing left to remove
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", err
	}
	if _, err := tmp.WriteString(s + "\n"); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("writing the web secret: %w", err)
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
		}
	}
}

// checkSecret reloads a changed secret; the open pages' streams end, and
// their tokens no longer verify.
func (s *server) checkSecret() {
	if s.keys.refresh() {
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
	b, err := os.ReadFile(k.path)
	if err != nil {
		return false, err
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
// already held: only a new secret ends the sessions.
func (k *keyring) refresh() bool {
	id, err := statID(k.path)
	if err != nil {
		return false
	}
	k.mu.RLock()
	same := id == k.id
	k.mu.RUnlock()
	if same {
		return false
	}
	changed, _ := k.reload()
	return changed
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

// newSession is a session token: a random id and its MAC. Nothing is
// stored: a rotated secret makes every earlier token invalid.
func (k *keyring) newSession() string {
	raw := make([]byte, 18)
	_, _ = rand.Read(raw)
	id := base64.RawURLEncoding.EncodeToString(raw)
	return id + "." + k.sign("session\x00"+id)
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
