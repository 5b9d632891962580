package socketproto

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"askuser/internal/didyoumean"
)

// requestIDPattern is [A-Za-z0-9._:-]{1,128}, checked by hand: the regexp
// with its {1,128} bound expands to 128 states and costs ~0.6 ms to compile at
// every client start.
var requestIDPattern = idMatcher{}

type idMatcher struct{}

func (idMatcher) MatchString(id string) bool {
	if len(id) == 0 || len(id) > MaxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9',
			c == '.', c == '_', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}

// checkRequestID enforces docs/contract.md §4's id pattern; required says whether empty is an error.
func checkRequestID(field, id string, required bool) *Error {
	if id == "" {
		if required {
			return Errf(CodeInvalidRequest, field, "missing")
		}
		return nil
	}
	if !requestIDPattern.MatchString(id) {
		return Errf(CodeInvalidRequest, field, "must match [A-Za-z0-9._:-]{1,128}, got %q", truncateForError(id))
	}
	return nil
}

func truncateForError(s string) string {
	r := []rune(s)
	if len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// The request decoder. A request's keys are spelled in one place, the json
// tags of Request, Question, Option, Input and Agent (messages.go, input.go),
// and are matched exactly: encoding/json alone would take "multiselect" or
// "OPTIONS" for multiSelect and options, and a key it does not know would
// vanish, so that a typo silently changed the question. Every way of asking
// (the daemon's socket, `askuser-client ask`, the MCP tools) decodes here.

// DecodeRequest decodes an ask_user_request object: the message as it
// travels (its "type", when present, must be "ask_user_request") or a request
// file given to `askuser-client ask`. A key that is not one of the request's,
// exactly as spelled, is refused naming it, with "did you mean" when it is a
// known key miscased or mistyped; a wrongly typed value is named by its path,
// "questions[1].multiSelect". The rules of ValidateRequest are not applied.
func DecodeRequest(data []byte) (AskUserRequest, *Error) {
	var w requestWire
	var e *Error
	if decodeFast(data, reflect.ValueOf(&w).Elem()) != nil {
		w = requestWire{}
		var members map[string]json.RawMessage
		members, e = decodeObject(data, "", reflect.TypeOf(w))
		if e == nil {
			e = decodeFields(members, "", reflect.ValueOf(&w).Elem())
		}
	}
	if e == nil && w.Type != "" && w.Type != w.MessageType() {
		e = Errf(CodeInvalidRequest, "type", "must be %q when given, got %q", w.MessageType(), truncateForError(w.Type))
	}
	if e == nil {
		e = checkRequestID("requestId", w.RequestID, false)
	}
	if e == nil {
		w.Metadata, e = DecodeMetadata(w.Metadata)
	}
	if e == nil && w.Questions == nil {
		e = errNoQuestions()
	}
	if e == nil {
		e = finishQuestions(w.Questions, "questions")
	}
	if e != nil {
		return AskUserRequest{}, e
	}
	return w.AskUserRequest, nil
}

// requestWire is a request message as it travels: the request, "wait", and
// the message's own "type".
type requestWire struct {
	AskUserRequest
	Type string `json:"type"`
}

// DecodeQuestions decodes a request's "questions": a JSON list of question
// objects, held to DecodeRequest's rules and named as "questions[i]…".
// Missing (empty or null) is an error, as in a request.
func DecodeQuestions(data []byte) ([]Question, *Error) {
	if isNull(data) {
		return nil, errNoQuestions()
	}
	var qs []Question
	if decodeFast(data, reflect.ValueOf(&qs).Elem()) != nil {
		qs = nil
		if e := decodeValue(data, "questions", reflect.ValueOf(&qs).Elem()); e != nil {
			return nil, e
		}
	}
	return qs, finishQuestions(qs, "questions")
}

// DecodeQuestion decodes one question object by DecodeRequest's rules;
// field is where it stands, for errors ("questions[0]").
func DecodeQuestion(data []byte, field string) (Question, *Error) {
	var q Question
	if decodeFast(data, reflect.ValueOf(&q).Elem()) != nil {
		q = Question{}
		if e := decodeValue(data, field, reflect.ValueOf(&q).Elem()); e != nil {
			return q, e
		}
	}
	qs := []Question{q}
	e := finishQuestion(qs, 0, field)
	return qs[0], e
}

// DecodeMetadata checks a request's metadata: absent, null or an object,
// kept as given.
func DecodeMetadata(data []byte) (json.RawMessage, *Error) {
	if isNull(data) {
		return nil, nil
	}
	if bytes.TrimSpace(data)[0] != '{' {
		return nil, Errf(CodeInvalidRequest, "metadata", "must be an object")
	}
	return append(json.RawMessage(nil), data...), nil
}

// UnknownFieldError refuses key, found in the object at field ("" for the
// top level) where only known are allowed: "questions[0].multiselect: unknown
// field; did you mean "multiSelect"?", or the allowed keys when none is close.
func UnknownFieldError(field, key string, known []string) *Error {
	f := key
	if field != "" {
		f = field + "." + key
	}
	if guess := nearestKey(key, known); guess != "" {
		return Errf(CodeInvalidRequest, f, "unknown field; did you mean %q?", guess)
	}
	names := make([]string, len(known))
	for i, k := range known {
		names[i] = strconv.Quote(k)
	}
	sort.Strings(names)
	return Errf(CodeInvalidRequest, f, "unknown field; allowed: %s", strings.Join(names, ", "))
}

func errNoQuestions() *Error {
	return Errf(CodeInvalidRequest, "questions", "missing; give at least one question")
}

// finishQuestions applies what decoding by type cannot say: an empty
// options list is no list, and an input fills in the options it implies.
func finishQuestions(qs []Question, field string) *Error {
	for i := range qs {
		if e := finishQuestion(qs, i, fieldIndex(field, i)); e != nil {
			return e
		}
	}
	return nil
}

func finishQuestion(qs []Question, i int, qf string) *Error {
	q := &qs[i]
	// An empty list is kept as nil: both mean a free-text question, and a
	// request must read back the same after Encode drops it.
	if len(q.Options) == 0 {
		q.Options = nil
	}
	if q.Input != nil {
		if e := normalizeDefault(q.Input, qf+".input"); e != nil {
			return e
		}
		*q = ApplyInput(*q)
	}
	return nil
}

// normalizeDefault keeps an input's default in the form Encode writes, so
// that a request reads back the same.
func normalizeDefault(in *Input, f string) *Error {
	if isNull(in.Default) {
		in.Default = nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(in.Default))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return jsonFieldError(err, f+".default")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return Errf(CodeInvalidRequest, f+".default", "%v", err)
	}
	in.Default = b
	return nil
}

