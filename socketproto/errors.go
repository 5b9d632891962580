package socketproto

import "fmt"

// ErrorCode is an error's code of docs/contract.md §4.
type ErrorCode string

// Error codes of docs/contract.md §4.
const (
	CodeBadJSON             ErrorCode = "bad_json"
	CodeMessageTooLarge     ErrorCode = "message_too_large"
	CodeUnknownType         ErrorCode = "unknown_type"
	CodeInvalidRequest      ErrorCode = "invalid_request"
	CodeInvalidAnswer       ErrorCode = "invalid_answer"
	CodeDuplicateRequestID  ErrorCode = "duplicate_request_id"
	CodeSubagentNotAllowed  ErrorCode = "subagent_not_allowed"
	CodeNotFound            ErrorCode = "not_found"
	CodeAlreadyResolved     ErrorCode = "already_resolved"
	CodeQueueFull           ErrorCode = "queue_full"
	CodeUnsupportedProtocol ErrorCode = "unsupported_protocol"
	// CodeStateUnavailable: the state dir could not take the write that the
	// acknowledgement would promise; nothing was accepted.
	CodeStateUnavailable ErrorCode = "state_unavailable"
)

// SubagentMessage is the exact refusal docs/contract.md §4 gives a sub-agent.
const SubagentMessage = "only the parent conversation can ask the user questions; return your question to the parent agent instead"

// Error is the protocol's error message; it is also a Go error so that rules
// can return it directly.
//
// Message is the sentence exactly as it travels, and it names the field
// itself where one is at fault ("questions[1].options: need 2 to 4 options,
// got 5", written so by Errf); Field repeats the field for programs. The
// sentence is composed once, so nothing downstream adds the field again or
// cuts it off.
type Error struct {
	RequestID string    `json:"requestId,omitempty"`
	Code      ErrorCode `json:"code"`
	Message   string    `json:"message"`
	Field     string    `json:"field,omitempty"`
}

func (Error) MessageType() string { return "error" }

// Error is the message as sent; the code only when there is none.
func (e *Error) Error() string {
	if e.Message == "" {
		return string(e.Code)
	}
	return e.Message
}

// Errf builds an Error whose message starts with the field it names, the way
// users read them: "questions[1].options: need 2 to 4 options, got 5".
func Errf(code ErrorCode, field, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	return &Error{Code: code, Message: msg, Field: field}
}
