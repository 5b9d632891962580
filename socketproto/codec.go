package socketproto

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"askuser/internal/jsonerr"
)

// ErrTooLarge is returned by LineReader.ReadLine for a line over the limit.
// The rest of that line has not been consumed: the connection is unusable.
var ErrTooLarge = errors.New("message too large")

// Encode renders msg as one NDJSON line: its fields with "type" first, then '\n'.
func Encode(msg Message) ([]byte, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	return Frame(msg.MessageType(), body)
}

// Frame is Encode for a message already encoded: body is what json.Marshal
// made of a message of type typ. A message written to a file as well (the
// daemon's journal) is encoded once.
func Frame(typ string, body []byte) ([]byte, error) {
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("socketproto: a %q message does not encode to a JSON object", typ)
	}
	return frame(typ, body), nil
}

// EncodeRequestAdded is Encode(RequestAdded{Request: p}) for p already
// encoded: request is what json.Marshal made of p (the daemon's journal
// wrote the same bytes).
func EncodeRequestAdded(request []byte) []byte {
	body := make([]byte, 0, len(request)+len(`{"request":}`))
	body = append(append(append(body, `{"request":`...), request...), '}')
	return frame(RequestAdded{}.MessageType(), body)
}

// frame is Frame for a body known to be a JSON object.
func frame(typ string, body []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(body) + 32)
	buf.WriteString(`{"type":`)
	t, _ := json.Marshal(typ)
	buf.Write(t)
	if len(body) > 2 {
		buf.WriteByte(',')
	}
	buf.Write(body[1:])
	buf.WriteByte('\n')
	return buf.Bytes()
}

// LineReader reads NDJSON lines of at most max bytes (the newline excluded).
type LineReader struct {
	br  *bufio.Reader
	max int
	buf []byte
}

// NewLineReader reads lines from r; max <= 0 means DefaultLimits().MaxMessageBytes.
func NewLineReader(r io.Reader, max int) *LineReader {
	if max <= 0 {
		max = DefaultLimits().MaxMessageBytes
	}
	// A small buffer: the daemon holds one per connection, and 10,000 agents may
	// wait at once; longer lines are assembled across ReadSlice calls.
	return &LineReader{br: bufio.NewReaderSize(r, 4096), max: max}
}

