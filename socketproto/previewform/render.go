package previewform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"askuser/socketproto/agenttext"
)

// The forms a preview can name (Option.PreviewForm).
const (
	Write = "write" // {"file_path", "content"}: the file's text
	Edit  = "edit"  // {"file_path", "old_string", "new_string"} or {"edits": […]}: diffs
	Patch = "patch" // a patch in a string field ("command", "input", "patch", "diff"), at any depth
)

// Known reports whether form is one Render draws ("" is no form).
func Known(form string) bool { return form == Write || form == Edit || form == Patch }

// Kind is what a drawn line is.
type Kind string

const (
	Head Kind = "head" // a field of the input ("file_path: /src/a.go"), a patch's file line
	Text Kind = "text" // a line of a file's text (New is its number)
	Same Kind = "same" // a line both sides of a diff hold
	Del  Kind = "del"  // a line taken out (Old is its number)
	Add  Kind = "add"  // a line put in (New is its number)
	Hunk Kind = "hunk" // where a hunk starts ("@@ -3,4 +3,6 @@", "edit 2 of 3")
	Note Kind = "note" // said of the line before ("\ No newline at end of file")
	Rest Kind = "rest" // text of the preview after the tool's input, as it is
)

// Line is one line as drawn. Old and New are line numbers (0: none); Text
// holds no control character and no newline: a face wraps it to its width.
type Line struct {
	Kind Kind   `json:"kind"`
	Old  int    `json:"old,omitempty"`
	New  int    `json:"new,omitempty"`
	Text string `json:"text"`
}

// Render draws preview in form: nil when form is not Known or the preview
// does not begin with a JSON object that has the form's shape (a Write
// without its content, an edit without its texts, no patch found).
func Render(form, preview string) []Line {
	if !Known(form) {
		return nil
	}
	fields, rest, ok := object(preview)
	if !ok {
		return nil
	}
	r := &renderer{form: form}
	r.fields(fields, "")
	if !r.drawn {
		return nil
	}
	if rest = strings.TrimLeft(rest, "\n"); rest != "" {
		r.add(Line{Kind: Rest})
		for _, l := range strings.Split(rest, "\n") {
			r.add(Line{Kind: Rest, Text: agenttext.Clean(l, false)})
		}
	}
	return r.out
}

// field is one key of a JSON object, in the order written.
type field struct {
	key string
	raw json.RawMessage
}

// object reads the JSON object s begins with, keeping its keys' order,
// and what follows it.
func object(s string) ([]field, string, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, "", false
	}
	var fs []field
	for dec.More() {
		t, err := dec.Token()
		key, isKey := t.(string)
		if err != nil || !isKey {
			return nil, "", false
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return nil, "", false
		}
		fs = append(fs, field{key, raw})
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, "", false
	}
	return fs, s[dec.InputOffset():], true
}

type renderer struct {
	form  string
	out   []Line
	drawn bool // the form's own part was found and drawn
}

func (r *renderer) add(l Line) { r.out = append(r.out, l) }

// fields draws an object's fields; prefix names where it stands
// ("metadata."). A field the form draws its own way is drawn so; any other
// is listed plainly.
func (r *renderer) fields(fs []field, prefix string) {
	if prefix == "" {
		// The file first: indented JSON sorts the keys, and "content"
		// would come before the path it is written to.
		fs = pathFirst(fs)
	}
	edit := editStrings(fs)
	for _, f := range fs {
		name := prefix + f.key
		var drawn bool
		switch r.form {
		case Write:
			drawn = prefix == "" && r.writeField(f)
		case Edit:
			drawn = prefix == "" && r.editField(f, edit)
		case Patch:
			drawn = r.patchField(f, name)
		}
		if !drawn {
			r.plainField(name, f.raw)
		}
	}
}

// editPair is an Edit's old_string and new_string, when it has both as
// strings.
type editPair struct {
	old, new string
	ok       bool
}

