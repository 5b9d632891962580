package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// No line is ever appended onto a torn fragment (docs/contract.md §10): a file whose
// last line has no newline (a crash mid-append, a failed write that could
// not be cut back, a file cut short by hand) would glue the next line onto
// it, and both would be unreadable for good. So before appending, the end
// of the file is made whole.
//
// The fragment is cut away rather than ended with a newline: it is never a
// whole line, any entry it began is written again whole (the journal keeps
// what history lacks and rebuilds it at start), and a fragment kept would
// be reported as damage by every reader forever. Two exceptions: a last line
// that is whole but lost only its newline is given one (it is data), and a
// file that cannot be cut (append-only, chattr +a) gets the newline instead,
// so that the next line still starts clean. state.jsonl needs none of this:
// a journal whose end is not whole is rewritten from the live state
// (compaction), which drops the fragment the same way.

// maxWholeCheck bounds the fragment read back to see whether it is a whole
// line; a longer one is cut away unread.
const maxWholeCheck = 64 << 20

// endsWhole reports whether f is empty or ends with a newline.
func endsWhole(f *os.File) (bool, error) {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err == nil, err
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], fi.Size()-1); err != nil {
		return false, err
	}
	return b[0] == '\n', nil
}

// repairTail makes f (open for reading and appending) end with a whole line.
// whole says whether a last line without its newline is a whole line, and
// returns its key (a history entry's request id); completed is that key
// when such a line was kept. note says what was done, for the log; empty
// when the file already ended whole.
func repairTail(f *os.File, whole func(line []byte) string) (note, completed string, err error) {
	if ok, err := endsWhole(f); ok || err != nil {
		return "", "", err
	}
	fi, err := f.Stat()
	if err != nil {
		return "", "", err
	}
	size := fi.Size()
	start, err := lineStart(f, size)
	if err != nil {
		return "", "", err
	}
	n := size - start
	if n <= maxWholeCheck {
		frag := make([]byte, n)
		if _, err := f.ReadAt(frag, start); err != nil {
			return "", "", err
		}
		if key := whole(frag); key != "" {
			if _, err := f.Write([]byte{'\n'}); err != nil {
				return "", "", err
			}
			return "its last line had lost its newline; it was given one", key, nil
		}
	}
	if terr := f.Truncate(start); terr != nil {
		if _, err := f.Write([]byte{'\n'}); err != nil {
			return "", "", fmt.Errorf("its last line is cut short (%d bytes) and can be neither cut away (%v) nor ended: %w", n, terr, err)
		}
		return fmt.Sprintf("its last line is cut short (%d bytes) and could not be cut away (%v); it was ended with a newline so that the next line starts clean", n, terr), "", nil
	}
	return fmt.Sprintf("cut away a last line cut short (%d bytes); an entry it began is written again whole", n), "", nil
}

// lineStart is the offset just after the last newline before size (0: the
// file is one line), read backwards in blocks.
func lineStart(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		n := min(int64(len(buf)), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// wholeHistoryEntry returns the request id of a line that is a whole
// history entry, or "".
func wholeHistoryEntry(line []byte) string {
	var h struct {
		RequestID string `json:"requestId"`
	}
	if json.Unmarshal(line, &h) != nil {
		return ""
	}
	return h.RequestID
}