// ReadLine returns the next line without its newline (and without a trailing
// '\r'). The slice is valid until the next call. Blank lines are skipped. A
// final line without a newline is returned as io.ErrUnexpectedEOF: a client
// that disconnects mid-line did not send a message.
func (lr *LineReader) ReadLine() ([]byte, error) {
	for {
		lr.buf = lr.buf[:0]
		for {
			chunk, err := lr.br.ReadSlice('\n')
			// A partial line may still end in the '\r' of a CRLF, so it is
			// only known to be too long past max+1 bytes; a whole line is
			// measured without its line ending. Either way at most one
			// buffer's worth is held beyond the limit.
			if len(lr.buf)+len(chunk) > lr.max+2 {
				return nil, ErrTooLarge
			}
			lr.buf = append(lr.buf, chunk...)
			if err == nil {
				if len(bytes.TrimSuffix(bytes.TrimSuffix(lr.buf, []byte("\n")), []byte("\r"))) > lr.max {
					return nil, ErrTooLarge
				}
				break
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				if len(lr.buf) > lr.max+1 {
					return nil, ErrTooLarge
				}
				continue
			}
			// Whitespace after the last newline is not a message cut short.
			if errors.Is(err, io.EOF) && len(bytes.TrimSpace(lr.buf)) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		line := bytes.TrimRight(lr.buf, "\r\n")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return line, nil
	}
}

// LineWriter writes messages as NDJSON lines; safe for concurrent use.
type LineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func NewLineWriter(w io.Writer) *LineWriter { return &LineWriter{w: w} }

// Write encodes msg and writes it as one line.
func (lw *LineWriter) Write(msg Message) error {
	b, err := Encode(msg)
	if err != nil {
		return err
	}
	lw.mu.Lock()
	defer lw.mu.Unlock()
	_, err = lw.w.Write(b)
	return err
}

// envelope is the part of every message read before knowing its type.
type envelope struct {
	Type      *string         `json:"type"`
	RequestID json.RawMessage `json:"requestId"`
}

// sniff checks that line is a UTF-8 JSON object with a string "type", and
// returns the type and, leniently, the requestId for error replies.
func sniff(line []byte) (typ, requestID string, perr *Error) {
	if !utf8.Valid(line) {
		return "", "", Errf(CodeBadJSON, "", "message is not valid UTF-8 (at byte %d)", firstInvalidUTF8(line))
	}
	// Unmarshal accepts null for a struct: catch it (and other non-objects
	// that are valid JSON) before it looks like an object without "type".
	if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '{' && json.Valid(t) {
		return "", "", Errf(CodeBadJSON, "", "message must be a JSON object, got %s", jsonerr.KindAt(t[0]))
	}
	var env envelope
	if typ, rawID, hasType, err := sniffFast(line); err == nil {
		env.RequestID = rawID
		if hasType {
			env.Type = &typ
		}
	} else if err := json.Unmarshal(line, &env); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "" {
			return "", "", Errf(CodeBadJSON, "", "message must be a JSON object, got %s", te.Value)
		}
		if errors.As(err, &te) && te.Field == "type" {
			return "", "", Errf(CodeInvalidRequest, "type", "must be a string, got %s", te.Value)
		}
		return "", "", Errf(CodeBadJSON, "", "not valid JSON: %s", err.Error())
	}
	// The id is echoed in error replies only when it is a valid id: a reply
	// must never carry an id no request could have.
	var id string
	if n := len(env.RequestID); n >= 2 && env.RequestID[0] == '"' && env.RequestID[n-1] == '"' &&
		requestIDPattern.MatchString(string(env.RequestID[1:n-1])) {
		// The pattern allows no '\\' and no '"': the JSON string is its bytes.
		id = string(env.RequestID[1 : n-1])
	} else if json.Unmarshal(env.RequestID, &id) != nil || !requestIDPattern.MatchString(id) {
		id = ""
	}
	if env.Type == nil {
		return "", id, &Error{RequestID: id, Code: CodeInvalidRequest, Field: "type", Message: `type: missing; every message needs a "type"`}
	}
	return *env.Type, id, nil
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// DecodeFromClient decodes a line a client sent to the daemon. The error, if
// any, is ready to send back (with the requestId when one could be read).
func DecodeFromClient(line []byte) (Message, *Error) {
	typ, id, perr := sniff(line)
	if perr != nil {
		return nil, perr
	}
	decode, known := clientDecoders[typ]
	if !known {
		err := Errf(CodeUnknownType, "type", "unknown message type %q", typ)
		err.RequestID = id
		return nil, err
	}
	msg, err := decode(line)
	if err != nil {
		if err.RequestID == "" {
			err.RequestID = id
		}
		return nil, err
	}
	return msg, nil
}

// clientDecoders read each message a client may send, by its type, with the
// checks of its fields that need nothing but the message.
var clientDecoders = map[string]func([]byte) (Message, *Error){
	"hello": decodeChecked[Hello](),
	"ask_user_request": func(line []byte) (Message, *Error) {
		m, err := DecodeRequest(line)
		return m, err
	},
	"wait": decodeChecked(func(m Wait) *Error { return checkRequestID("requestId", m.RequestID, true) }),
	"cancel": decodeChecked(
		func(m Cancel) *Error { return checkRequestID("requestId", m.RequestID, true) },
		func(m Cancel) *Error { return checkVia(m.Via) },
		func(m Cancel) *Error { return checkSettled(m.Settled) }),
	"subscribe": decodeChecked(func(m Subscribe) *Error {
		if m.Role != "" && m.Role != RolePane && m.Role != RoleWatch {
			return Errf(CodeInvalidRequest, "role", "must be %q or %q, got %q", RolePane, RoleWatch, m.Role)
		}
		return nil
	}),
	"list":   bare(ListRequest{}),
	"status": bare(StatusRequest{}),
	"answer": decodeChecked(
		func(m AnswerRequest) *Error { return checkRequestID("requestId", m.RequestID, true) },
		func(m AnswerRequest) *Error {
			if m.Answers == nil {
				return Errf(CodeInvalidRequest, "answers", "missing; give one answer per question")
			}
			return nil
		},
		func(m AnswerRequest) *Error { return checkVia(m.Via) }),
	"draft": func(line []byte) (Message, *Error) {
		m, err := decodeDraft(line)
		return m, err
	},
	"rules": bare(RulesRequest{}),
	"revoke_rule": decodeChecked(
		func(m RevokeRule) *Error {
			if m.ID <= 0 {
				return Errf(CodeInvalidRequest, "id", "must be a rule's id (askuser-client rules lists them), got %d", m.ID)
			}
			return nil
		},
		func(m RevokeRule) *Error { return checkVia(m.Via) }),
	"activity": bare(Activity{}),
	"push_key": bare(PushKeyRequest{}),
	"push_subscribe": decodeChecked(func(m PushSubscribe) *Error {
		if len(m.Subscription) == 0 || string(m.Subscription) == "null" {
			return Errf(CodeInvalidRequest, "subscription", "missing; give the browser's PushSubscription as JSON")
		}
		return nil
	}),
	"push_unsubscribe": decodeChecked(func(m PushUnsubscribe) *Error {
		if m.Endpoint == "" {
			return Errf(CodeInvalidRequest, "endpoint", "missing; give the subscription's endpoint")
		}
		return nil
	}),
}

// decodeChecked reads a message of type M, then holds it to checks in
// order: the first that fails is the error.
func decodeChecked[M Message](checks ...func(M) *Error) func([]byte) (Message, *Error) {
	return func(line []byte) (Message, *Error) {
		var m M
		if err := decodeInto(line, &m); err != nil {
			return nil, err
		}
		for _, check := range checks {
			if err := check(m); err != nil {
				return nil, err
			}
		}
		return m, nil
	}
}

// bare is a message with nothing to read but its type.
func bare(m Message) func([]byte) (Message, *Error) {
	return func([]byte) (Message, *Error) { return m, nil }
}

// decodeDraft reads a draft message. Index and answer are required: a
// missing answer is not the same as null (which clears the draft), and a
// missing index would silently mean the first question. Whether the index
// names a question, and whether the answer fits it, only the daemon knows.
func decodeDraft(line []byte) (DraftRequest, *Error) {
	var raw struct {
		RequestID string          `json:"requestId"`
		Index     *int            `json:"index"`
		Answer    json.RawMessage `json:"answer"`
		Via       Via             `json:"via"`
	}
	if err := decodeInto(line, &raw); err != nil {
		return DraftRequest{}, err
	}
	m := DraftRequest{RequestID: raw.RequestID, Answer: raw.Answer, Via: raw.Via}
	if err := checkRequestID("requestId", m.RequestID, true); err != nil {
		return m, err
	}
	if raw.Index == nil {
		return m, Errf(CodeInvalidRequest, "index", "missing; give the question's position, from 0")
	}
	m.Index = *raw.Index
	if m.Answer == nil {
		return m, Errf(CodeInvalidRequest, "answer", "missing; give the answer so far, or null to clear it")
	}
	return m, checkVia(m.Via)
}

func checkVia(via Via) *Error {
	switch via {
	case "", ViaPane, ViaCLI, ViaWeb:
		return nil
	}
	return Errf(CodeInvalidRequest, "via", "must be %q, %q or %q, got %q", ViaPane, ViaWeb, ViaCLI, via)
}

// checkSettled holds a cancel's "settled" to one short line: it is shown
// as a notice and written to history.
func checkSettled(s string) *Error {
	if n := utf8.RuneCountInString(s); n > MaxSettledChars {
		return Errf(CodeInvalidRequest, "settled", "at most %d characters, got %d", MaxSettledChars, n)
	}
	if !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return Errf(CodeInvalidRequest, "settled", "must be valid UTF-8 on one line, without control characters")
	}
	return nil
}

