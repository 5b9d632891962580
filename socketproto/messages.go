package socketproto

import (
	"bytes"
	"encoding/json"
	"time"
)

// Message is anything that travels on the socket. Its JSON form is the struct's
// fields plus "type": MessageType(), added by Encode.
type Message interface{ MessageType() string }

// Tool profiles of docs/contract.md §3.
const (
	ToolAskUser         = "ask_user"          // flexible
	ToolAskUserQuestion = "ask_user_question" // strict
)

// DaemonState is the daemon's state of docs/contract.md §4: is anyone waiting for the user?
type DaemonState string

const (
	StateIdle    DaemonState = "idle"
	StateWaiting DaemonState = "waiting_for_user"
)

// RequestStatus is where a pending request stands with its agent.
type RequestStatus string

const (
	StatusWaiting  RequestStatus = "waiting"
	StatusParked   RequestStatus = "parked"
	StatusOrphaned RequestStatus = "orphaned"
)

// Outcome is how a request was resolved (request_resolved).
type Outcome string

const (
	OutcomeAnswered  Outcome = "answered"
	OutcomeCancelled Outcome = "cancelled"
	OutcomeWithdrawn Outcome = "withdrawn"
)

// Via is the way an answer or a cancel arrived (answeredVia, via).
type Via string

const (
	ViaPane  Via = "pane"
	ViaFile  Via = "file"
	ViaCLI   Via = "cli"
	ViaWeb   Via = "web"   // the web page (askuserd web), the pane core's other face
	ViaAgent Via = "agent" // the asker withdrew its own request
)

// Role is what a subscriber is.
type Role string

const (
	RolePane  Role = "pane"
	RoleWatch Role = "watch"
)

// Option is one choice of a question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	Preview     string `json:"preview,omitempty"`
	// ApprovesPreview marks an option whose choice approves exactly its
	// preview (a permission prompt's Allow approves the tool's input): the
	// preview is then not held to MaxPreviewChars, and a view takes the
	// option only once every line of it has been on screen (docs/contract.md §6,
	// "Allow means seen").
	ApprovesPreview bool `json:"approvesPreview,omitempty"`
	// PreviewForm names the form of a preview that is a file tool's input
	// ("write", "edit", "patch"; socketproto/previewform), set by the
	// integrations: the views draw it as the file's text or a diff, derived
	// from the preview alone; the preview and its digest are unchanged.
	PreviewForm string `json:"previewForm,omitempty"`
}

// Question is one question of a request. MultiSelect is a pointer because the
// strict profile requires it to be present.
type Question struct {
	Question    string   `json:"question"`
	Header      string   `json:"header,omitempty"`
	MultiSelect *bool    `json:"multiSelect,omitempty"`
	Options     []Option `json:"options,omitempty"`
	// Input, when set, is the rule a typed answer must satisfy (docs/contract.md §3
	// "Typed answers"); see Input.
	Input *Input `json:"input,omitempty"`
}

// IsMulti reports whether the question allows several selections.
func (q Question) IsMulti() bool { return q.MultiSelect != nil && *q.MultiSelect }

// Agent describes who asks.
type Agent struct {
	ID       string `json:"id,omitempty"`
	Name     string `json:"name,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	ParentID string `json:"parentId,omitempty"`
	Subagent bool   `json:"subagent,omitempty"`
}

// DisplayName is how people see the agent: its name, else its id, else "".
// Nil-safe, since the agent is optional.
func (a *Agent) DisplayName() string {
	switch {
	case a == nil:
		return ""
	case a.Name != "":
		return a.Name
	}
	return a.ID
}

// Request is a request as the agent asked it; AskUserRequest and Pending share it.
type Request struct {
	RequestID string          `json:"requestId,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Questions []Question      `json:"questions"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	Agent     *Agent          `json:"agent,omitempty"`
	// Permission marks an agent's permission prompt (rules.go).
	Permission *PermissionPrompt `json:"permission,omitempty"`
}

// ProfileTool is the request's tool with the default applied.
func (r Request) ProfileTool() string {
	if r.Tool == "" {
		return ToolAskUser
	}
	return r.Tool
}

// --- agent messages ---------------------------------------------------------

// Hello is sent by a client (Client set) and answered by the daemon (Server set).
type Hello struct {
	Protocol    int    `json:"protocol"`
	Client      string `json:"client,omitempty"`
	Server      string `json:"server,omitempty"`
	PendingFile string `json:"pendingFile,omitempty"`
}

