package pendingfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"askuser/internal/jsonerr"
)

// ErrEmpty is what Parse returns for a file with nothing but white space in it:
// an editor that truncates before writing is seen that way for a moment, so
// it is a reason to wait for the next event, not an error to report.
var ErrEmpty = errors.New("pending file is empty")

// Parse reads a saved pending file. Its errors say where, the way editors
// count: "line 12, column 3: invalid character '}' looking for beginning of
// object key string".
func Parse(data []byte) (*File, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, ErrEmpty
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, positioned(data, err)
	}
	// Decode stops after the first value; anything but white space after it
	// is the tail of a longer file written over in place.
	if off := dec.InputOffset(); len(bytes.TrimSpace(data[off:])) > 0 {
		rest := bytes.TrimLeft(data[off:], " \t\r\n")
		at := int64(len(data) - len(rest))
		return nil, fmt.Errorf("%s: unexpected %s after the end of the file's JSON object", jsonerr.Where(data, int(at)), quoteStart(rest))
	}
	offs := requestOffsets(data)
	var lines jsonerr.Lines
	for i := range f.Requests {
		if i < len(offs) {
			f.Requests[i].At = lines.Where(data, int(offs[i]))
		} else {
			f.Requests[i].At = fmt.Sprintf("requests[%d]", i)
		}
		if f.Requests[i].RequestID == "" {
			return nil, fmt.Errorf("%s: this request has no \"requestId\"", f.Requests[i].At)
		}
	}
	return &f, nil
}

// requestOffsets finds where each element of "requests" starts, so that a
// problem with one request can be reported at its line. data has already
// decoded without error, so a plain scan will do; json.Decoder's Token walk
// is too slow for a file of 10,000 requests.
func requestOffsets(data []byte) []int64 {
	var (
		offs      []int64
		depth     int
		inString  bool
		escaped   bool
		strStart  int
		lastStr   []byte // the last string closed at depth 1
		key       []byte // the key whose value comes next at depth 1
		inReqs    bool   // inside the "requests" array (depth 2)
		wantValue bool   // inside it, a value starts at the next token
	)
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				if depth == 1 {
					lastStr = data[strStart+1 : i]
				}
			}
			continue
		}
		if inReqs && depth == 2 && wantValue && c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != ']' {
			offs = append(offs, int64(i))
			wantValue = false
		}
		switch c {
		case '"':
			inString, strStart = true, i
		case ':':
			if depth == 1 {
				key = lastStr
			}
		case ',':
			if inReqs && depth == 2 {
				wantValue = true
			}
		case '{', '[':
			depth++
			if depth == 2 && c == '[' && string(key) == "requests" {
				offs, inReqs, wantValue = offs[:0], true, true
			}
		case '}', ']':
			if depth == 2 {
				inReqs = false
			}
			depth--
		}
	}
	return offs
}

// positioned turns a decoding error into one that says line and column.
func positioned(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		// Offset counts the offending byte itself.
		return fmt.Errorf("%s: %s", jsonerr.Where(data, int(syn.Offset-1)), syn.Error())
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the file"
		}
		return fmt.Errorf("%s: %s must be %s, not %s", jsonerr.Where(data, int(valueStart(data, typ.Offset))), field, jsonerr.KindOfType(typ.Type), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: the file ends in the middle of its JSON", jsonerr.Where(data, len(data)))
	}
	return err
}

// valueStart finds where the JSON value that ends at end (exclusive) begins:
// the decoder reports a wrong type after reading a string, number or literal
// whole, but a user wants to be pointed at its start.
func valueStart(data []byte, end int64) int64 {
	i := min(end, int64(len(data))) - 1
	if i < 0 {
		return 0
	}
	switch c := data[i]; {
	case c == '"':
		for j := i - 1; j >= 0; j-- {
			if data[j] != '"' {
				continue
			}
			bs := 0
			for k := j - 1; k >= 0 && data[k] == '\\'; k-- {
				bs++
			}
			if bs%2 == 0 {
				return j
			}
		}
	case isLiteralByte(c):
		for i > 0 && isLiteralByte(data[i-1]) {
			i--
		}
	}
	return i
}

func isLiteralByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '+' || c == '-'
}

func quoteStart(b []byte) string {
	s := string(b)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > 20 {
		s = string(r[:20]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