// ErrUnknownMessage is returned by DecodeFromDaemon (and so Conn.Recv) for a
// line whose type this client does not know, as a newer daemon may send: the
// connection is fine, and a client skips the line.
var ErrUnknownMessage = errors.New("unknown message type")

// ErrMalformedMessage is returned by DecodeFromDaemon for a line that is not
// a message of its type (not JSON, a field of the wrong type): that line is
// lost, the connection is fine.
var ErrMalformedMessage = errors.New("malformed message")

// fromDaemon decodes each message type a daemon sends.
var fromDaemon = map[string]func(line []byte) (Message, error){
	"hello":              decodeAs[Hello],
	"ask_user_queued":    decodeAs[Queued],
	"ask_user_response":  decodeAs[Response],
	"ok":                 decodeAs[OK],
	"snapshot":           decodeAs[Snapshot],
	"list":               decodeAs[List],
	"status":             decodeAs[Status],
	"request_added":      decodeAs[RequestAdded],
	"request_updated":    decodeAs[RequestUpdated],
	"request_resolved":   decodeAs[RequestResolved],
	"state":              decodeAs[StateEvent],
	"pending_file_error": decodeAs[PendingFileError],
	"state_dir_error":    decodeAs[StateDirError],
	"rules":              decodeAs[Rules],
	"rule_answered":      decodeAs[RuleAnswered],
	"rule_not_saved":     decodeAs[RuleNotSaved],
	"config_changed":     decodeAs[ConfigChanged],
	"file_error":         decodeAs[FileError],
	"push_key":           decodeAs[PushKey],
	"error":              decodeAs[*Error], // a pointer, as *Error is the Go error
}

