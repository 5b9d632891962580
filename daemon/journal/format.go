package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strconv"
)

// The line format of state.jsonl. Each record is one JSON object on one line
// that ends with its checksum, `{"op":"add",…,"crc":"1a2b3c4d"}`: CRC-32C
// (Castagnoli, as etcd's WAL) of the same line without the `,"crc":"…"`
// member, that is of the record exactly as json.Marshal wrote it. A byte
// flipped anywhere in the line, even one that leaves valid JSON (a digit of
// an answer, a letter of an id), no longer matches: the record is damage,
// skipped and reported like a line that does not parse, never data.
//
// The line stays plain JSON (jq reads it) and the record flat, so a person
// can still grep for `"id":"k1"`.
//
// The journal's format version is in its first line, the mark compaction
// writes ("format":2). A journal written before checksums (format 1, by an
// older askuserd) has no version and no checksums: its records are read as
// they are, and the compaction every start does rewrites it in this format.
// A record without a checksum in a format-2 journal is damage. A journal of
// a newer format than this one knows is neither replayed nor written over.

// Format is the journal format this package writes.
const Format = 2

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// crcSuffix is what follows the record's last member: `,"crc":"` + 8 hex
// digits + `"}`.
const (
	crcOpen   = `,"crc":"`
	crcSuffix = len(crcOpen) + 8 + len(`"}`)
)

// encodeRecord is r's line in state.jsonl, newline included.
func encodeRecord(r Record) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeRecord(&buf, r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeRecord appends r's line in state.jsonl to buf, newline included.
func writeRecord(buf *bytes.Buffer, r Record) error {
	// Members already encoded by the caller are written from their JSON.
	if r.PendingJSON != nil {
		r.Pending = nil
	}
	if r.ResponseJSON != nil {
		r.Response = nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if len(b) < 2 || b[len(b)-1] != '}' {
		return fmt.Errorf("a %q record did not encode as an object", r.Op)
	}
	b = appendMember(b, "pending", r.PendingJSON)
	b = appendMember(b, "response", r.ResponseJSON)
	buf.Write(b[:len(b)-1])
	buf.WriteString(crcOpen)
	buf.Write(hex8(crc32.Checksum(b, castagnoli)))
	buf.WriteString("\"}\n")
	return nil
}

// hex8 is sum in 8 lowercase hex digits (fmt's "%08x", without fmt).
func hex8(sum uint32) []byte {
	const digits = "0123456789abcdef"
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = digits[sum&0xf]
		sum >>= 4
	}
	return b[:]
}

// appendMember adds "name":raw to the object b ends with, unless raw is nil.
func appendMember(b []byte, name string, raw json.RawMessage) []byte {
	if raw == nil {
		return b
	}
	b = append(b[:len(b)-1], `,"`...)
	b = append(append(b, name...), `":`...)
	return append(append(b, raw...), '}')
}

// splitChecksum returns the record of a line that ends in a checksum and
// whether it had one; ok is false when it had one that does not match. It
// writes into line (the '}' that closes the record without its checksum).
func splitChecksum(line []byte) (record []byte, had, ok bool) {
	n := len(line)
	if n < crcSuffix+2 || !bytes.HasPrefix(line[n-crcSuffix:], []byte(crcOpen)) || !bytes.HasSuffix(line, []byte(`"}`)) {
		return line, false, false
	}
	hex := line[n-crcSuffix+len(crcOpen) : n-2]
	want, err := strconv.ParseUint(string(hex), 16, 32)
	if err != nil || len(hex) != 8 {
		return line, true, false
	}
	record = line[:n-crcSuffix+1]
	record[len(record)-1] = '}'
	return record, true, crc32.Checksum(record, castagnoli) == uint32(want)
}

// lineReader decodes the lines of one journal, in order, knowing its format
// from the first.
type lineReader struct {
	format int // 0 until the first line is read
}

// decode returns the record on line, or a problem saying why it is damage.
// newer is set when the journal says it is of a format after Format.
func (lr *lineReader) decode(line []byte) (r Record, problem string, newer int) {
	body, had, ok := splitChecksum(line)
	first := lr.format == 0
	if first {
		lr.format = 1
		if had {
			lr.format = Format
		}
	}
	switch {
	case had && !ok:
		return r, "its checksum does not match (the record was damaged)", 0
	case !had && lr.format >= 2:
		return r, "it has no checksum", 0
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return r, err.Error(), 0
	}
	if first && r.Op == OpMark && r.Format > Format {
		return r, "", r.Format
	}
	return r, "", 0
}
