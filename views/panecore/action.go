package panecore

// Kind names a user action. A face maps its keys, clicks and taps to them;
// the terminal pane's key table (views/keytable.go) is one such map.
type Kind string

// Moving and looking: never refused, whatever the revision.
const (
	Move        Kind = "move"       // the focus steps Delta items through those the filter keeps (±big: first/last)
	Focus       Kind = "focus"      // the focus goes to item Item, choosing nothing
	Tab         Kind = "tab"        // to the question Delta tabs away (the last tab is Submit); text typed is kept
	TabTo       Kind = "tabTo"      // to question Item (len(questions): Submit)
	Step        Kind = "step"       // to the request Delta away (oldest first); text typed is kept
	Open        Kind = "open"       // to request Request
	Filter      Kind = "filter"     // opens the filter input (Text: its text so far)
	FilterText  Kind = "filterText" // the filter input now holds Text
	ClearFilter Kind = "clearFilter"
	Close       Kind = "close" // closes the open input, keeping its text unaccepted
	Back        Kind = "back"  // a dialog's "no"; Esc in an input (Other: back to the list, text kept; note: as it was; filter: cleared; free text: Decline)
	Shown       Kind = "shown" // the face showed part of a preview (see PreviewShown)
)

// Answering: refused while the core settles and when made against an older
// revision (docs/contract.md §6 "No answer the user has not seen").
const (
	Pick       Kind = "pick"       // number key: item Item chosen (single-select), toggled (multi-select); Other opens the input
	Choose     Kind = "choose"     // Enter on a single-select list: the item at the cursor
	Toggle     Kind = "toggle"     // Space: checks or unchecks the box at the cursor
	Confirm    Kind = "confirm"    // Enter on a multi-select list: checks the focused box, or confirms the question
	None       Kind = "none"       // asks "none of these?" for a multi-select question
	LeaveEmpty Kind = "leaveEmpty" // answers an optional question with nothing
	Type       Kind = "type"       // the answer or note input now holds Text (typing, pasting, an editor's result)
	Paste      Kind = "paste"      // Text pasted: into the open input, or Other's on an options list
	Edit       Kind = "edit"       // the face is about to open an external editor on the input
	OpenNote   Kind = "note"       // opens the note input on the question
	Accept     Kind = "accept"     // Enter in the input: the answer, the note or the filter
	Yes        Kind = "yes"        // a dialog's "yes"
	Submit     Kind = "submit"     // sends every answer (or goes to the first missing)
	Decline    Kind = "decline"    // Esc: declines the request, asking first when answers would be lost
)

// Action is one thing the user did, as a face reports it. Fields a kind
// does not use are ignored.
type Action struct {
	Kind Kind `json:"kind"`
	// Rev is the View.Rev the user was looking at when they acted.
	Rev uint64 `json:"rev"`
	// Request, when set, is the request the action was made on; an action
	// that answers is refused when it is not the one on screen. "" means
	// the one on screen.
	Request string `json:"request,omitempty"`
	Item    int    `json:"item,omitempty"`
	Delta   int    `json:"delta,omitempty"`
	Text    string `json:"text,omitempty"`

	// For Shown: lines [Top, Top+Rows) of option Item's preview, wrapped
	// into Total lines at Width (any key of the face's layout: a new one
	// starts the reading over), were on screen. Question is the question's
	// index in Request.
	Question int `json:"question,omitempty"`
	Width    int `json:"width,omitempty"`
	Top      int `json:"top,omitempty"`
	Rows     int `json:"rows,omitempty"`
	Total    int `json:"total,omitempty"`
}

// guarded reports whether kind chooses, submits, declines or confirms.
func (k Kind) guarded() bool {
	switch k {
	case Pick, Choose, Toggle, Confirm, None, LeaveEmpty, Type, Paste, Edit, OpenNote, Accept, Yes, Submit, Decline, Next:
		return true
	}
	return false
}
