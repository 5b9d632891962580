package web

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO at the secret's path is never opened (reading it would wait for a
// writer for good) nor replaced: askuserd web says so and what to do.
func TestSecretRefusesAFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), SecretFile)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	want := path + " is a FIFO, not a regular file; askuserd web keeps its secret only in a regular file"
	if _, err := LoadSecret(path); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("LoadSecret: %v; want it to say %q", err, want)
	}
	if _, err := RotateSecret(path); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("RotateSecret: %v; want it to say %q", err, want)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was not left alone: %v, %v", fi, err)
	}
}

// A FIFO put where the secret was, while the server runs, keeps the secret
// already held and its sessions; it is reported once, not at every look.
func TestSecretReplacedByAFIFOKeepsTheSecret(t *testing.T) {
	path := filepath.Join(t.TempDir(), SecretFile)
	s1, err := LoadSecret(path)
	if err != nil {
		t.Fatal(err)
	}
	k := &keyring{path: path}
	if _, err := k.reload(); err != nil {
		t.Fatal(err)
	}
	tok := k.newSession()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	changed, err := k.refresh()
	if changed || err == nil || !strings.Contains(err.Error(), "is a FIFO, not a regular file") {
		t.Fatalf("refresh after a FIFO took the secret's place: changed %v, %v", changed, err)
	}
	if changed, err := k.refresh(); changed || err != nil {
		t.Errorf("the same FIFO again: changed %v, %v; want it told once", changed, err)
	}
	if _, ok := k.session(tok); !ok || !k.matches(s1) {
		t.Error("the secret held, or a session, ended with a FIFO in the file's place")
	}
}

// A FIFO named as the certificate or its key is refused before anything is
// served, where reading it would wait for a writer for good.
func TestKeyPairRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.pem")
	if err := os.WriteFile(other, []byte("not PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cert, key, want string }{
		{fifo, other, "web.tls_cert: " + fifo + " is a FIFO, not a regular file"},
		{other, fifo, "web.tls_key: " + fifo + " is a FIFO, not a regular file"},
	} {
		if _, err := loadKeyPair(tc.cert, tc.key); err == nil || err.Error() != tc.want {
			t.Errorf("loadKeyPair(%s, %s): %v; want %q", tc.cert, tc.key, err, tc.want)
		}
	}
	if _, err := certNames(fifo); err == nil || !strings.Contains(err.Error(), "is a FIFO, not a regular file") {
		t.Errorf("certNames: %v", err)
	}
}
