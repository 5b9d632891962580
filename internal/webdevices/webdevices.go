// Package webdevices owns the web pane's devices and pairing links
// (docs/contract.md §12): the files in the state dir that `askuserd web`,
// `askuserd web --url` and `askuserd web devices` (separate processes) and
// the terminal pane all reach, how a device is named from its user agent,
// and how its times are said. It knows no HTTP and no socket: a surface that
// revokes a device tells the daemon to drop its Web Push subscription itself.
package webdevices

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"askuser/internal/atomicfile"
	"askuser/internal/statefile"
)

// The files' names in the state dir.
const (
	DevicesFile = "web-devices.json"
	PairingFile = "web-pairing.json"
	lockFile    = "web-devices.lock"
)

// PairingTTL is how long a pairing link may be used (once).
const PairingTTL = 10 * time.Minute

// pairingKept is how long a used or expired link is remembered, so that a
// second try is told what happened rather than "unknown".
const pairingKept = 24 * time.Hour

// maxName bounds a device's name.
const maxName = 60

// Device is one browser that logged in.
type Device struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	UserAgent string    `json:"user_agent,omitempty"`
	Session   string    `json:"session"` // SessionHash of its session's id: the token itself is never kept
	Paired    time.Time `json:"paired"`
	LastSeen  time.Time `json:"last_seen"`
	Push      string    `json:"push_endpoint,omitempty"` // the Web Push endpoint it subscribed through the page
	By        string    `json:"by"`                      // "pairing link" or "secret"
}

type devicesDoc struct {
	Devices []Device `json:"devices"`
}

type link struct {
	Hash    string    `json:"hash"` // sha256 of the code: the code itself is never kept
	Expires time.Time `json:"expires"`
	Used    time.Time `json:"used,omitzero"`
	By      string    `json:"by,omitempty"` // the device it made
}

type pairingDoc struct {
	Links []link `json:"links"`
}

