package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"

	"askuser/internal/history"
)

// replay reads the journal at path into m. Damage never stops the daemon: a
// last line cut short by a crash is dropped; a line that is not a record,
// fails its checksum (format.go), is longer than any record can be, or fits
// nothing before it is skipped and the file kept as path.corrupt for a
// person to look at. A journal that cannot be read at all (or is not a
// regular file) is logged and replay starts empty; the first write then says
// why the state dir is unusable. A journal of a newer format is not
// replayed: newer is its format, and it must not be written over.
func replay(path string, m *model, maxLine int, logf func(string, ...any)) (newer int) {
	f, err := openRegular(path, unix.O_RDONLY, false)
	if errors.Is(err, fs.ErrNotExist) {
		return 0
	}
	if err != nil {
		logf("state journal: cannot read it, nothing restored: %v", err)
		return 0
	}
	defer f.Close()
	rp := &replayer{path: path, m: m, maxLine: maxLine, logf: logf}
	err = eachLine(f, maxLine, rp.line)
	if rp.newer > 0 {
		logf("state journal %s is format %d, written by a newer askuserd (this one reads up to format %d): nothing restored, and it is left as it is",
			path, rp.newer, Format)
		return rp.newer
	}
	if err != nil {
		logf("state journal %s: reading stopped at an error, kept the %d records before it: %v", path, rp.good, err)
		rp.bad++
	}
	if rp.bad > 0 {
		rp.keepDamaged()
	}
	return 0
}

// replayer is one replay under way: what it kept and what it skipped.
type replayer struct {
	path    string
	m       *model
	maxLine int
	logf    func(string, ...any)

	lr        lineReader
	good, bad int
	firstBad  string
	newer     int // the format of a journal too new to read, once seen
}

// line replays one line of the journal (eachLine's fn).
func (rp *replayer) line(lineNo int, line []byte, tooLong, last bool) {
	switch {
	case rp.newer > 0:
	case last:
		// No newline: the daemon died mid-append. Everything before is good.
		size := fmt.Sprintf("%d bytes", len(line))
		if tooLong {
			size = fmt.Sprintf("over %d bytes", rp.maxLine)
		}
		rp.logf("state journal %s: dropped a last line cut short (%s), kept the %d records before it", rp.path, size, rp.good)
	case tooLong:
		rp.damaged(fmt.Sprintf("line %d: longer than %d bytes", lineNo, rp.maxLine))
	case len(bytes.TrimSpace(line)) == 0:
	default:
		rp.record(lineNo, line)
	}
}

// record applies the record on a line, or counts it damaged.
func (rp *replayer) record(lineNo int, line []byte) {
	r, why, newer := rp.lr.decode(line)
	if rp.newer = newer; newer > 0 {
		return
	}
	switch {
	case why != "":
		rp.damaged(fmt.Sprintf("line %d: %s", lineNo, why))
	case !rp.m.apply(r):
		rp.damaged(fmt.Sprintf("line %d: a %q record for %q fits nothing before it", lineNo, r.Op, r.ID))
	default:
		rp.good++
	}
}

func (rp *replayer) damaged(problem string) {
	rp.bad++
	if rp.firstBad == "" {
		rp.firstBad = problem
	}
}

// keepDamaged keeps a copy of the damaged journal for a person to look at.
func (rp *replayer) keepDamaged() {
	keep := rp.path + ".corrupt"
	if err := copyFile(rp.path, keep); err != nil {
		rp.logf("state journal %s: could not keep a copy at %s: %v", rp.path, keep, err)
	}
	rp.logf("state journal %s: skipped %d damaged records (first at %s), recovered the other %d; the damaged file is kept at %s",
		rp.path, rp.bad, rp.firstBad, rp.good, keep)
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
// after offset mark. Every resolution since the mark appended its line after
// it, so one short scan finds each; ids that come twice are counted. A file
// shorter than the mark (or gone) was cut or replaced: the lines before the
// mark may be gone too, so it is read from its start for every result the
// journal still holds (all), which are the ones that can be written again.
func missingHistory(path string, mark int64, resolved, all []history.Entry, logf func(string, ...any)) []history.Entry {
	f, cut, err := openHistoryAt(path, mark)
	if f != nil {
		defer f.Close()
	}
	if cut && len(all) > 0 {
		logf("history %s is shorter than when the journal was last compacted (cut or replaced): "+
			"looking in it for each of the %d resolved requests the journal still keeps", path, len(all))
		resolved = all
	}
	if len(resolved) == 0 {
		return nil
	}
	seen := map[string]int{}
	if err == nil {
		seen = countRequestIDs(f)
	} else if !errors.Is(err, fs.ErrNotExist) {
		logf("history: cannot read it to check it is whole: %v", err)
	}
	var missing []history.Entry
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

// openHistoryAt opens history.jsonl at offset mark. cut says the file is
// shorter than mark, or gone when mark is past its start; a file shorter
// than mark is read from its start, as is one that cannot be measured.
func openHistoryAt(path string, mark int64) (f *os.File, cut bool, err error) {
	f, err = openRegular(path, unix.O_RDONLY, false)
	if err != nil {
		return nil, mark > 0 && errors.Is(err, fs.ErrNotExist), err
	}
	fi, serr := f.Stat()
	switch {
	case serr != nil:
		return f, false, nil
	case fi.Size() < mark:
		return f, true, nil
	}
	_, _ = f.Seek(mark, io.SeekStart)
	return f, false, nil
}

// countRequestIDs counts how often each requestId comes in what is left of
// r's lines.
func countRequestIDs(r io.Reader) map[string]int {
	seen := map[string]int{}
	_ = eachLine(r, 64<<20, func(_ int, line []byte, tooLong, _ bool) {
		var h struct {
			RequestID string `json:"requestId"`
		}
		if !tooLong && json.Unmarshal(line, &h) == nil {
			seen[h.RequestID]++
		}
	})
	return seen
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