func editStrings(fs []field) editPair {
	str := func(key string) (string, bool) {
		for _, f := range fs {
			if f.key == key {
				var s string
				return s, json.Unmarshal(f.raw, &s) == nil
			}
		}
		return "", false
	}
	oldS, hasOld := str("old_string")
	newS, hasNew := str("new_string")
	return editPair{old: oldS, new: newS, ok: hasOld && hasNew}
}

// writeField draws a Write's content as the file's text.
func (r *renderer) writeField(f field) bool {
	var s string
	if f.key != "content" || json.Unmarshal(f.raw, &s) != nil {
		return false
	}
	r.text(s)
	r.drawn = true
	return true
}

// editField draws an Edit's old_string and new_string as one diff (at
// old_string; new_string is then drawn already), or its list of edits.
func (r *renderer) editField(f field, e editPair) bool {
	switch {
	case f.key == "old_string" && e.ok:
		r.add(Line{Kind: Hunk, Text: fmt.Sprintf("old_string (%s) → new_string (%s)", count(e.old), count(e.new))})
		r.diff(e.old, e.new)
	case f.key == "new_string" && e.ok:
		// drawn with old_string
	case f.key == "edits" && r.edits(f.raw):
	default:
		return false
	}
	r.drawn = true
	return true
}

// patchField draws a patch held in a string or an array as a diff, and an
// object's fields under its name, where the patch may be.
func (r *renderer) patchField(f field, name string) bool {
	var s string
	switch {
	case json.Unmarshal(f.raw, &s) == nil && isPatchKey(f.key) && looksLikePatch(s):
		r.add(Line{Kind: Head, Text: name + ":"})
		r.patch(s)
		r.drawn = true
	case isArray(f.raw) && r.patchArray(name, f.raw):
		r.drawn = true
	case isObject(f.raw):
		inner, _, _ := object(string(f.raw))
		r.add(Line{Kind: Head, Text: name + ":"})
		r.fields(inner, name+".")
	default:
		return false
	}
	return true
}

// pathFirst is fs with the field naming the file first.
func pathFirst(fs []field) []field {
	for i, f := range fs {
		if f.key == "file_path" || f.key == "filePath" || f.key == "path" {
			out := append([]field{f}, fs[:i]...)
			return append(out, fs[i+1:]...)
		}
	}
	return fs
}

// plainField lists a field the form does not draw: "key: value", a string
// as its text (several lines indented under the key), anything else as
// indented JSON.
func (r *renderer) plainField(name string, raw json.RawMessage) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		lines := strings.Split(s, "\n")
		if len(lines) == 1 {
			r.add(Line{Kind: Head, Text: name + ": " + agenttext.Visible(s)})
			return
		}
		r.add(Line{Kind: Head, Text: name + ":"})
		for _, l := range lines {
			r.add(Line{Kind: Head, Text: "  " + agenttext.Visible(l)})
		}
		return
	}
	var c, b bytes.Buffer
	if json.Compact(&c, raw) != nil || json.Indent(&b, c.Bytes(), "", "  ") != nil {
		b.Reset()
		b.Write(raw)
	}
	lines := strings.Split(b.String(), "\n")
	r.add(Line{Kind: Head, Text: name + ": " + agenttext.Visible(lines[0])})
	for _, l := range lines[1:] {
		r.add(Line{Kind: Head, Text: agenttext.Visible(l)})
	}
}

// text draws a file's text, numbered.
func (r *renderer) text(s string) {
	t := split(s)
	r.add(Line{Kind: Head, Text: "content: " + t.words()})
	for i, l := range t.lines {
		r.add(Line{Kind: Text, New: i + 1, Text: agenttext.Visible(l)})
	}
	if len(t.lines) > 0 && !t.finalNL {
		r.add(Line{Kind: Note, Text: `\ No newline at end of file`})
	}
}

