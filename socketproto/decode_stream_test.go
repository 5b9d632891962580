package socketproto

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The one-pass walk (decode_stream.go) only decides that a request decodes;
// whenever it does, what it decoded must be exactly what the careful decoder
// makes of the same bytes, and so must the type and id sniffed from a line.
func FuzzDecodeFastAgrees(f *testing.F) {
	for _, s := range []string{
		string(benchLine),
		`{"type":"ask_user_request","requestId":"req-1","tool":"ask_user_question","questions":[{"question":"Which database?","header":"DB","multiSelect":false,"options":[{"label":"PostgreSQL (Recommended)","description":"d"},{"label":"SQLite","preview":"x\ny"}]}],"metadata":{"source":"setup"},"agent":{"id":"a","name":"n","cwd":"/"},"wait":false}`,
		`{"type":"ask_user_request","questions":[{"question":"Name?"},{"question":"More?","multiSelect":true,"options":[]}]}`,
		`{"type":"ask_user_request","questions":[{"question":"Q?","question":"R?","options":[{"label":"a","label":"b"}]}]}`,
		`{"type":"ask_user_request","metadata":{ "a" : [1, 2.50, "<&>"] },"questions":[{"question":"Q?"}]}`,
		`{"type":"ask_user_request","questions":[{"question":"N?","input":{"type":"integer","minimum":1,"maximum":10,"required":false,"default":3}}]}`,
		`{"type":"ask_user_request","questions":[{"question":"T?","input":{"type":"array","items":{"type":"string","enum":["x","y"]},"default":[ "x" ]}}]}`,
		`{"type":"ask_user_request","questions":[{"question":"\ud800 \u00e9 \"q\""}],"agent":null,"wait":true}`,
		"{\"type\":\"ask_user_request\",\"questions\":[{\"question\":\"bad \xff utf8\"}]}",
		`{"type":"ask_user_request","questions":[{"question":"Q?","options":null}]} `,
		`{"Type":"list"}`, `{"type":"list","requestId":"r-1"}`, `{"type":"list"} x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var fast requestWire
		if decodeFast(line, reflect.ValueOf(&fast).Elem()) == nil {
			var slow requestWire
			members, e := decodeObject(line, "", reflect.TypeOf(slow))
			if e == nil {
				e = decodeFields(members, "", reflect.ValueOf(&slow).Elem())
			}
			if e != nil {
				t.Fatalf("the walk took %q, the careful decoder refuses it: %v", line, e)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("for %q the walk decoded\n%#v\nthe careful decoder\n%#v", line, fast, slow)
			}
		}
		if typ, id, hasType, err := sniffFast(line); err == nil {
			var env envelope
			if err := json.Unmarshal(line, &env); err != nil {
				t.Fatalf("sniffFast took %q, encoding/json refuses it: %v", line, err)
			}
			if hasType != (env.Type != nil) || hasType && typ != *env.Type || string(id) != string(env.RequestID) {
				t.Fatalf("for %q sniffFast read type %q (%v) id %s; encoding/json %v id %s", line, typ, hasType, id, env.Type, env.RequestID)
			}
		}
	})
}
