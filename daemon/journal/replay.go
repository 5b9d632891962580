package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// replay reads the journal at path into m. Damage never stops the daemon: a
// last line cut short by a crash is dropped; a line that is not a record, or a
// record that fits nothing before it, is skipped and the file kept as
// path.corrupt for a person to look at. A file that cannot be read at all is
// moved aside the same way and replay starts empty.
func replay(path string, m *model, logf func(string, ...any)) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return moveAside(path, err, logf)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var (
		lineNo, bad, good int
		firstBad          string
	)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && err == io.EOF {
			// No newline: the daemon died mid-append. Everything before is good.
			logf("state journal %s: dropped a last line cut short (%d bytes), kept the %d records before it", path, len(line), good)
			break
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Close()
			return moveAside(path, err, logf)
		}
		lineNo++
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			bad++
			if firstBad == "" {
				firstBad = fmt.Sprintf("line %d: %v", lineNo, err)
			}
			continue
		}
		if _, ok := m.apply(r); !ok {
			bad++
			if firstBad == "" {
				firstBad = fmt.Sprintf("line %d: a %q record for %q fits nothing before it", lineNo, r.Op, r.ID)
			}
			continue
		}
		good++
	}
	if bad > 0 {
		keep := path + ".corrupt"
		if err := copyFile(path, keep); err != nil {
			logf("state journal %s: could not keep a copy at %s: %v", path, keep, err)
		}
		logf("state journal %s: skipped %d damaged records (first at %s), recovered the other %d; the damaged file is kept at %s",
			path, bad, firstBad, good, keep)
	}
	return nil
}

// moveAside renames an unreadable journal to path.corrupt so a fresh one can start.
func moveAside(path string, cause error, logf func(string, ...any)) error {
	keep := path + ".corrupt"
	if err := os.Rename(path, keep); err != nil {
		return fmt.Errorf("state journal %s cannot be read (%v) nor moved aside: %w", path, cause, err)
	}
	logf("state journal %s cannot be read (%v); moved it to %s and started empty", path, cause, keep)
	return nil
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o600)
}
