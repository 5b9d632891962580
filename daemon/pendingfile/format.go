package pendingfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"hash"
	"io"
	"strconv"
	"strings"
	"time"

	"askuser/socketproto"
	"askuser/socketproto/agenttext"
	"askuser/socketproto/previewform"
)

// Instructions is the first field of the file, verbatim from docs/contract.md §5.
const Instructions = "Fill in each \"answer\" (your text, an option's label, or its number) and save. A request is sent when all of its answers are filled. Set \"cancel\": true on a request to decline it."

// File is the pending file as the daemon writes it and as a user saves it.
type File struct {
	Instructions string `json:"instructions"`
	// Revision is read-only: the number of the daemon's rewrite the file
	// was edited from, raised on every rewrite, so that a save can be
	// merged against what the user saw (docs/contract.md §5). 0: none given.
	Revision int64 `json:"revision,omitempty"`
	// Problems is read-only: what was wrong with the last save, written
	// into the file because that is where someone answering in an editor
	// looks (their save reverted; this says why, and where their version
	// went). Ignored on reading.
	Problems Problems  `json:"problems,omitempty"`
	Requests []Request `json:"requests"`
}

// Problems is the read-only "problems" field; see File.
type Problems []string

// UnmarshalJSON ignores the field: see File.Problems.
func (*Problems) UnmarshalJSON([]byte) error { return nil }

