// Package acp is all askuser knows of the Agent Client Protocol's shapes
// (docs/contract.md §11 "ACP"): the methods and fields `askuser-client
// acp-proxy` reads as it relays, how an agent's session/request_permission
// becomes a permission prompt in askuser and an answer there becomes the
// agent's outcome, and what `askuser-client integrate zed` writes. The
// versions it follows are those of the official library pinned for the
// tests (@agentclientprotocol/sdk 2.4.0, ACP protocol version 1). It knows
// nothing of relaying lines or of the daemon's connection.
package acp

import "encoding/json"

// The methods the proxy looks at; every other one passes by unread.
const (
	MethodInitialize        = "initialize"
	MethodSessionNew        = "session/new"
	MethodSessionLoad       = "session/load"
	MethodSessionResume     = "session/resume"
	MethodSessionPrompt     = "session/prompt"
	MethodSessionCancel     = "session/cancel"
	MethodRequestPermission = "session/request_permission"
	MethodElicitation       = "elicitation/create"
	// MethodCancelRequest is the notification that cancels a request sent
	// earlier, as @agentclientprotocol/sdk 2.4.0 names it
	// (PROTOCOL_METHODS.cancel_request; later schema drafts call it
	// "request/cancel"). Its params are {"requestId": ID}.
	MethodCancelRequest = "$/cancel_request"
)

// Envelope is what the proxy reads of a JSON-RPC line: enough to tell a
// request, a notification and a response apart and match a response to
// its request.
type Envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// IsResponse reports whether e answers a request: an id and no method.
func (e Envelope) IsResponse() bool { return len(e.ID) > 0 && e.Method == "" }

// IsRequest reports whether e is a request: a method and an id.
func (e Envelope) IsRequest() bool { return len(e.ID) > 0 && e.Method != "" }

// InitializeResult is the part of the agent's initialize response read:
// its name, for the pane.
type InitializeResult struct {
	AgentInfo *struct {
		Name  string `json:"name"`
		Title string `json:"title"`
	} `json:"agentInfo"`
}

// AgentName is the agent's name for people: its title, else its name.
func (r InitializeResult) AgentName() string {
	if r.AgentInfo == nil {
		return ""
	}
	if r.AgentInfo.Title != "" {
		return r.AgentInfo.Title
	}
	return r.AgentInfo.Name
}

// InitializeParams is the part of the editor's initialize request read: who
// the editor is, for the words that say where a prompt was answered.
type InitializeParams struct {
	ClientInfo *struct {
		Name  string `json:"name"`
		Title string `json:"title"`
	} `json:"clientInfo"`
}

// EditorName is the editor's name for people, or "".
func (p InitializeParams) EditorName() string {
	if p.ClientInfo == nil {
		return ""
	}
	if p.ClientInfo.Title != "" {
		return p.ClientInfo.Title
	}
	return p.ClientInfo.Name
}

// SessionParams is what session/new, session/load and session/resume say
// of the session: its directory (and, for load and resume, its id).
type SessionParams struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
}

// SessionResult is session/new's response: the new session's id.
type SessionResult struct {
	SessionID string `json:"sessionId"`
}

// SessionRef is a prompt's or a cancellation's session.
type SessionRef struct {
	SessionID string `json:"sessionId"`
}

// Outcome is the result of session/request_permission.
type Outcome struct {
	Outcome struct {
		Outcome  string `json:"outcome"` // "selected" or "cancelled"
		OptionID string `json:"optionId,omitempty"`
	} `json:"outcome"`
}

// Selected is the outcome choosing optionID.
func Selected(optionID string) Outcome {
	var o Outcome
	o.Outcome.Outcome, o.Outcome.OptionID = "selected", optionID
	return o
}

// Cancelled is the outcome of a prompt withdrawn before an answer.
func Cancelled() Outcome {
	var o Outcome
	o.Outcome.Outcome = "cancelled"
	return o
}
