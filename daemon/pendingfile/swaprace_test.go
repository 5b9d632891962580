package pendingfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// The refusal of an Allow without its "approvesDigest" asks the user to
// save the daemon's rewrite again as it is. A user (or a script) quick
// enough saves it the moment it lands, between the daemon's rename and
// anything the daemon looks at after it. That file is the user's save,
// byte for byte the daemon's text but another file, and its answer is
// sent: the daemon knows the file it wrote by the identity it had before
// the swap, never by what is at the path just after.
func TestSaveAgainRightAfterTheRewriteIsTheUsers(t *testing.T) {
	var armed atomic.Bool
	var path atomic.Pointer[string]
	hookErr := make(chan error, 1)
	real := syncDir
	// Set before the Syncer starts (the rig's Cleanup stops it before this
	// one restores syncDir): the hook is the moment just after the rename.
	syncDir = func(dir string) error {
		if armed.CompareAndSwap(true, false) {
			p := *path.Load()
			data, err := os.ReadFile(p)
			if err == nil && strings.Contains(string(data), `"approvesDigest"`) {
				tmp := filepath.Join(dir, "saved-again")
				if err = os.WriteFile(tmp, data, 0o600); err == nil {
					err = os.Rename(tmp, p)
				}
			} else if err == nil {
				armed.Store(true) // not the rewrite with the draft yet
			}
			if err != nil {
				hookErr <- err
			}
		}
		return real(dir)
	}
	t.Cleanup(func() { syncDir = real })
	r := newRig(t)
	path.Store(&r.path)

	done := r.ask("r", permissionQuestion)
	f := r.fileWith("r")
	f.Requests[0].Questions[0].ApprovesDigest = nil
	f.Requests[0].Questions[0].Answer = json.RawMessage(`"Allow"`)
	armed.Store(true)
	saveByRename(t, r.path, marshal(t, f), "refused-save")
	if msg := r.report(); !strings.Contains(msg, `"approvesDigest"`) {
		t.Fatalf("report %q: want the refusal that names approvesDigest", msg)
	}
	select {
	case err := <-hookErr:
		t.Fatal("saving again right after the rewrite:", err)
	default:
	}
	wantAnswers(t, r.result(done), "Allow")
}