// Request is one pending request in the file. Only RequestID, Cancel, the
// questions' text (which matches answers to questions) and the answers are
// used from a save; the rest is there for the user to read. A save must
// still keep those fields' types (a header stays a string), except
// "choices", which is ignored whatever it holds.
type Request struct {
	RequestID string          `json:"requestId"`
	Agent     string          `json:"agent,omitempty"`
	AskedAt   string          `json:"askedAt,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	Cancel    bool            `json:"cancel"`
	Questions []Question      `json:"questions"`

	// At is where the request starts in the saved file ("line 7, column 5"),
	// for reporting; Parse fills it in.
	At string `json:"-"`
}

// Question is one question of a request in the file: options are shown by
// label only, so that a user can copy one into "answer", and again in
// "choices" with their numbers and descriptions, for reading.
type Question struct {
	Question string   `json:"question"`
	Header   string   `json:"header,omitempty"`
	Options  []string `json:"options,omitempty"`
	Choices  Choices  `json:"choices,omitempty"`
	Previews Previews `json:"previews,omitempty"`
	Approves Approves `json:"approves,omitempty"`
	// ApprovesDigest is read-only too, but read: by label, the digest
	// (socketproto.PreviewDigest) of the preview "approves" shows whole.
	// A save that chooses such an option is taken with the digest its
	// buffer holds here, so the daemon knows the buffer showed the
	// preview it holds (docs/contract.md §5, §6 "Allow means seen").
	ApprovesDigest ApprovesDigest  `json:"approvesDigest,omitempty"`
	Rule           Rule            `json:"rule,omitempty"`
	MultiSelect    *bool           `json:"multiSelect,omitempty"`
	Answer         json.RawMessage `json:"answer"`
}

// Choices is the read-only "choices" field of a question with options: one
// line per option, in option order, "2. SQLite — Lightweight, file-based"
// (number, label, and the description when there is one). It is only ever
// written: reading a saved file ignores it whatever it holds (edited, a
// number, null), so that editing or deleting it changes nothing and is no
// error.
type Choices []string

// UnmarshalJSON ignores the field: see Choices.
func (*Choices) UnmarshalJSON([]byte) error { return nil }

// Previews is the read-only "previews" field of a question whose options
// have previews (a code snippet, a diagram): by label, each preview as a
// list of its lines, the way "approves" shows what an answer approves, so
// that someone answering in an editor reads what the pane shows beside the
// option, line by line rather than as one string of \n. It is a field of
// its own rather than options turned into objects: "options" stays the
// labels to copy into "answer", whatever the agent sent. An option that
// approves its preview is under "approves" instead, once. Like "choices"
// it is ignored on reading, whatever it holds, so editing it is no answer.
type Previews map[string][]string

// UnmarshalJSON ignores the field: see Previews.
func (*Previews) UnmarshalJSON([]byte) error { return nil }

// Approves is the read-only "approves" field of a question whose options
// approve their previews (a permission prompt's "Allow" approves the tool's
// whole input): by label, the whole preview as a list of its lines, so that
// a user answering in the file sees everything the answer approves, as it
// reads (docs/contract.md §6 "Allow means seen"). Like "choices" it is ignored on
// reading, whatever it holds. Other previews are under "previews".
type Approves map[string][]string

// UnmarshalJSON ignores the field: see Approves.
func (*Approves) UnmarshalJSON([]byte) error { return nil }

// ApprovesDigest is the "approvesDigest" field; see Question.ApprovesDigest.
type ApprovesDigest map[string]string

// UnmarshalJSON reads the field leniently: anything but an object of
// strings (edited, deleted, null) is no digest, which a save choosing an
// approving option is then refused for, with the reason, rather than the
// whole file failing to parse.
func (d *ApprovesDigest) UnmarshalJSON(b []byte) error {
	var m map[string]string
	if json.Unmarshal(b, &m) != nil {
		m = nil
	}
	*d = m
	return nil
}

// Rule is the read-only "rule" field of a typed question (docs/contract.md §3 "Typed
// answers"): what its answer must be, in words ("a whole number from 1 to
// 10"), so that someone answering in an editor knows before saving. Like
// "choices" it is ignored on reading, whatever it holds.
type Rule string

// UnmarshalJSON ignores the field: see Rule.
func (*Rule) UnmarshalJSON([]byte) error { return nil }

// ruleLine is a typed question's "rule": the rule, its default, and how to
// leave an optional question empty in the file ("" — null is "not yet").
func ruleLine(q socketproto.Question) Rule {
	if q.Input == nil {
		return ""
	}
	s := q.Input.Rule()
	if d := socketproto.DefaultText(q); d != "" {
		s += "; default: " + d
	}
	if !q.Input.IsRequired() {
		s += `; "" leaves it empty`
	}
	return Rule(s)
}

// choiceLine is one element of "choices": "1. PostgreSQL (Recommended)",
// then " — " and the description when the option has one. Descriptions may
// hold newlines and tabs (docs/contract.md §3); JSON escapes them like any other text.
func choiceLine(n int, o socketproto.Option) string {
	s := strconv.Itoa(n) + ". " + o.Label
	if o.Description != "" {
		s += " — " + o.Description
	}
	return s
}

// nullJSON is how an unanswered question's answer is written.
var nullJSON = json.RawMessage("null")

// Render builds the file for the pending requests (oldest first, as given),
// with each request's draft as its answers. The output is deterministic:
// the same pending set always gives the same bytes, so the watcher can tell
// the daemon's own writes from a user's save by content alone. It is the
// same text encoding/json gives with a two-space indent.
func Render(pending []socketproto.Pending) []byte {
	var r renderer
	return r.render(0, pending)
}

// renderer renders the file, reusing the text of each request that has not
// changed since the last rewrite: under a burst of 10,000 requests, encoding
// them all again for every rewrite would be most of the daemon's work.
type renderer struct {
	cache    map[string]*renderedRequest
	gen      uint64   // the render that last used an entry of cache
	problems []string // the "problems" field; none when empty
}

type renderedRequest struct {
	key  string // what the text depends on that can change: see requestKey
	text []byte
	gen  uint64
}

const (
	fileHead     = "{\n  \"instructions\": "
	revisionHead = ",\n  \"revision\": "
	problemsHead = ",\n  \"problems\": "
	requestsHead = ",\n  \"requests\": ["
	requestsTail = "\n  ]\n}\n"
	elemIndent   = "    "
)

// render builds the file as revision rev (0: no "revision" field).
func (r *renderer) render(rev int64, pending []socketproto.Pending) []byte {
	return r.build(rev, r.texts(pending))
}

// build is the file made of texts as revision rev.
func (r *renderer) build(rev int64, texts [][]byte) []byte {
	size := len(fileHead) + len(Instructions) + 16 + len(requestsHead) + len(requestsTail)
	for _, t := range texts {
		size += len(t) + 2 + len(elemIndent)
	}
	var out bytes.Buffer
	out.Grow(size)
	r.emit(&out, rev, texts)
	return out.Bytes()
}

// sum is the SHA-256 of build(rev, texts), found without holding the file:
// at 10,000 requests it is megabytes, made at every rewrite only to learn
// whether anything changed.
func (r *renderer) sum(rev int64, texts [][]byte) [32]byte {
	h := hashWriter{sha256.New()}
	r.emit(h, rev, texts)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// texts is each request's text, from the cache when it has not changed.
func (r *renderer) texts(pending []socketproto.Pending) [][]byte {
	if r.cache == nil {
		r.cache = make(map[string]*renderedRequest, len(pending))
	}
	r.gen++
	texts := make([][]byte, len(pending))
	for i, p := range pending {
		key := requestKey(p)
		c := r.cache[p.RequestID]
		if c == nil || c.key != key {
			c = &renderedRequest{key: key, text: encodeRequest(renderRequest(p))}
			r.cache[p.RequestID] = c
		}
		c.gen = r.gen
		texts[i] = c.text
	}
	for id, c := range r.cache {
		if c.gen != r.gen {
			delete(r.cache, id) // no longer pending
		}
	}
	return texts
}

// fileWriter is what emit writes the file to.
type fileWriter interface {
	io.Writer
	io.StringWriter
}

// emit writes the file, made of texts, as revision rev.
func (r *renderer) emit(w fileWriter, rev int64, texts [][]byte) {
	w.WriteString(fileHead)
	w.Write(encodeJSON(Instructions, ""))
	if rev != 0 {
		w.WriteString(revisionHead)
		var num [20]byte
		w.Write(strconv.AppendInt(num[:0], rev, 10))
	}
	if len(r.problems) > 0 {
		w.WriteString(problemsHead)
		w.Write(encodeJSON(r.problems, "  "))
	}
	w.WriteString(requestsHead)
	if len(texts) == 0 {
		w.WriteString("]\n}\n")
		return
	}
	for i, t := range texts {
		if i > 0 {
			w.WriteString(",")
		}
		w.WriteString("\n" + elemIndent)
		w.Write(t)
	}
	w.WriteString(requestsTail)
}

// hashWriter is a hash that takes strings too.
type hashWriter struct{ hash.Hash }

func (h hashWriter) WriteString(s string) (int, error) { return h.Write([]byte(s)) }

// requestKey is what a request's text depends on beyond what never changes
// while it is pending (its questions with their options and "choices",
// agent and metadata): its draft, and its creation time in case an id is
// reused after the first one resolved.
func requestKey(p socketproto.Pending) string {
	var b bytes.Buffer
	b.WriteString(p.CreatedAt.Format(time.RFC3339Nano))
	b.WriteString(p.Agent.DisplayName())
	for _, d := range p.Draft {
		b.WriteByte(0)
		b.Write(d)
	}
	return b.String()
}

// encodeRequest is one element of "requests", indented for its place.
func encodeRequest(r Request) []byte {
	if out, err := encodeJSONErr(r, elemIndent); err == nil {
		return out
	}
	// Only metadata can be malformed (the daemon validated it, so this is
	// a bug elsewhere): show the request without it rather than no file.
	r.Metadata = nil
	return encodeJSON(r, elemIndent)
}

func encodeJSON(v any, prefix string) []byte {
	out, err := encodeJSONErr(v, prefix)
	if err != nil {
		// Strings, bools and validated JSON only: cannot fail.
		panic("pendingfile: rendering the file: " + err.Error())
	}
	return out
}

func encodeJSONErr(v any, prefix string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Labels like "A & B" or "<none>" must stay readable for a person editing.
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	// Bidi controls in agent text are written as \u escapes: the value is
	// the same when read, but an editor shows the escape, not its effect,
	// so an approved command reads as what runs (docs/contract.md §5).
	return agenttext.EscapeJSON(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

func renderRequest(p socketproto.Pending) Request {
	r := Request{
		RequestID: p.RequestID,
		Agent:     p.Agent.DisplayName(),
		Questions: make([]Question, 0, len(p.Questions)),
	}
	if !p.CreatedAt.IsZero() {
		r.AskedAt = p.CreatedAt.UTC().Format(time.RFC3339)
	}
	if len(bytes.TrimSpace(p.Metadata)) > 0 && !bytes.Equal(bytes.TrimSpace(p.Metadata), nullJSON) {
		r.Metadata = p.Metadata
	}
	for i, q := range p.Questions {
		fq := Question{Question: q.Question, Header: q.Header, Rule: ruleLine(q), Answer: nullJSON}
		if len(q.Options) > 0 {
			fq.Options = make([]string, len(q.Options))
			fq.Choices = make(Choices, len(q.Options))
			for j, o := range q.Options {
				fq.Options[j] = o.Label
				fq.Choices[j] = choiceLine(j+1, o)
				if o.Preview != "" && !o.ApprovesPreview {
					if fq.Previews == nil {
						fq.Previews = Previews{}
					}
					fq.Previews[o.Label] = strings.Split(o.Preview, "\n")
				}
				if o.ApprovesPreview {
					if fq.Approves == nil {
						fq.Approves = Approves{}
					}
					fq.Approves[o.Label] = approvedLines(o)
					if fq.ApprovesDigest == nil {
						fq.ApprovesDigest = ApprovesDigest{}
					}
					fq.ApprovesDigest[o.Label] = socketproto.PreviewDigest(o.Preview)
				}
			}
			multi := q.IsMulti()
			fq.MultiSelect = &multi
		}
		// A draft that is not valid JSON would make the whole file unwritable;
		// it cannot come from Merge, but the file must never be the casualty.
		if i < len(p.Draft) && isFilled(p.Draft[i]) && json.Valid(p.Draft[i]) {
			fq.Answer = p.Draft[i]
		}
		r.Questions = append(r.Questions, fq)
	}
	return r
}

// approvedLines is what an approving option approves, line by line: a
// file tool's input as the pane draws it (the file's text, a diff;
// previewForm), else its preview as it is. Either way all of it shows,
// and the digest beside it is the preview's.
func approvedLines(o socketproto.Option) []string {
	if drawn := previewform.Render(o.PreviewForm, o.Preview); drawn != nil {
		return strings.Split(strings.TrimSuffix(previewform.Plain(drawn), "\n"), "\n")
	}
	return strings.Split(o.Preview, "\n")
}

// isFilled reports whether raw holds some value other than null.
func isFilled(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, nullJSON)
}
