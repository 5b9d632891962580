package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"golang.org/x/sys/unix"
)

// replay reads the journal at path into m. Damage never stops the daemon: a
// last line cut short by a crash is dropped; a line that is not a record, is
// longer than any record can be, or fits nothing before it is skipped and
// the file kept as path.corrupt for a person to look at. A journal that
// cannot be read at all (or is not a regular file) is logged and replay
// starts empty; the first write then says why the state dir is unusable.
func replay(path string, m *model, maxLine int, logf func(string, ...any)) {
	f, err := openRegular(path, unix.O_RDONLY, false)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		logf("state journal: cannot read it, nothing restored: %v", err)
		return
	}
	defer f.Close()
	var (
		bad, good int
		firstBad  string
	)
	err = eachLine(f, maxLine, func(lineNo int, line []byte, tooLong, last bool) {
		if last {
			// No newline: the daemon died mid-append. Everything before is good.
			size := fmt.Sprintf("%d bytes", len(line))
			if tooLong {
				size = fmt.Sprintf("over %d bytes", maxLine)
			}
			logf("state journal %s: dropped a last line cut short (%s), kept the %d records before it", path, size, good)
			return
		}
		problem := ""
		var r Record
		switch {
		case tooLong:
			problem = fmt.Sprintf("line %d: longer than %d bytes", lineNo, maxLine)
		case len(bytes.TrimSpace(line)) == 0:
			return
		default:
			if err := json.Unmarshal(line, &r); err != nil {
				problem = fmt.Sprintf("line %d: %v", lineNo, err)
			} else if !m.apply(r) {
				problem = fmt.Sprintf("line %d: a %q record for %q fits nothing before it", lineNo, r.Op, r.ID)
			}
		}
		if problem != "" {
			bad++
			if firstBad == "" {
				firstBad = problem
			}
			return
		}
		good++
	})
	if err != nil {
		logf("state journal %s: reading stopped at an error, kept the %d records before it: %v", path, good, err)
		bad++
	}
	if bad > 0 {
		keep := path + ".corrupt"
		if err := copyFile(path, keep); err != nil {
			logf("state journal %s: could not keep a copy at %s: %v", path, keep, err)
		}
		logf("state journal %s: skipped %d damaged records (first at %s), recovered the other %d; the damaged file is kept at %s",
			path, bad, firstBad, good, keep)
	}
}

// eachLine calls fn for each line of r, without its newline. A line longer
// than max is never held whole: fn gets tooLong and an empty line. The last
// line, when it has no newline, comes with last set.
func eachLine(r io.Reader, max int, fn func(lineNo int, line []byte, tooLong, last bool)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	tooLong := false
	for lineNo := 1; ; {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == nil:
			fn(lineNo, bytes.TrimSuffix(line, []byte("\n")), tooLong, false)
			lineNo++
			line, tooLong = line[:0], false
		case errors.Is(err, bufio.ErrBufferFull):
			// Part of a long line: keep reading it.
		case errors.Is(err, io.EOF):
			if len(line) > 0 || tooLong {
				fn(lineNo, line, tooLong, true)
			}
			return nil
		default:
			return err
		}
	}
}

// missingHistory returns the entries of resolved that history.jsonl lacks
// after offset mark (from its start if the file is shorter: it was cut or
// replaced). Every resolution since the mark appended its line after it, so
// one short scan finds each; ids that come twice are counted.
func missingHistory(path string, mark int64, resolved []HistoryEntry, logf func(string, ...any)) []HistoryEntry {
	if len(resolved) == 0 {
		return nil
	}
	seen := map[string]int{}
	f, err := openRegular(path, unix.O_RDONLY, false)
	if err == nil {
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Size() >= mark {
			_, _ = f.Seek(mark, io.SeekStart)
		}
		_ = eachLine(f, 64<<20, func(_ int, line []byte, tooLong, _ bool) {
			var h struct {
				RequestID string `json:"requestId"`
			}
			if !tooLong && json.Unmarshal(line, &h) == nil {
				seen[h.RequestID]++
			}
		})
	} else if !errors.Is(err, fs.ErrNotExist) {
		logf("history: cannot read it to check it is whole: %v", err)
	}
	var missing []HistoryEntry
	for _, h := range resolved {
		if seen[h.RequestID] > 0 {
			seen[h.RequestID]--
			continue
		}
		missing = append(missing, h)
	}
	if len(missing) > 0 {
		logf("history: %d resolved requests were missing from %s; writing them", len(missing), path)
	}
	return missing
}

func copyFile(from, to string) error {
	in, err := openRegular(from, unix.O_RDONLY, false)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := openRegular(to, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC, false)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
