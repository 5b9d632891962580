package claudecode

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"strings"
	"time"
)

// Interactive Claude Code shows its own permission dialog while the
// PermissionRequest hook waits in askuser, and when the user answers there
// first, Claude Code 2.1.330 does not end the hook (no signal; its stdout
// stays open): it runs the tool and carries on. The session's transcript
// (the hook input's transcript_path, a JSON line per entry) says nothing of
// the decision until the call's tool_result: at once for a refusal, only
// once the command ended for an allowed one. Claude Code's own session
// record says it sooner (session.go); the transcript says how
// it went, and is all there is where that record is missing.

// transcriptTail bounds the part of the transcript read at the start for
// the call's tool_use: it is among the last entries, and a long session's
// transcript runs to many megabytes.
const transcriptTail = 8 << 20

// transcriptWatch follows one transcript for the tool_result of this very
// call of tool with input. The hook input names no tool_use_id, so the call
// is found in the transcript: the newest tool_use of the same tool and input
// not yet answered there. An identical twin's result never counts: not one
// written before the hook began (a sequential twin, whose result may reach
// the file after the hook started), nor one of another id.
type transcriptWatch struct {
	path     string
	tool     string
	input    any
	start    time.Time       // when the hook began
	offset   int64           // where the next unread line starts
	mine     string          // this call's tool_use id, once seen
	answered map[string]bool // ids of calls whose result is in the transcript
	result   *callResult     // this call's result, once read
}

// callResult is what this call's tool_result says of the user's decision.
type callResult struct {
	denied bool // refused in Claude Code's dialog, not run
}

// transcriptEntry is the part of a transcript line the watch reads.
type transcriptEntry struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Message   struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type transcriptBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

// newTranscriptWatch reads the end of the transcript as it is now; it
// returns nil when there is nothing to follow; start is when the hook
// began. A call already answered
// there (an earlier identical one) does not count.
func newTranscriptWatch(path, tool string, input json.RawMessage, start time.Time) *transcriptWatch {
	if path == "" {
		return nil
	}
	var in any
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	w := &transcriptWatch{path: path, tool: tool, input: in, start: start, answered: map[string]bool{}}
	if st, err := os.Stat(path); err == nil && st.Size() > transcriptTail {
		w.offset = st.Size() - transcriptTail
		w.skipPartialLine()
	}
	w.read()
	return w
}

// skipPartialLine moves the offset, which fell inside a line, to the next.
func (w *transcriptWatch) skipPartialLine() {
	f, err := os.Open(w.path)
	if err != nil {
		return
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	off := w.offset
	for {
		n, err := f.ReadAt(buf, off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			w.offset = off + int64(i) + 1
			return
		}
		off += int64(n)
		if err != nil {
			w.offset = off
			return
		}
	}
}

// read takes the complete lines written since the last read and reports
// whether one of them answered the call.
func (w *transcriptWatch) read() bool {
	f, err := os.Open(w.path)
	if err != nil {
		return false // not written yet
	}
	defer f.Close()
	if _, err := f.Seek(w.offset, io.SeekStart); err != nil {
		return false
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return false
	}
	answered := false
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // a line still being written is read next time
		}
		line := data[:i]
		data = data[i+1:]
		w.offset += int64(i) + 1
		if w.line(line) {
			answered = true
		}
	}
	return answered
}

// line notes a matching tool_use (the newest not yet answered is this
// call) and reports whether the line holds this call's tool_result.
func (w *transcriptWatch) line(line []byte) bool {
	// Most lines are neither; only these two are decoded.
	if !bytes.Contains(line, []byte(`"tool_use"`)) && !bytes.Contains(line, []byte(`"tool_result"`)) {
		return false
	}
	var e transcriptEntry
	if json.Unmarshal(line, &e) != nil || (e.Type != "assistant" && e.Type != "user") {
		return false
	}
	var blocks []transcriptBlock
	if json.Unmarshal(e.Message.Content, &blocks) != nil {
		return false
	}
	found := false
	for _, b := range blocks {
		switch {
		case e.Type == "assistant" && b.Type == "tool_use" && b.Name == w.tool && b.ID != "" && !w.answered[b.ID]:
			var in any
			if json.Unmarshal(b.Input, &in) == nil && reflect.DeepEqual(in, w.input) {
				w.mine = b.ID
			}
		case e.Type == "user" && b.Type == "tool_result" && b.ToolUseID != "":
			w.answered[b.ToolUseID] = true
			if b.ToolUseID == w.mine && !w.before(e.Timestamp) {
				w.result = &callResult{denied: refusal(b.Content)}
				found = true
			}
		}
	}
	return found
}

// before reports whether an entry's timestamp is earlier than the hook's
// start: that result belongs to a call decided before this hook was asked.
// A timestamp that does not parse says nothing.
func (w *transcriptWatch) before(stamp string) bool {
	t, err := time.Parse(time.RFC3339Nano, stamp)
	return err == nil && t.Before(w.start.Truncate(time.Millisecond))
}

// refusals start the result Claude Code 2.1.330 gives a call the user
// refused in its dialog (No, No with feedback, Esc).
var refusals = []string{
	"The user doesn't want to proceed with this tool use",
	"The user doesn't want to take this action right now",
	"[Request interrupted by user for tool use]",
}

// refusal reports whether a tool_result's content (a string, or text
// blocks) is Claude Code's word that the user refused the call.
func refusal(content json.RawMessage) bool {
	var text string
	if json.Unmarshal(content, &text) != nil {
		var blocks []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(content, &blocks)
		for _, b := range blocks {
			text += b.Text
		}
	}
	for _, r := range refusals {
		if strings.HasPrefix(strings.TrimSpace(text), r) {
			return true
		}
	}
	return false
}
