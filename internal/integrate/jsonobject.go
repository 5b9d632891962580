package integrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"askuser/internal/jsonerr"
)

// JSONObject is a JSON object that keeps its keys in the order the file had
// them, so that merging askuser's settings into an agent's file changes
// nothing else, not even the order a person wrote things in.
type JSONObject struct {
	keys []string
	vals map[string]any // *JSONObject, []any, json.Number, string, bool or nil
}

func NewJSONObject() *JSONObject { return &JSONObject{vals: map[string]any{}} }

func (o *JSONObject) Get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// Keys are o's keys in the file's order.
func (o *JSONObject) Keys() []string { return append([]string(nil), o.keys...) }

// Set replaces k's value where it stands, or appends k.
func (o *JSONObject) Set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Object is k's value as an object, made (and set) if k is absent. A k that
// holds something else is an error naming it.
func (o *JSONObject) Object(k, path string) (*JSONObject, error) {
	v, ok := o.vals[k]
	if !ok || v == nil {
		c := NewJSONObject()
		o.Set(k, c)
		return c, nil
	}
	c, ok := v.(*JSONObject)
	if !ok {
		return nil, fmt.Errorf("%s: must be an object, got %s", path, jsonKind(v))
	}
	return c, nil
}

// List is k's value as a list (nil if absent). A k that holds something else
// is an error naming it.
func (o *JSONObject) List(k, path string) ([]any, error) {
	v, ok := o.vals[k]
	if !ok || v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: must be a list, got %s", path, jsonKind(v))
	}
	return l, nil
}

// jsonKind names a value parseJSONObject made, for an error message.
func jsonKind(v any) string {
	if _, ok := v.(*JSONObject); ok {
		return jsonerr.Object
	}
	return jsonerr.KindOf(v)
}

func (o *JSONObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := jsonEncode(k)
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		vb, err := jsonEncode(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonEncode is json.Marshal without escaping <, > and &, which a person
// editing the file would not expect to see as \u003c.
func jsonEncode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// jsonIndent is the file's new text: two-space indentation, a final newline.
func jsonIndent(o *JSONObject) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(o); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// parseJSONObject reads a whole file holding one JSON object. An empty file
// is an empty object. Errors say where, as line and column.
func parseJSONObject(data []byte) (*JSONObject, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return NewJSONObject(), nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := jsonValue(dec, 0)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = errors.New("more than one JSON value")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", jsonerr.Where(data, int(dec.InputOffset())), err)
	}
	o, ok := v.(*JSONObject)
	if !ok {
		return nil, fmt.Errorf("must hold a JSON object, got %s", jsonKind(v))
	}
	return o, nil
}

// maxJSONDepth bounds how deeply a settings file may nest: real ones nest a
// handful of levels, and recursion without a bound turns `{"x":` and a few
// megabytes of `[` into a stack overflow instead of an error.
const maxJSONDepth = 1000

func jsonValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewJSONObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("expected a key, got %v", kt)
				}
				v, err := jsonValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			l := []any{}
			for dec.More() {
				v, err := jsonValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return l, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	}
	return tok, nil
}

// JSONObj is an object with keys and values given in turn, in that order.
func JSONObj(kv ...any) *JSONObject {
	o := NewJSONObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}
