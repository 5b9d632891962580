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
//
// Message is the sentence exactly as it travels, and it names the field
// itself where one is at fault ("questions[1].options: need 2 to 4 options,
// got 5", written so by Errf); Field repeats the field for programs. The
// sentence is composed once, so nothing downstream adds the field again or
// cuts it off.
type Error struct {
	RequestID string `json:"requestId,omitempty"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	Field     string `json:"field,omitempty"`
}

func (Error) MessageType() string { return "error" }

// Error is the message as sent; the code only when there is none.
func (e *Error) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Message
}

// Errf builds an Error whose message starts with the field it names, the way
// users read them: "questions[1].options: need 2 to 4 options, got 5".
func Errf(code, field, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	return &Error{Code: code, Message: msg, Field: field}
}