// decodeObject splits the JSON object data into its members, keys exactly as
// written, and refuses a key that is not one of t's json names.
func decodeObject(data []byte, field string, t reflect.Type) (map[string]json.RawMessage, *Error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, jsonFieldError(err, field)
	}
	fs := fieldsOf(t)
	var unknown []string
	for k := range members {
		if _, ok := fs.index[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown) // the same one named each time
		return nil, UnknownFieldError(field, unknown[0], fs.keys)
	}
	return members, nil
}

// decodeFields decodes members into the struct v, in v's field order, each
// by decodeValue; null is the zero value. Members v has no field for (a
// message's "type") are left to the caller.
func decodeFields(members map[string]json.RawMessage, field string, v reflect.Value) *Error {
	for _, f := range fieldsOf(v.Type()).list {
		raw, ok := members[f.key]
		if !ok || isNull(raw) {
			continue
		}
		path := f.key
		if field != "" {
			path = field + "." + f.key
		}
		if e := decodeValue(raw, path, v.FieldByIndex(f.index)); e != nil {
			return e
		}
	}
	return nil
}

// decodeValue decodes raw into v, field being its path for errors. Structs,
// pointers to them and lists of them are decoded member by member, so that
// their keys are checked and a wrong value is named with its index.
func decodeValue(raw json.RawMessage, field string, v reflect.Value) *Error {
	if isNull(raw) {
		return nil
	}
	switch t := v.Type(); {
	case t.Kind() == reflect.Struct:
		members, e := decodeObject(raw, field, t)
		if e != nil {
			return e
		}
		if key, ok := requiredKeys[t]; ok && isNull(members[key]) {
			return Errf(CodeInvalidRequest, field+"."+key, "missing")
		}
		return decodeFields(members, field, v)
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct:
		p := reflect.New(t.Elem())
		if e := decodeValue(raw, field, p.Elem()); e != nil {
			return e
		}
		v.Set(p)
		return nil
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		var elems []json.RawMessage
		if e := unmarshalField(raw, field, &elems); e != nil {
			return e
		}
		s := reflect.MakeSlice(t, len(elems), len(elems))
		for i, el := range elems {
			if e := decodeValue(el, fieldIndex(field, i), s.Index(i)); e != nil {
				return e
			}
		}
		v.Set(s)
		return nil
	}
	return unmarshalField(raw, field, v.Addr().Interface())
}

// requiredKeys are the keys without which an object means nothing: a
// question's text and an option's label. ("question": "" is there but empty,
// a rule ValidateRequest names.)
var requiredKeys = map[reflect.Type]string{
	reflect.TypeFor[Question](): "question",
	reflect.TypeFor[Option]():   "label",
}

// structFields is what decoding needs of a struct type: its json keys in
// field order (embedded structs' inlined), and each key's field.
type structFields struct {
	list  []structField
	keys  []string
	index map[string]int
}

type structField struct {
	key   string
	index []int
}

var fieldCache sync.Map // reflect.Type → *structFields

func fieldsOf(t reflect.Type) *structFields {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*structFields)
	}
	fs := &structFields{index: map[string]int{}}
	collectFields(t, nil, fs)
	fieldCache.Store(t, fs)
	return fs
}

func collectFields(t reflect.Type, at []int, fs *structFields) {
	for i := range t.NumField() {
		sf := t.Field(i)
		index := append(append([]int(nil), at...), i)
		tag := sf.Tag.Get("json")
		if sf.Anonymous && tag == "" {
			collectFields(sf.Type, index, fs)
			continue
		}
		key, _, _ := strings.Cut(tag, ",")
		if !sf.IsExported() || key == "-" || key == "" {
			continue
		}
		fs.index[key] = len(fs.list)
		fs.list = append(fs.list, structField{key: key, index: index})
		fs.keys = append(fs.keys, key)
	}
}

// nearestKey is the known key that typed most likely meant (didyoumean's
// one rule).
func nearestKey(typed string, known []string) string { return didyoumean.Nearest(typed, known) }

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// unmarshalField decodes raw (if present) into v; a mismatch names field.
func unmarshalField(raw json.RawMessage, field string, v any) *Error {
	if isNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return jsonFieldError(err, field)
	}
	return nil
}

func fieldIndex(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}
