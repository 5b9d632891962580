// Package jsonerr words what is wrong in a JSON text the way a user reads
// it: where (line and column, counted as editors count them) and what kind of
// value stood there ("a string", "an object"). The daemon, the protocol and
// the client all report JSON mistakes, and should report them alike.
//
// It knows nothing of askuser's messages or files.
package jsonerr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"unicode/utf8"
)

// LineCol is the line and column of byte offset off in data, both from 1;
// columns count characters, not bytes. An offset past the end is the end.
func LineCol(data []byte, off int) (line, col int) {
	before := data[:max(0, min(off, len(data)))]
	start := bytes.LastIndexByte(before, '\n') + 1
	return bytes.Count(before, []byte("\n")) + 1, utf8.RuneCount(before[start:]) + 1
}

// Where is "line L, column C" of byte offset off in data.
func Where(data []byte, off int) string {
	return at(LineCol(data, off))
}

func at(line, col int) string {
	return fmt.Sprintf("line %d, column %d", line, col)
}

// Lines answers LineCol for many offsets of one text without counting its
// lines again each time (10,000 requests in one file would make that
// quadratic). The zero value is ready; use it with one text only.
type Lines struct{ starts []int }

// LineCol is LineCol(data, off), data being the text l was first used with.
func (l *Lines) LineCol(data []byte, off int) (line, col int) {
	if l.starts == nil {
		l.starts = []int{0}
		for i, c := range data {
			if c == '\n' {
				l.starts = append(l.starts, i+1)
			}
		}
	}
	off = max(0, min(off, len(data)))
	line = sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off })
	return line, utf8.RuneCount(data[l.starts[line-1]:off]) + 1
}

// Where is Where(data, off), data being the text l was first used with.
func (l *Lines) Where(data []byte, off int) string {
	return at(l.LineCol(data, off))
}

// The kinds of JSON value, as a sentence names them.
const (
	String      = "a string"
	Number      = "a number"
	WholeNumber = "a whole number"
	Boolean     = "a boolean"
	List        = "a list"
	Object      = "an object"
	Null        = "null"
)

// KindOfType names what a Go type is decoded from: "a string" for a string,
// "a whole number" for an int, "an object" for a struct or a map. For the
// message of a json.UnmarshalTypeError: "must be " + KindOfType(e.Type).
func KindOfType(t reflect.Type) string {
	if t == nil {
		return "a different type"
	}
	switch t.Kind() {
	case reflect.String:
		return String
	case reflect.Bool:
		return Boolean
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return WholeNumber
	case reflect.Float32, reflect.Float64:
		return Number
	case reflect.Slice, reflect.Array:
		return List
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return Object
	}
	return "a " + t.Kind().String()
}

// KindOf names a value as encoding/json decodes it into an any: a string,
// float64 or json.Number, bool, []any, map[string]any, or nil. Other values
// (a caller's own object type) are named by their Go type's kind.
func KindOf(v any) string {
	switch v.(type) {
	case nil:
		return Null
	case string:
		return String
	case float64, json.Number:
		return Number
	case bool:
		return Boolean
	case []any:
		return List
	case map[string]any:
		return Object
	}
	return KindOfType(reflect.TypeOf(v))
}

// KindAt names the JSON value that starts with the byte first (the first
// byte of a valid value, after any space).
func KindAt(first byte) string {
	switch first {
	case '{':
		return Object
	case '[':
		return List
	case '"':
		return String
	case 't', 'f':
		return Boolean
	case 'n':
		return Null
	}
	return Number
}
