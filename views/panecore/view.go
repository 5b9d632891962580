package panecore

import (
	"time"

	"askuser/socketproto/previewform"
)

// View is everything a face needs to draw: what the core decided, as plain
// values, to read and to send as JSON, never to change (its slices are
// shared with the views that follow, for speed). Text from agents
// is as the agent sent it (a face cleans it, socketproto/agenttext),
// while the core's own words (notices, hints, dialogs) are clean already.
type View struct {
	// Rev changes whenever what is on screen changes by itself: a request
	// arrives or leaves, is answered elsewhere, the next one slides in, a
	// draft from elsewhere changes the question shown. An action that
	// chooses, submits, declines or confirms carries the Rev it was made
	// against and is refused when it is older (docs/contract.md §6).
	Rev uint64 `json:"rev"`
	// Settling is true while such actions are refused after the request or
	// question on screen changed by itself (ui.input_guard);
	// SettleLeft is how long that still lasts.
	Settling   bool          `json:"settling"`
	SettleLeft time.Duration `json:"settleLeftNs,omitempty"`

	Demo   bool   `json:"demo,omitempty"`   // a demo core: nothing it sends reaches an agent
	Socket string `json:"socket,omitempty"` // where agents ask (shown when nothing waits)

	Requests []RequestView `json:"requests"`
	// Focus is the index in Requests of the request on screen, -1 when
	// none waits.
	Focus int `json:"focus"`

	// Input is the text input when one is open (an answer being typed, a
	// note, a filter); nil when the keys go to the list.
	Input *InputView `json:"input,omitempty"`
	// Dialog is the question a dialog asks when one is up; nil otherwise.
	Dialog *Dialog `json:"dialog,omitempty"`

	// Notices are the lasting conditions in the order they began, then the
	// notice about the latest event; each is one line of text.
	Notices []Notice `json:"notices,omitempty"`
	// ConnLost is non-empty while the daemon connection is down.
	ConnLost string `json:"connLost,omitempty"`

	// Hint is a word about the last action ("Question 2 is not answered
	// yet."); the next action clears it.
	Hint string `json:"hint,omitempty"`
	// Refusal says why the last action was not taken, and what it
	// concerned; nil when it was taken. Its Text is the Hint too.
	Refusal *Refusal `json:"refusal,omitempty"`

	// Bells counts the requests that arrived wanting the user's attention
	// (the bell is on); a face rings when it grows.
	Bells int `json:"bells"`

	// Rang is the request that rang last (Bells grew for it); a face
	// that raises a notification names it.
	Rang string `json:"rang,omitempty"`

	// Actions are the actions a face offers with a control of its own (a
	// button, a key on the hint line) for what is on screen, by name
	// (ActNext, ActSubmit, …): an action absent does not apply here; one
	// present says its label and, when it would not do what its label says
	// now, why not. A face greys such a control out and shows the reason;
	// it never works out "is this allowed" itself.
	Actions map[string]ActionView `json:"actions,omitempty"`

	// Rules is the Rules view while it is open (rules.go); nil otherwise.
	Rules *RulesView `json:"rulesView,omitempty"`
}

// ActionView is one action a face may offer, in the manner of lazygit's
// Binding.GetDisabledReason: a face sends Kind (with Delta) as it is, and
// greys the control out while Disabled says why it would not be taken.
type ActionView struct {
	Kind  Kind   `json:"kind"`
	Delta int    `json:"delta,omitempty"`
	Label string `json:"label"`
	// Disabled is why the action would not do what its label says now, in
	// clean words said before any tap ("Type an answer first."); "" when
	// it would. Taking it anyway is not harmful: the core refuses it, or
	// goes to what stops it (Submit with a question missing).
	Disabled string `json:"disabled,omitempty"`
}

// The names of View.Actions.
const (
	ActNext        = "next"        // the main button under a question: Send on a lone question, Next otherwise
	ActSubmit      = "submit"      // the Submit tab's button: sends every answer
	ActLeaveEmpty  = "leaveEmpty"  // leaves an optional question with options empty
	ActDecline     = "decline"     // declines the request on screen
	ActPrevRequest = "prevRequest" // the request before the one on screen
	ActNextRequest = "nextRequest" // the request after it
)

// RequestView is one waiting request and the user's progress on it.
type RequestView struct {
	ID        string    `json:"id"`
	Agent     string    `json:"agent"`           // display name; "unknown agent" when none
	About     string    `json:"about,omitempty"` // working directory and metadata, one clean line
	CreatedAt time.Time `json:"createdAt"`
	// Age is how long ago it was asked, in the words every face shows
	// ("3m ago", "30h ago"), by the core's clock; the view changes when it
	// does (NextWake), so a face never works it out from CreatedAt.
	Age    string `json:"age"`
	Status string `json:"status"` // waiting, parked, orphaned
	// StatusText says a status other than waiting in words ("agent
	// disconnected"); "" while it waits.
	StatusText string `json:"statusText,omitempty"`
	// Name is how notices name it: its first question, quoted.
	Name      string         `json:"name"`
	Questions []QuestionView `json:"questions"`
	// Tab is the question on screen; len(Questions) is the Submit tab,
	// which exists only with more than one question.
	Tab      int  `json:"tab"`
	OnSubmit bool `json:"onSubmit,omitempty"`
	// Missing is how many questions still need an answer before submit
	// sends (optional ones never do).
	Missing int `json:"missing"`
	// AnswerSends is true when answering the question on screen sends the
	// request (a lone question): there is no Submit step.
	AnswerSends bool `json:"answerSends,omitempty"`
	// Sending is true once an answer or cancel went out: the request waits
	// for the daemon and takes no more actions.
	Sending bool `json:"sending,omitempty"`
}

