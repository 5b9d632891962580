// Package history owns history.jsonl (docs/contract.md §10): the line each resolved
// request leaves in the state dir, which the daemon's journal appends and
// askuser-client history reads without a daemon. It knows the line and how to
// read the file, nothing of the journal that writes it or the queue behind it.
package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"askuser/internal/statefile"
	"askuser/socketproto"
)

// File is history.jsonl's name in the state dir.
const File = "history.jsonl"

// Entry is one line of history.jsonl.
type Entry struct {
	RequestID         string                 `json:"requestId"`
	Tool              string                 `json:"tool,omitempty"`
	Questions         []socketproto.Question `json:"questions"`
	Answers           []socketproto.Answer   `json:"answers"`
	AnswersByQuestion map[string]string      `json:"answersByQuestion,omitempty"`
	Outcome           socketproto.Outcome    `json:"outcome"`
	Via               socketproto.Via        `json:"via,omitempty"`
	Time              time.Time              `json:"time"`
	CreatedAt         time.Time              `json:"createdAt"`
	Agent             *socketproto.Agent     `json:"agent,omitempty"`
	Metadata          json.RawMessage        `json:"metadata,omitempty"`
	// Settled: how the user settled a withdrawn request in the agent's own
	// prompt ("allowed in Claude Code's own dialog").
	Settled string `json:"settled,omitempty"`
	// Permission and RuleID: a permission prompt's marker, and the rule
	// that answered it (via "rule") or that the user's answer made.
	Permission *socketproto.PermissionPrompt `json:"permission,omitempty"`
	RuleID     int                           `json:"ruleId,omitempty"`
}

// Line is one entry as read, with the line it was read from (--json shows
// it as stored).
type Line struct {
	Entry
	Raw []byte
}

// Open opens the history at path for reading, through statefile: anything
// but a regular file there (a FIFO, which would block the reader until a
// writer came) is a *statefile.NotRegularError and is left alone.
func Open(path string) (*os.File, error) {
	f, _, err := statefile.Open(path, unix.O_RDONLY, 0)
	return f, err
}

// Last reads the last n entries of the history (all when n is 0); lines
// that are not entries (a torn last line, garbage) are counted, not fatal.
func Last(path string, n int) (out []Line, skipped int, err error) {
	f, err := Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	for {
		line, rerr := br.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			var e Line
			if json.Unmarshal(line, &e.Entry) != nil || e.RequestID == "" {
				skipped++
			} else {
				e.Raw = line
				out = append(out, e)
				if n > 0 && len(out) > 2*n {
					out = append(out[:0], out[len(out)-n:]...) // keep memory bounded on a long history
				}
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, skipped, fmt.Errorf("reading %s: %w", path, rerr)
		}
	}
	if n > 0 && len(out) > n {
		out = out[len(out)-n:]
	}
	return out, skipped, nil
}
