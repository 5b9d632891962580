package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"time"
)

// Interactive Claude Code shows its own permission dialog while the
// PermissionRequest hook waits in askuser, and when the user answers there
// first, Claude Code 2.1.330 does not end the hook: it runs the tool and
// carries on, and the hook would wait in askuser for an answer nobody needs
// until the session ends. Nothing but the session's transcript (the
// hook input's transcript_path, a JSON line per entry) says the call was
// decided: the assistant's tool_use is written there before or after the
// decision (transcript writes are batched), but the tool_result only once
// the call ran or was refused. So the hook follows the transcript and
// withdraws its question when the call's tool_result appears. While the
// allowed command still runs, askuser's copy is still up.

// transcriptPoll is how often the transcript is read for new lines.
const transcriptPoll = 250 * time.Millisecond

// transcriptTail bounds the part of the transcript read at the start for
// the call's tool_use: it is among the last entries, and a long session's
// transcript runs to many megabytes.
const transcriptTail = 8 << 20

// transcriptWatch follows one transcript for the tool_result of a call of
// tool with input.
type transcriptWatch struct {
	path   string
	tool   string
	input  any
	offset int64           // where the next unread line starts
	calls  map[string]bool // ids of matching tool_use blocks not yet answered
}

// transcriptEntry is the part of a transcript line the watch reads.
type transcriptEntry struct {
	Type    string `json:"type"`
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type transcriptBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
}

// newTranscriptWatch reads the end of the transcript as it is now; it
// returns nil when there is nothing to follow. A call already answered
// there (an earlier identical one) does not count.
func newTranscriptWatch(path, tool string, input json.RawMessage) *transcriptWatch {
	if path == "" {
		return nil
	}
	var in any
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	w := &transcriptWatch{path: path, tool: tool, input: in, calls: map[string]bool{}}
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

// line notes a matching tool_use and reports whether the line holds the
// tool_result of one noted.
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
	answered := false
	for _, b := range blocks {
		switch {
		case e.Type == "assistant" && b.Type == "tool_use" && b.Name == w.tool && b.ID != "":
			var in any
			if json.Unmarshal(b.Input, &in) == nil && reflect.DeepEqual(in, w.input) {
				w.calls[b.ID] = true
			}
		case e.Type == "user" && b.Type == "tool_result" && w.calls[b.ToolUseID]:
			delete(w.calls, b.ToolUseID)
			answered = true
		}
	}
	return answered
}

// answered is closed once the call's tool_result is in the transcript;
// the watch stops when stop is closed.
func (w *transcriptWatch) answered(stop <-chan struct{}) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(transcriptPoll)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if w.read() {
					close(done)
					return
				}
			}
		}
	}()
	return done
}