// QuestionView is one question as asked and its answer in progress.
type QuestionView struct {
	Question string       `json:"question"`
	Header   string       `json:"header,omitempty"`
	TabLabel string       `json:"tabLabel"` // the header, else the question cut short; clean
	Multi    bool         `json:"multi,omitempty"`
	Options  []OptionView `json:"options,omitempty"`
	// Rule is a typed question's rule in words ("a whole number from 1 to
	// 10"); "" for a question without input.
	Rule     string `json:"rule,omitempty"`
	Optional bool   `json:"optional,omitempty"` // may be left empty
	NoOther  bool   `json:"noOther,omitempty"`  // takes only its options

	// Items are the item indices shown after the filter, in order: an
	// option's index, or len(Options) for Other (always last, unless
	// NoOther).
	Items  []int  `json:"items"`
	Filter string `json:"filter,omitempty"`
	// Cursor is the focused item; Choice the chosen one of a single-select
	// question (-1 none, len(Options) Other); Checked one per option, then
	// Other, for a multi-select question.
	Cursor  int    `json:"cursor"`
	Choice  int    `json:"choice"`
	Checked []bool `json:"checked,omitempty"`
	// Custom is typed text: Other's, or the whole answer of a question
	// without options. Typing is text typed and not accepted yet.
	Custom string `json:"custom,omitempty"`
	Typing string `json:"typing,omitempty"`
	Notes  string `json:"notes,omitempty"`
	// Answered is true once the user accepted an answer (here or
	// elsewhere). Boxes checked and not confirmed are not an answer.
	Answered bool `json:"answered,omitempty"`
	// Summary is the answer as the Submit tab lists it; "" when not answered.
	Summary string `json:"summary,omitempty"`
	// Missing is true when the question keeps the request from being sent:
	// not answered, and not optional.
	Missing bool `json:"missing,omitempty"`
	// Listed is the question's line on the Submit tab: its Summary, else
	// "(left empty)" for an optional question, else "(not answered)".
	Listed string `json:"listed"`
	// HasWork is true when declining would throw away something put into
	// the question.
	HasWork bool `json:"hasWork,omitempty"`
}

// OptionView is one option. An option that approves its preview (a
// permission prompt's Allow) is taken only once the whole preview was shown:
// Read says so, and ReadPercent how much of it has been (docs/contract.md §6
// "Allow means seen").
type OptionView struct {
	Label           string `json:"label"`
	Description     string `json:"description,omitempty"`
	Preview         string `json:"preview,omitempty"`
	ApprovesPreview bool   `json:"approvesPreview,omitempty"`
	Read            bool   `json:"read,omitempty"`
	ReadPercent     int    `json:"readPercent,omitempty"`
	// PreviewLines is the preview drawn in the form its option names (a
	// file's text, a diff; socketproto/previewform), nil when it has none or
	// the preview does not have that form's shape. A face that has them
	// draws them rather than Preview, and reports the lines of what it drew
	// (PreviewShown).
	PreviewLines []previewform.Line `json:"previewLines,omitempty"`
}

// InputKind is what an open text input edits.
type InputKind string

const (
	InputAnswer InputKind = "answer" // Other's text, or a free-text answer
	InputNote   InputKind = "note"
	InputFilter InputKind = "filter"
)

// InputView is the open text input.
type InputView struct {
	Kind     InputKind `json:"kind"`
	Request  string    `json:"request"`
	Question int       `json:"question"`
	Text     string    `json:"text"`
	// Placeholder is what an empty input says.
	Placeholder string `json:"placeholder"`
	// Problem is what is wrong with Text as the answer to a typed question
	// ("" when it keeps the rule): shown under the input as it is typed.
	Problem string `json:"problem,omitempty"`
	// ProblemText says Problem as a sentence ("Not accepted yet: 42 is
	// more than 10."), the words every face shows.
	ProblemText string `json:"problemText,omitempty"`
}

// DialogKind names a dialog.
type DialogKind string

const (
	DialogLong    DialogKind = "long"    // Answer is long (N chars). Continue anyway?
	DialogDiscard DialogKind = "discard" // Discard N answers?
	DialogNone    DialogKind = "none"    // None of these for “…”?
)

// Dialog is a yes/no question the core asks before it acts.
type Dialog struct {
	Kind DialogKind `json:"kind"`
	// Text is the question, without the keys ("Discard 2 answers?").
	Text string `json:"text"`
	// DefaultYes tells which answer Enter gives: yes for a long answer,
	// no for discarding and for "none of these".
	DefaultYes bool   `json:"defaultYes,omitempty"`
	Request    string `json:"request"`
	Question   int    `json:"question"`
	N          int    `json:"n,omitempty"` // the characters, or the answers discarded
}

// Notice is one line of news.
type Notice struct {
	Text string `json:"text"`
	// Lasting is true for a condition (the pending file cannot be used, the
	// state dir cannot take writes): it stays until the daemon says it
	// ended. Otherwise it is about something that happened and goes at
	// Until.
	Lasting bool      `json:"lasting,omitempty"`
	Until   time.Time `json:"until,omitzero"`
}

// Refusal is why an action was not taken, and what it concerned.
type Refusal struct {
	Text string `json:"text"`
	// Reason is a short word for tests and styling: "settling", "stale",
	// "unread", "typed", "empty", "unanswered", "send", "busy".
	Reason   string `json:"reason"`
	Request  string `json:"request,omitempty"`
	Question int    `json:"question"`
	// Option is the option concerned (an Allow not read yet), -1 when none.
	Option int `json:"option"`
	// Element is what the refusal is about: "request", "question",
	// "option", "input" or "submit".
	Element string `json:"element"`
}
