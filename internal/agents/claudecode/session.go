package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// Interactive Claude Code 2.1.330 keeps a record of each running session in
// ~/.claude/sessions/PID.json ($CLAUDE_CONFIG_DIR/sessions), rewritten as
// the session's state changes: while a permission dialog is up it says
// "status":"waiting","waitingFor":"permission prompt", and the moment the
// user answers it there the status moves on ("busy" while an allowed
// command runs, "idle" once the turn ended). That is the first sign a hook
// can see that its prompt was settled in Claude Code's own dialog: the
// transcript has nothing until the call's result, which for a long command
// comes much later.

// sessionRecord is the part of a session record the hook reads.
type sessionRecord struct {
	SessionID  string `json:"sessionId"`
	Status     string `json:"status"`
	WaitingFor string `json:"waitingFor"`
}

// asking reports whether the record says a permission dialog is up.
func (r sessionRecord) asking() bool {
	return r.Status == "waiting" && r.WaitingFor == "permission prompt"
}

// sessionWatch follows one session's record.
type sessionWatch struct {
	dir       string // the sessions directory
	sessionID string
	path      string // the session's record, once found
	seenAsk   bool   // the record said a permission dialog was up
	moved     int    // polls in a row since then that it said otherwise
}

// newSessionWatch follows the record of sessionID, found beside the
// session's transcript: Claude Code keeps transcripts in
// CONFIG/projects/PROJECT/SESSION.jsonl and records in CONFIG/sessions, so
// CONFIG is whatever ~/.claude or $CLAUDE_CONFIG_DIR this Claude Code uses.
// Nil when there is no session to follow.
func newSessionWatch(transcriptPath, sessionID string) *sessionWatch {
	projects := filepath.Dir(filepath.Dir(transcriptPath))
	if sessionID == "" || transcriptPath == "" || filepath.Base(projects) != "projects" {
		return nil
	}
	return &sessionWatch{dir: filepath.Join(filepath.Dir(projects), "sessions"), sessionID: sessionID}
}

// record reads the session's record; ok false when there is none (yet).
func (w *sessionWatch) record() (sessionRecord, bool) {
	if w.path != "" {
		if r, ok := readSessionRecord(w.path); ok && r.SessionID == w.sessionID {
			return r, true
		}
		w.path = "" // the session restarted under another pid: look again
	}
	paths, _ := filepath.Glob(filepath.Join(w.dir, "*.json"))
	for _, p := range paths {
		if r, ok := readSessionRecord(p); ok && r.SessionID == w.sessionID {
			w.path = p
			return r, true
		}
	}
	return sessionRecord{}, false
}

func readSessionRecord(path string) (sessionRecord, bool) {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 1<<20 {
		return sessionRecord{}, false
	}
	var r sessionRecord
	return r, json.Unmarshal(b, &r) == nil
}

// settledPolls is how many polls in a row the record must say no dialog is
// up before the prompt counts as settled: with two prompts up at once,
// Claude Code moves from one to the next, and a record written between
// them must not withdraw the second.
const settledPolls = 2

// poll reads the record and reports whether it now says the dialog, seen
// up, was answered. busy says whether the session is then running a tool.
func (w *sessionWatch) poll() (settled, busy bool) {
	r, ok := w.record()
	if !ok {
		return false, false
	}
	if r.asking() {
		w.seenAsk, w.moved = true, 0
		return false, false
	}
	if !w.seenAsk {
		return false, false // the dialog is not up yet
	}
	w.moved++
	return w.moved >= settledPolls, r.Status == "busy"
}