func (Hello) MessageType() string { return "hello" }

// AskUserRequest asks questions. Wait defaults to true; false parks the request.
type AskUserRequest struct {
	Request
	Wait *bool `json:"wait,omitempty"`
}

func (AskUserRequest) MessageType() string { return "ask_user_request" }

// Waits reports whether the asker blocks for the result.
func (r AskUserRequest) Waits() bool { return r.Wait == nil || *r.Wait }

// Queued acknowledges an AskUserRequest at once.
type Queued struct {
	RequestID   string `json:"requestId"`
	Position    int    `json:"position"`
	PendingFile string `json:"pendingFile,omitempty"`
}

func (Queued) MessageType() string { return "ask_user_queued" }

// Answer is the answer to one question (docs/contract.md §3).
type Answer struct {
	Question        string      `json:"question"`
	Answer          AnswerValue `json:"answer"`
	SelectedOption  string      `json:"selectedOption,omitempty"`
	SelectedOptions []string    `json:"selectedOptions,omitempty"`
	Custom          string      `json:"custom,omitempty"`
	WasCustom       bool        `json:"wasCustom"`
	Notes           string      `json:"notes,omitempty"`
}

// AnswerValue is a string for a single-select or free-text question and a list
// of strings for a multiSelect one. A typed question (Question.Input) whose
// answer is not a string carries its JSON value: a number, true or false, or
// null for an optional question left empty; Text is then how it reads ("3",
// "Yes", "").
type AnswerValue struct {
	Text   string
	List   []string
	IsList bool
	JSON   json.RawMessage
}

func (v AnswerValue) MarshalJSON() ([]byte, error) {
	if len(v.JSON) > 0 {
		return v.JSON, nil
	}
	if v.IsList {
		if v.List == nil {
			return []byte("[]"), nil
		}
		return json.Marshal(v.List)
	}
	return json.Marshal(v.Text)
}

func (v *AnswerValue) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '[' {
		v.IsList = true
		v.Text = ""
		return json.Unmarshal(b, &v.List)
	}
	v.IsList = false
	v.List = nil
	v.JSON = nil
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] != '"' {
		return v.setTyped(t)
	}
	return json.Unmarshal(b, &v.Text)
}

// setTyped takes a typed answer's JSON value: a number, a boolean or null.
func (v *AnswerValue) setTyped(t []byte) error {
	switch string(t) {
	case "true":
		v.Text = LabelYes
	case "false":
		v.Text = LabelNo
	case "null":
		v.Text = ""
	default:
		var n json.Number
		if err := json.Unmarshal(t, &n); err != nil {
			return err
		}
		v.Text = n.String()
	}
	v.JSON = append(json.RawMessage(nil), t...)
	return nil
}