// decodeAs unmarshals line as a message of type M.
func decodeAs[M Message](line []byte) (Message, error) {
	var m M
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// DecodeFromDaemon decodes a line the daemon sent to a client. Its errors
// wrap ErrUnknownMessage or ErrMalformedMessage: a line lost, never a
// connection (see Broken).
func DecodeFromDaemon(line []byte) (Message, error) {
	typ, _, perr := sniff(line)
	if perr != nil {
		// %v, not %w: a line that is not a message must not pass for the
		// daemon's own error message (*Error) with errors.As.
		return nil, fmt.Errorf("%w from daemon: %v", ErrMalformedMessage, perr)
	}
	decode, ok := fromDaemon[typ]
	if !ok {
		return nil, fmt.Errorf("%w %q from daemon", ErrUnknownMessage, typ)
	}
	msg, err := decode(line)
	if err != nil {
		return nil, fmt.Errorf("%w from daemon: decoding %s: %w", ErrMalformedMessage, typ, err)
	}
	return msg, nil
}

// decodeInto unmarshals line into v, turning type mismatches into errors that
// name the field.
func decodeInto(line []byte, v any) *Error {
	if err := json.Unmarshal(line, v); err != nil {
		return jsonFieldError(err, "")
	}
	return nil
}

// jsonFieldError converts an encoding/json error into an invalid_request Error
// naming the field; prefix is prepended to the field path.
func jsonFieldError(err error, prefix string) *Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if prefix != "" {
			if field == "" {
				field = prefix
			} else {
				field = prefix + "." + field
			}
		}
		return Errf(CodeInvalidRequest, field, "must be %s, got %s", jsonerr.KindOfType(te.Type), te.Value)
	}
	return Errf(CodeBadJSON, prefix, "%s", err.Error())
}