// Store is the devices and pairing links of one state dir.
type Store struct {
	Dir string
	Now func() time.Time // time.Now when nil; tests inject a clock
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// DevicesPath is the devices file's path.
func (s *Store) DevicesPath() string { return filepath.Join(s.Dir, DevicesFile) }

// Reason is why a pairing link was refused.
type Reason string

const (
	Used    Reason = "used"
	Expired Reason = "expired"
	Unknown Reason = "unknown"
)

// PairError refuses a pairing link, saying what happened and what to run.
type PairError struct {
	Reason Reason
	At     time.Time // when it was used, or expired
	By     string    // the device it made, when used
}

func (e *PairError) Error() string {
	again := "`askuserd web --url` on the machine that runs askuser prints a new one"
	switch e.Reason {
	case Used:
		by := ""
		if e.By != "" {
			by = " by " + e.By
		}
		return fmt.Sprintf("this pairing link was used already (at %s%s): a pairing link logs in one device, once; %s", e.At.Local().Format("15:04"), by, again)
	case Expired:
		return fmt.Sprintf("this pairing link expired at %s (pairing links last %d minutes); %s", e.At.Local().Format("15:04"), int(PairingTTL/time.Minute), again)
	}
	return "this is not a pairing link askuserd web made (or it was made long ago, or before `askuserd web --rotate`); " + again
}

// ErrNoDevice is a device ID that names none.
var ErrNoDevice = errors.New("no such device")

// SessionHash is how a session's id is kept.
func SessionHash(id string) string {
	h := sha256.Sum256([]byte("askuser-session\x00" + id))
	return hex.EncodeToString(h[:])
}

func codeHash(code string) string {
	h := sha256.Sum256([]byte("askuser-pairing\x00" + code))
	return hex.EncodeToString(h[:])
}

// List reads the devices, oldest first. A missing file is no device.
func (s *Store) List() ([]Device, error) {
	d, err := s.readDevices()
	return d.Devices, err
}

func (s *Store) readDevices() (devicesDoc, error) {
	var d devicesDoc
	b, err := statefile.ReadFile(s.DevicesPath())
	if errors.Is(err, os.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return d, fmt.Errorf("reading the web devices: %w", err)
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return d, nil
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("%s: %w", s.DevicesPath(), err)
	}
	return d, nil
}

func (s *Store) readPairing() (pairingDoc, error) {
	var p pairingDoc
	path := filepath.Join(s.Dir, PairingFile)
	b, err := statefile.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("reading the pairing links: %w", err)
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return p, nil
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

func write(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, append(b, '\n'), 0o600); err != nil && !errors.Is(err, atomicfile.ErrNotSynced) {
		return err
	}
	return nil
}

// locked runs f holding the state dir's devices lock: every change is a
// read, a change and a write, made by several processes (askuserd web, the
// CLI, the terminal pane), and none may lose another's.
func (s *Store) locked(f func() error) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	lf, _, err := statefile.Open(filepath.Join(s.Dir, lockFile), unix.O_RDWR|unix.O_CREAT, 0o600)
	if err != nil {
		return fmt.Errorf("locking the web devices: %w", err)
	}
	defer lf.Close()
	if err := unix.Flock(int(lf.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("locking the web devices: %w", err)
	}
	defer unix.Flock(int(lf.Fd()), unix.LOCK_UN)
	return f()
}

// updateDevices changes the devices under the lock and writes them back
// when change reports a change.
func (s *Store) updateDevices(change func(*devicesDoc) (bool, error)) error {
	return s.locked(func() error {
		d, err := s.readDevices()
		if err != nil {
			return err
		}
		changed, err := change(&d)
		if err != nil || !changed {
			return err
		}
		return write(s.DevicesPath(), d)
	})
}

func randomString(n int) string {
	raw := make([]byte, n)
	_, _ = rand.Read(raw)
	return base64.RawURLEncoding.EncodeToString(raw)
}

func newID(d *devicesDoc) string {
	for {
		raw := make([]byte, 3)
		_, _ = rand.Read(raw)
		id := hex.EncodeToString(raw)
		if !slices.ContainsFunc(d.Devices, func(x Device) bool { return x.ID == id }) {
			return id
		}
	}
}

// NewPairing makes a pairing link's code, usable once within PairingTTL.
func (s *Store) NewPairing() (code string, expires time.Time, err error) {
	code = randomString(24)
	now := s.now()
	expires = now.Add(PairingTTL)
	err = s.locked(func() error {
		p, err := s.readPairing()
		if err != nil {
			return err
		}
		p.Links = prune(p.Links, now)
		p.Links = append(p.Links, link{Hash: codeHash(code), Expires: expires})
		return write(filepath.Join(s.Dir, PairingFile), p)
	})
	return code, expires, err
}

func prune(ls []link, now time.Time) []link {
	return slices.DeleteFunc(ls, func(l link) bool { return now.Sub(l.Expires) > pairingKept })
}

// Pair uses a pairing link's code: the first use within PairingTTL makes a
// device for the session sessionID, from userAgent; any other is a
// *PairError.
func (s *Store) Pair(code, userAgent, sessionID string) (Device, error) {
	var dev Device
	err := s.locked(func() error {
		now := s.now()
		p, err := s.readPairing()
		if err != nil {
			return err
		}
		i := slices.IndexFunc(p.Links, func(l link) bool { return l.Hash == codeHash(code) })
		switch {
		case i < 0:
			return &PairError{Reason: Unknown}
		case !p.Links[i].Used.IsZero():
			return &PairError{Reason: Used, At: p.Links[i].Used, By: p.Links[i].By}
		case !now.Before(p.Links[i].Expires):
			return &PairError{Reason: Expired, At: p.Links[i].Expires}
		}
		d, err := s.readDevices()
		if err != nil {
			return err
		}
		dev = newDevice(&d, userAgent, sessionID, "pairing link", now)
		// The link is spent before the device is written: a crash between
		// the two loses a device, never lets the link in twice.
		p.Links[i].Used, p.Links[i].By = now, dev.Name
		p.Links = prune(p.Links, now)
		if err := write(filepath.Join(s.Dir, PairingFile), p); err != nil {
			return err
		}
		return write(s.DevicesPath(), d)
	})
	return dev, err
}

func newDevice(d *devicesDoc, userAgent, sessionID, by string, now time.Time) Device {
	dev := Device{ID: newID(d), Name: Name(userAgent), UserAgent: clip(userAgent, 300), Session: SessionHash(sessionID),
		Paired: now, LastSeen: now, By: by}
	d.Devices = append(d.Devices, dev)
	return dev
}

// AddDevice makes a device for a login with the long-lived secret.
func (s *Store) AddDevice(userAgent, sessionID string) (Device, error) {
	var dev Device
	err := s.updateDevices(func(d *devicesDoc) (bool, error) {
		dev = newDevice(d, userAgent, sessionID, "secret", s.now())
		return true, nil
	})
	return dev, err
}

// Revoke removes the device id and returns it; its session is refused from
// then on. Its Web Push endpoint, if any, is the caller's to unsubscribe.
func (s *Store) Revoke(id string) (Device, error) {
	var dev Device
	err := s.updateDevices(func(d *devicesDoc) (bool, error) {
		i := slices.IndexFunc(d.Devices, func(x Device) bool { return x.ID == id })
		if i < 0 {
			return false, fmt.Errorf("%w %q: `askuserd web devices` lists them", ErrNoDevice, id)
		}
		dev = d.Devices[i]
		d.Devices = slices.Delete(d.Devices, i, i+1)
		return true, nil
	})
	return dev, err
}

// Rename names the device id.
func (s *Store) Rename(id, name string) (Device, error) {
	name = strings.Join(strings.Fields(cleanName(name)), " ")
	if name == "" {
		return Device{}, errors.New("a device's name cannot be empty")
	}
	name = clip(name, maxName)
	var dev Device
	err := s.updateDevices(func(d *devicesDoc) (bool, error) {
		i := slices.IndexFunc(d.Devices, func(x Device) bool { return x.ID == id })
		if i < 0 {
			return false, fmt.Errorf("%w %q: `askuserd web devices` lists them", ErrNoDevice, id)
		}
		d.Devices[i].Name = name
		dev = d.Devices[i]
		return true, nil
	})
	return dev, err
}

// Seen records that the device of session hash was seen at t.
func (s *Store) Seen(hash string, t time.Time) error {
	return s.updateDevices(func(d *devicesDoc) (bool, error) {
		i := slices.IndexFunc(d.Devices, func(x Device) bool { return x.Session == hash })
		if i < 0 || !t.After(d.Devices[i].LastSeen) {
			return false, nil
		}
		d.Devices[i].LastSeen = t
		return true, nil
	})
}

// SetPush records the Web Push endpoint the device of session hash
// subscribed ("" when it stopped).
func (s *Store) SetPush(hash, endpoint string) error {
	return s.updateDevices(func(d *devicesDoc) (bool, error) {
		i := slices.IndexFunc(d.Devices, func(x Device) bool { return x.Session == hash })
		if i < 0 || d.Devices[i].Push == endpoint {
			return false, nil
		}
		d.Devices[i].Push = endpoint
		return true, nil
	})
}

// Clear forgets every device and pairing link (`askuserd web --rotate`)
// and returns the devices it forgot.
func (s *Store) Clear() ([]Device, error) {
	var gone []Device
	err := s.locked(func() error {
		d, err := s.readDevices()
		if err != nil {
			gone = nil
		} else {
			gone = d.Devices
		}
		if err := write(filepath.Join(s.Dir, PairingFile), pairingDoc{Links: []link{}}); err != nil {
			return err
		}
		return write(s.DevicesPath(), devicesDoc{Devices: []Device{}})
	})
	return gone, err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cleanName keeps a name to printable characters: it is shown on every
// surface.
func cleanName(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return ' '
		}
		return r
	}, s)
}