// Joined is the answer as one string, selections joined with ", ".
func (v AnswerValue) Joined() string {
	if !v.IsList {
		return v.Text
	}
	out := ""
	for i, s := range v.List {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// Response is the result the asking agent receives (docs/contract.md §3).
type Response struct {
	RequestID         string            `json:"requestId"`
	Answered          bool              `json:"answered"`
	Cancelled         bool              `json:"cancelled"`
	Answers           []Answer          `json:"answers"`
	AnswersByQuestion map[string]string `json:"answersByQuestion"`
	AnsweredVia       Via               `json:"answeredVia,omitempty"`
	AnsweredAt        time.Time         `json:"answeredAt"`
	Summary           string            `json:"summary"`
	// RuleID is the rule that answered (answeredVia "rule"), or that the
	// user's answer made (rules.go).
	RuleID int `json:"ruleId,omitempty"`
	// ConnectionLost is set by askuser-client, never by the daemon.
	ConnectionLost bool `json:"connectionLost,omitempty"`
}

func (Response) MessageType() string { return "ask_user_response" }

// Wait collects the result of a parked or orphaned request.
type Wait struct {
	RequestID string `json:"requestId"`
}

func (Wait) MessageType() string { return "wait" }

// Cancel withdraws (from the asker's connection) or declines (from any other).
type Cancel struct {
	RequestID string `json:"requestId"`
	Via       Via    `json:"via,omitempty"`
	// Settled, on the asker's withdrawal only, says how the user settled
	// the question in the agent's own prompt ("allowed in Claude Code's
	// own dialog"): the surfaces and history say so, and a later answer is
	// refused with it. At most MaxSettledChars, one line.
	Settled string `json:"settled,omitempty"`
}

// MaxSettledChars bounds Cancel.Settled.
const MaxSettledChars = 200

func (Cancel) MessageType() string { return "cancel" }

// OK acknowledges a cancel, an answer or a draft.
type OK struct {
	RequestID string `json:"requestId,omitempty"`
}

func (OK) MessageType() string { return "ok" }

// --- pane, CLI and watcher messages ----------------------------------------

// Pending is a request waiting for the user, as panes and lists see it.
type Pending struct {
	Request
	CreatedAt time.Time     `json:"createdAt"`
	Status    RequestStatus `json:"status"`
	// Draft holds the answers given so far, in the pending file or a pane,
	// one per question, null where none.
	Draft []json.RawMessage `json:"draft"`
}

// Subscribe asks for a snapshot and then every event.
type Subscribe struct {
	Role Role `json:"role"`
}

func (Subscribe) MessageType() string { return "subscribe" }

// Snapshot is the first message a subscriber receives.
type Snapshot struct {
	State   DaemonState `json:"state"`
	Pending []Pending   `json:"pending"`
}

func (Snapshot) MessageType() string { return "snapshot" }

// List asks for (Pending nil) or carries (from the daemon) the pending requests.
type List struct {
	Pending []Pending `json:"pending"`
}

func (List) MessageType() string { return "list" }

// ListRequest is what a client sends to ask for a List; it has no fields.
type ListRequest struct{}

func (ListRequest) MessageType() string { return "list" }

// StatusRequest asks for a Status.
type StatusRequest struct{}

func (StatusRequest) MessageType() string { return "status" }

// Status describes the daemon.
type Status struct {
	State         DaemonState `json:"state"`
	Pending       int         `json:"pending"`
	Panes         int         `json:"panes"`
	Version       string      `json:"version"`
	Pid           int         `json:"pid,omitempty"`
	Socket        string      `json:"socket"`
	StateDir      string      `json:"stateDir,omitempty"`
	PendingFile   string      `json:"pendingFile"`
	UptimeSeconds int64       `json:"uptimeSeconds"`
	// The troubles now (the last pending_file_error and state_dir_error
	// not yet cleared); absent when none.
	PendingFileError string `json:"pendingFileError,omitempty"`
	StateDirError    string `json:"stateDirError,omitempty"`
	// FileErrors are the daemon's other files that cannot be used now.
	FileErrors []FileError `json:"fileErrors,omitempty"`
	// ConfigError is why config.toml, changed while the daemon runs, was
	// refused (the daemon keeps its last good config); ConfigRestart, the
	// keys changed since the start that take effect only at the next.
	ConfigError   string   `json:"configError,omitempty"`
	ConfigRestart []string `json:"configRestart,omitempty"`
}

func (Status) MessageType() string { return "status" }

// AnswerRequest answers a request from a pane or the CLI. Each element of
// Answers is what NormalizeAnswer takes: a string, a number, a list, or an
// object {"selected":[…],"custom":"…","notes":"…"}.
type AnswerRequest struct {
	RequestID string            `json:"requestId"`
	Answers   []json.RawMessage `json:"answers"`
	Via       Via               `json:"via,omitempty"`
}

func (AnswerRequest) MessageType() string { return "answer" }

// DraftRequest records the answer given so far to one question of a pending
// request (docs/contract.md §4 "draft"): Answer is what NormalizeAnswer takes, or JSON
// null to clear it. A pane sends one for every answer the user gives, so that
// answers in progress live in the daemon (and the pending file), not in the
// pane's memory.
type DraftRequest struct {
	RequestID string          `json:"requestId"`
	Index     int             `json:"index"`
	Answer    json.RawMessage `json:"answer"`
	Via       Via             `json:"via,omitempty"`
}

func (DraftRequest) MessageType() string { return "draft" }

// --- events -----------------------------------------------------------------

type RequestAdded struct {
	Request Pending `json:"request"`
}

func (RequestAdded) MessageType() string { return "request_added" }

type RequestUpdated struct {
	Request Pending `json:"request"`
}

func (RequestUpdated) MessageType() string { return "request_updated" }

type RequestResolved struct {
	RequestID string  `json:"requestId"`
	Outcome   Outcome `json:"outcome"`
	Via       Via     `json:"via,omitempty"`
	// Settled (withdrawn only): how the user settled it in the agent's own
	// prompt, as the agent said (Cancel.Settled).
	Settled string `json:"settled,omitempty"`
}

func (RequestResolved) MessageType() string { return "request_resolved" }

type StateEvent struct {
	State   DaemonState `json:"state"`
	Pending []Pending   `json:"pending"`
}

func (StateEvent) MessageType() string { return "state" }

// PendingFileError says the pending file at Path could not be used and why
// ("line 12, column 3: …"). An empty Error says that a problem with the file
// itself is over (a save parsed again): a notice about it can go.
type PendingFileError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

func (PendingFileError) MessageType() string { return "pending_file_error" }

// FileError says one of the daemon's other files at Path (history.jsonl,
// push-subscriptions.json, push-vapid.json) cannot be used and why (a FIFO
// there, a full disk); an empty Error says that it can again.
type FileError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

func (FileError) MessageType() string { return "file_error" }

// ConfigChanged says what became of config.toml at Path, changed while the
// daemon runs: Error when it was refused (the daemon keeps its last good
// config; empty once a save loads again), and Restart, the keys changed
// since the daemon started that take effect only when it restarts.
type ConfigChanged struct {
	Path    string   `json:"path"`
	Error   string   `json:"error,omitempty"`
	Restart []string `json:"restart,omitempty"`
}

func (ConfigChanged) MessageType() string { return "config_changed" }

// StateDirError says the state dir at Path cannot take writes and why
// ("…/state.jsonl.tmp: read-only file system; nothing new is accepted until
// it can be written"): until it can, every change is refused with
// state_unavailable. An empty Error says it can again: a notice about it
// goes. A subscriber gets one after its snapshot while the trouble lasts.
type StateDirError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

func (StateDirError) MessageType() string { return "state_dir_error" }

// StartStatus is the one line `askuserd serve` writes on its start-status
// pipe (docs/contract.md §2), when the program that started it asked for one
// with ASKUSER_START_FD: ready once its socket accepts connections, or why it
// will not run. It is how an autostarting client learns a refusal — typed,
// at once — rather than by reading the daemon's log.
type StartStatus struct {
	Ready bool `json:"ready"`
	Pid   int  `json:"pid,omitempty"`
	// Code is StartAlreadyRunning when another daemon holds the socket's
	// lock (a start-up race: that one answers), StartRefused otherwise.
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

func (StartStatus) MessageType() string { return "start_status" }

// The codes of a StartStatus that is not ready.
const (
	StartAlreadyRunning = "already_running"
	StartRefused        = "refused"
)

// StartFDEnv names the environment variable that gives `askuserd serve` the
// descriptor of its start-status pipe.
const StartFDEnv = "ASKUSER_START_FD"

// --- notifications (docs/contract.md §4 "Activity and Web Push") ------------

// Activity says the user pressed a key or tapped on a surface (a pane, the
// web page): no notification is sent while they are at one within
// notify.idle. It has no reply; a surface sends it at most every few
// seconds while the user is busy.
type Activity struct{}

func (Activity) MessageType() string { return "activity" }

// PushKeyRequest asks for the daemon's Web Push application server key
// (VAPID, made once and kept in the state dir); the daemon answers PushKey.
type PushKeyRequest struct{}

func (PushKeyRequest) MessageType() string { return "push_key" }

// PushKey is the VAPID public key, an uncompressed P-256 point in
// unpadded base64url: what a page gives pushManager.subscribe as
// applicationServerKey.
type PushKey struct {
	PublicKey string `json:"publicKey"`
}

func (PushKey) MessageType() string { return "push_key" }

// PushSubscribe registers a browser's PushSubscription (its toJSON():
// endpoint and keys) for Web Push; the daemon answers ok, or
// invalid_request naming the field.
type PushSubscribe struct {
	Subscription json.RawMessage `json:"subscription"`
}

func (PushSubscribe) MessageType() string { return "push_subscribe" }

// PushUnsubscribe forgets the subscription at Endpoint; ok, or not_found.
type PushUnsubscribe struct {
	Endpoint string `json:"endpoint"`
}

func (PushUnsubscribe) MessageType() string { return "push_unsubscribe" }
