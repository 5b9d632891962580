package claudecode

import (
	"os"
	"path/filepath"
	"testing"
)

// settledRig is a Claude Code config dir with one session's record and an
// empty transcript, as the hook finds them.
type settledRig struct {
	t          *testing.T
	record     string
	transcript string
}

func newSettledRig(t *testing.T) *settledRig {
	config := t.TempDir()
	r := &settledRig{t: t,
		record:     filepath.Join(config, "sessions", "4242.json"),
		transcript: filepath.Join(config, "projects", "-work", "s1.jsonl")}
	for _, d := range []string{filepath.Dir(r.record), filepath.Dir(r.transcript)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(r.transcript, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return r
}

// says writes the session record's status as Claude Code does.
func (r *settledRig) says(status, waitingFor string) {
	r.t.Helper()
	b := `{"sessionId":"s1","status":"` + status + `","waitingFor":"` + waitingFor + `"}`
	if err := os.WriteFile(r.record, []byte(b), 0o600); err != nil {
		r.t.Fatal(err)
	}
}
