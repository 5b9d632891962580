package socketproto

import "fmt"

// Error codes of SPEC §4.
const (
	CodeBadJSON             = "bad_json"
	CodeMessageTooLarge     = "message_too_large"
	CodeUnknownType         = "unknown_type"
	CodeInvalidRequest      = "invalid_request"
	CodeInvalidAnswer       = "invalid_answer"
	CodeDuplicateRequestID  = "duplicate_request_id"
	CodeSubagentNotAllowed  = "subagent_not_allowed"
	CodeNotFound            = "not_found"
	CodeAlreadyResolved     = "already_resolved"
	CodeQueueFull           = "queue_full"
	CodeUnsupportedProtocol = "unsupported_protocol"
	// CodeStateUnavailable: the state dir could not take the write that the
	// acknowledgement would promise; nothing was accepted.
	CodeStateUnavailable = "state_unavailable"
)

// SubagentMessage is the exact refusal SPEC §4 gives a sub-agent.
const SubagentMessage = "only the parent conversation can ask the user questions; return your question to the parent agent instead"

// Error is the protocol's error message; it is also a Go error so that rules
// can return it directly.
type Error struct {
	RequestID string `json:"requestId,omitempty"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	Field     string `json:"field,omitempty"`
}

func (Error) MessageType() string { return "error" }

func (e *Error) Error() string {
	if e.Field != "" && !startsWith(e.Message, e.Field) {
		return e.Field + ": " + e.Message
	}
	return e.Message
}

func startsWith(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

// Errf builds an Error whose message starts with the field it names, the way
// users read them: "questions[1].options: need 2 to 4 options, got 5".
func Errf(code, field, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	return &Error{Code: code, Message: msg, Field: field}
}
