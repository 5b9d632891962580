package socketproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// The fast path of the request decoder. Splitting each object into its
// members with encoding/json and decoding each member again (decodeValue)
// reads the bytes once per level of nesting, which made decoding a request
// cost as much as a whole round trip through the socket. walkValue reads a
// request in one pass instead: a tokenizer walks the objects, matching each
// key exactly against the struct's json names, and only leaf values
// (strings, numbers, booleans, raw metadata) go through encoding/json.
//
// It only ever says "this decodes" or "something is wrong": on any trouble
// the caller decodes again the careful way, whose error — which key, which
// index, in which order, with "did you mean" — is the one the user sees.
// So the two cannot disagree about what is refused and why; the walk only
// has to agree on what an accepted request holds.

// errSlowPath sends the caller to the careful decoder.
var errSlowPath = errors.New("decode the careful way")

// decoders are reused: a request is decoded on every ask.
var decoders = sync.Pool{New: func() any { return new(jsontext.Decoder) }}

// decodeFast decodes the JSON value data into v, a struct or a list of
// structs, or returns errSlowPath.
func decodeFast(data []byte, v reflect.Value) error {
	dec := decoders.Get().(*jsontext.Decoder)
	// As encoding/json reads: the last of duplicate keys wins, and invalid
	// UTF-8 reaches the leaf decoder, which makes it U+FFFD.
	dec.Reset(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	err := walkValue(dec, v)
	if err == nil {
		// One value and nothing after it, as json.Unmarshal requires.
		if _, e := dec.ReadToken(); e != io.EOF {
			err = errSlowPath
		}
	}
	dec.Reset(bytes.NewReader(nil))
	decoders.Put(dec)
	if err != nil {
		return errSlowPath
	}
	return nil
}

// walkValue decodes the next value of dec into v: structs, pointers to them
// and lists of them member by member; anything else as a leaf, by
// encoding/json, exactly as decodeValue does.
func walkValue(dec *jsontext.Decoder, v reflect.Value) error {
	if dec.PeekKind() == 'n' {
		_, err := dec.ReadToken() // null: the zero value
		return err
	}
	switch t := v.Type(); {
	case t.Kind() == reflect.Struct:
		return walkObject(dec, v)
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct:
		p := reflect.New(t.Elem())
		if err := walkObject(dec, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		if dec.PeekKind() != '[' {
			return errSlowPath
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		s := reflect.MakeSlice(t, 0, 4)
		for i := 0; dec.PeekKind() != ']'; i++ {
			s = reflect.Append(s, reflect.Zero(t.Elem()))
			if err := walkValue(dec, s.Index(i)); err != nil {
				return err
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		v.Set(s)
		return nil
	}
	return walkLeaf(dec, v)
}

// walkLeaf decodes a leaf value. Strings and booleans, most of a request,
// are taken from the token as encoding/json would store them (invalid UTF-8
// already mangled to U+FFFD by the decoder's option); anything else, and any
// mismatch of kinds, goes through encoding/json itself.
func walkLeaf(dec *jsontext.Decoder, v reflect.Value) error {
	k := dec.PeekKind()
	switch {
	case v.Kind() == reflect.String && k == '"':
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		v.SetString(tok.String())
		return nil
	case v.Kind() == reflect.Bool && (k == 't' || k == 'f'):
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		v.SetBool(tok.Bool())
		return nil
	case v.Kind() == reflect.Pointer && v.Type().Elem().Kind() == reflect.Bool && (k == 't' || k == 'f'):
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().SetBool(tok.Bool())
		v.Set(p)
		return nil
	}
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v.Addr().Interface())
}

// sniffFast reads a message's "type" and "requestId" in one pass, or says
// errSlowPath when anything is unusual (not an object, "type" not a string,
// a key that encoding/json would match to them only by case, bad syntax):
// sniff then reads it the careful way, for the error it words.
func sniffFast(line []byte) (typ string, id json.RawMessage, hasType bool, err error) {
	dec := decoders.Get().(*jsontext.Decoder)
	defer func() {
		dec.Reset(bytes.NewReader(nil))
		decoders.Put(dec)
	}()
	dec.Reset(bytes.NewReader(line), jsontext.AllowDuplicateNames(true))
	if dec.PeekKind() != '{' {
		return "", nil, false, errSlowPath
	}
	if _, err := dec.ReadToken(); err != nil {
		return "", nil, false, errSlowPath
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return "", nil, false, errSlowPath
		}
		switch key := tok.String(); {
		case key == "type":
			if dec.PeekKind() != '"' {
				return "", nil, false, errSlowPath
			}
			t, err := dec.ReadToken()
			if err != nil {
				return "", nil, false, errSlowPath
			}
			typ, hasType = t.String(), true
		case key == "requestId":
			raw, err := dec.ReadValue()
			if err != nil {
				return "", nil, false, errSlowPath
			}
			id = append(id[:0], raw...)
		case strings.EqualFold(key, "type") || strings.EqualFold(key, "requestId"):
			return "", nil, false, errSlowPath
		default:
			if err := dec.SkipValue(); err != nil {
				return "", nil, false, errSlowPath
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return "", nil, false, errSlowPath
	}
	if _, err := dec.ReadToken(); err != io.EOF { // something after the object
		return "", nil, false, errSlowPath
	}
	return typ, id, hasType, nil
}

// walkObject decodes an object into the struct v; a key v has no field for,
// or a required key absent or null, sends the caller the careful way.
func walkObject(dec *jsontext.Decoder, v reflect.Value) error {
	if dec.PeekKind() != '{' {
		return errSlowPath
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	fs := fieldsOf(v.Type())
	required, hasRequired := requiredKeys[v.Type()]
	haveRequired := false
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		i, ok := fs.index[tok.String()]
		if !ok {
			return errSlowPath
		}
		f := fs.list[i]
		if hasRequired && f.key == required {
			haveRequired = dec.PeekKind() != 'n'
		}
		fv := v.FieldByIndex(f.index)
		fv.SetZero() // a repeated key replaces what came before, as in encoding/json
		if err := walkValue(dec, fv); err != nil {
			return err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	if hasRequired && !haveRequired {
		return errSlowPath
	}
	return nil
}