// edits draws a MultiEdit's edits, each as a diff; false when raw is not a
// list of edits with their texts (it is then listed as it is).
func (r *renderer) edits(raw json.RawMessage) bool {
	var es []json.RawMessage
	if json.Unmarshal(raw, &es) != nil || len(es) == 0 {
		return false
	}
	type edit struct {
		fs       []field
		old, new string
	}
	all := make([]edit, len(es))
	for i, e := range es {
		fs, rest, ok := object(string(e))
		if !ok || strings.TrimSpace(rest) != "" {
			return false
		}
		var o, n *string
		for _, f := range fs {
			var s string
			if json.Unmarshal(f.raw, &s) != nil {
				continue
			}
			switch f.key {
			case "old_string":
				o = &s
			case "new_string":
				n = &s
			}
		}
		if o == nil || n == nil {
			return false
		}
		all[i] = edit{fs, *o, *n}
	}
	r.add(Line{Kind: Head, Text: fmt.Sprintf("edits: %d", len(all))})
	for i, e := range all {
		r.add(Line{Kind: Hunk, Text: fmt.Sprintf("edit %d of %d: old_string (%s) → new_string (%s)", i+1, len(all), count(e.old), count(e.new))})
		for _, f := range e.fs {
			if f.key != "old_string" && f.key != "new_string" {
				r.plainField("  "+f.key, f.raw)
			}
		}
		r.diff(e.old, e.new)
	}
	return true
}

// patchArray draws a command given as a list ("apply_patch", "*** Begin
// Patch…"): its words listed, the patch drawn; false when none is a patch.
func (r *renderer) patchArray(name string, raw json.RawMessage) bool {
	var words []string
	if json.Unmarshal(raw, &words) != nil {
		return false
	}
	at := -1
	for i, w := range words {
		if looksLikePatch(w) {
			at = i
			break
		}
	}
	if at < 0 {
		return false
	}
	for i, w := range words {
		if i == at {
			r.add(Line{Kind: Head, Text: fmt.Sprintf("%s[%d]:", name, i)})
			r.patch(w)
			continue
		}
		r.add(Line{Kind: Head, Text: fmt.Sprintf("%s[%d]: %s", name, i, agenttext.Visible(w))})
	}
	return true
}

func isPatchKey(k string) bool {
	return k == "command" || k == "input" || k == "patch" || k == "diff"
}

// looksLikePatch: Codex's patch, or a unified diff.
func looksLikePatch(s string) bool {
	t := strings.TrimLeft(s, " \n")
	return strings.HasPrefix(t, "*** Begin Patch") || strings.HasPrefix(t, "--- ") ||
		strings.HasPrefix(t, "Index: ") || strings.HasPrefix(t, "diff ") || strings.HasPrefix(t, "@@ ") ||
		strings.Contains(s, "\n@@ ")
}

func isArray(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '['
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// count says how many lines a text has: "1 line", "12 lines", "empty".
func count(s string) string {
	n := len(split(s).lines)
	switch n {
	case 0:
		return "empty"
	case 1:
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// lined is a text cut into lines.
type lined struct {
	lines   []string
	finalNL bool // the last line ends with a newline
	crlf    bool // every line ended "\r\n", and the "\r" was taken off
}

// split cuts s at newlines. When every line ends "\r\n" the text is said
// to have CRLF line endings and the "\r" is not shown on each line; a lone
// "\r" anywhere else stays, and shows as an escape.
func split(s string) lined {
	if s == "" {
		return lined{}
	}
	t := lined{lines: strings.Split(s, "\n")}
	if t.lines[len(t.lines)-1] == "" {
		t.lines, t.finalNL = t.lines[:len(t.lines)-1], true
	}
	ends := len(t.lines)
	if !t.finalNL {
		ends-- // the last line has no line end of its own
	}
	if ends > 0 {
		t.crlf = true
		for _, l := range t.lines[:ends] {
			if !strings.HasSuffix(l, "\r") {
				t.crlf = false
				break
			}
		}
	}
	if t.crlf {
		for i := range t.lines[:ends] {
			t.lines[i] = strings.TrimSuffix(t.lines[i], "\r")
		}
	}
	return t
}

// words is what the Head line says of a text.
func (t lined) words() string {
	s := fmt.Sprintf("%d lines", len(t.lines))
	switch len(t.lines) {
	case 0:
		return "empty"
	case 1:
		s = "1 line"
	}
	if t.crlf {
		s += ", CRLF line endings"
	}
	if !t.finalNL {
		s += ", no newline at the end"
	}
	return s
}
