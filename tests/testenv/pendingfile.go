package testenv

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"askuser/daemon/pendingfile"
	"askuser/tests/testdaemon"
)

// PendingFile waits until the pending file lists exactly ids.
func PendingFile(t *testing.T, e *Env, ids ...string) *pendingfile.File {
	t.Helper()
	var file *pendingfile.File
	testdaemon.Eventually(t, fmt.Sprintf("the pending file to list %q", ids), func() (bool, string) {
		data, err := os.ReadFile(e.Pending)
		if err != nil {
			return false, err.Error()
		}
		f, err := pendingfile.Parse(data)
		if err != nil {
			return false, string(data)
		}
		var got []string
		for _, r := range f.Requests {
			got = append(got, r.RequestID)
		}
		file = f
		return slices.Equal(got, ids), string(data)
	})
	return file
}

// SavePending sets answers on request id and saves the file the way vim and
// VS Code do: a temporary file renamed over it.
func SavePending(t *testing.T, e *Env, f *pendingfile.File, id string, answers ...string) []byte {
	t.Helper()
	for i := range f.Requests {
		if f.Requests[i].RequestID == id {
			for j, a := range answers {
				if a != "" {
					f.Requests[i].Questions[j].Answer = json.RawMessage(a)
				}
			}
		}
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	RenamePending(t, e, data)
	return data
}

// RenamePending saves data as the pending file the way vim and VS Code do:
// a temporary file renamed over it.
func RenamePending(t *testing.T, e *Env, data []byte) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(e.Pending), ".pending-questions.json.swp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, e.Pending); err != nil {
		t.Fatal(err)
	}
}
