package panecore

import (
	"fmt"
	"strings"
	"time"

	"askuser/socketproto"
	"askuser/socketproto/agenttext"
)

// mode is where the user's actions go.
type mode int

const (
	modeList    mode = iota // the options (or the Submit tab) take them
	modeText                // the answer input: Other, or free text
	modeNote                // the note input
	modeFilter              // the filter input
	modeLong                // "Answer is long … Continue anyway?"
	modeDiscard             // "Discard N answers?"
	modeNone                // "None of these for …?" (a multi-select question)
)

// state is the core's insides. Every method runs on the face's one UI
// goroutine, except sendHeld.
type state struct {
	send Sender
	opt  Options
	m    Model

	connErr string
	hidden  bool // the face shows no question (a terminal too small)

	mode    mode
	edit    openInput     // the input open on a question, if any
	discard discardDialog // "Discard N answers?"
	reply                 // what the surface says back about the last action (actions.go)
	bell    bell

	guard
	noticeBoard                // notices.go
	rules       rulesView      // the Rules view (rules.go)
	drafts      draftsInFlight // typing.go
}

// openInput is the input open on a question: what it edits and what it
// holds. The face's own text widget mirrors text; typed says the user
// typed since it opened.
type openInput struct {
	req   *Req
	q     *QState
	text  string
	typed bool
}

// typeText is the user's typing: the input holds text now.
func (in *openInput) typeText(text string) { in.text, in.typed = text, true }

// discardDialog is "Discard N answers?": the request declining would
// discard n answers of, and the mode the dialog returns to.
type discardDialog struct {
	n    int
	req  *Req
	back mode
}

// bell counts the new requests a face rings for (Options.Bell).
type bell struct {
	rings int
	rang  string // the request that rang last
}

// ring counts a ring for request id.
func (b *bell) ring(id string) { b.rings, b.rang = b.rings+1, id }

func (st *state) init(s Sender, opt Options) {
	if opt.SoftLimit <= 0 {
		opt.SoftLimit = socketproto.DefaultLimits().AnswerSoftLimit
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Via == "" {
		opt.Via = socketproto.ViaPane
	}
	st.send, st.opt = s, opt
	st.noticeBoard.now = opt.Now
	if len(opt.Warnings) > 0 {
		// Long enough to be read when the surface opens, then out of the way.
		st.notice("Warning: "+agenttext.Clean(strings.Join(opt.Warnings, "; "), false), warningTTL)
	}
}

// touch marks what an event or action may change: the requests on screen,
// being edited or asked about, before and after it, and those named.
func (st *state) touch(rs ...*Req) {
	for _, r := range append(rs, st.m.Focused(), st.edit.req, st.discard.req) {
		if r != nil {
			r.view = nil
		}
	}
}

// touchAll marks every request.
func (st *state) touchAll() {
	for _, r := range st.m.Reqs {
		r.view = nil
	}
}

// event applies one message from the daemon.
func (st *state) event(msg socketproto.Message) {
	m := &st.m
	st.touch()
	defer st.touch()
	switch ev := msg.(type) {
	case socketproto.Snapshot:
		defer st.touchAll()
		st.connErr = ""
		st.drafts.sent = nil // a new connection: nothing of the old one is acknowledged
		// The daemon says again, right after the snapshot, every condition
		// that still holds; one that ended while the surface was away goes.
		st.noticeBoard.conditions = nil
		for _, r := range m.Reqs {
			for _, s := range r.Qs {
				s.inflight = 0
			}
		}
		if gone := m.Snapshot(ev.Pending); len(gone) > 0 {
			st.notice(fmt.Sprintf("%s no longer waiting (resolved while the pane was away).", plural(len(gone), "request")), noticeTTL)
			st.changed("a request left")
		}
		defer st.flushDrafts(m.Reqs...) // answers given while the daemon was away
	case socketproto.RequestAdded:
		st.touch(m.Find(ev.Request.RequestID))
		if m.Add(ev.Request) {
			st.changed("a request arrived")
			if st.opt.Bell {
				st.bell.ring(ev.Request.RequestID)
			}
		}
	case socketproto.RequestUpdated:
		st.touch(m.Find(ev.Request.RequestID))
		if r := m.Find(ev.Request.RequestID); r != nil && r == m.Focused() {
			before := r.answers()
			m.Update(ev.Request)
			if r.answers() != before {
				st.changed("an answer changed elsewhere")
			}
		} else if m.Update(ev.Request) {
			st.changed("a request arrived")
		}
	case socketproto.RequestResolved:
		st.resolved(ev)
	case socketproto.PendingFileError, socketproto.ConfigChanged, socketproto.FileError, socketproto.StateDirError:
		st.conditionEvent(ev)
	case *socketproto.Error:
		st.daemonError(ev)
	case socketproto.Rules, socketproto.RuleAnswered, socketproto.RuleNotSaved:
		st.rulesEvent(ev)
	case socketproto.OK:
		// For an answer or a cancel, the request_resolved event that follows
		// removes the request; for a draft, the daemon has it.
		st.drafts.ack(ev.RequestID)
	case ConnLost:
		st.touchAll()
		st.connErr = ev.Err
		for _, r := range m.Reqs {
			r.Sending = false // the snapshot after reconnecting says what happened
		}
	}
	st.sync()
	st.watch()
}

// resolved is a request that left: answered, declined or withdrawn, here
// or elsewhere; a notice says which.
func (st *state) resolved(ev socketproto.RequestResolved) {
	r := st.m.Remove(ev.RequestID)
	if r == nil {
		return
	}
	st.changed("a request left")
	st.drafts.forget(r)
	q := requestName(r)
	switch {
	case r.Sending && ev.Outcome == socketproto.OutcomeAnswered:
		if st.opt.Demo {
			st.notice(fmt.Sprintf("Demo: the answer to %s would be sent now; no agent asked it.", q), noticeTTL)
		} else {
			st.notice(fmt.Sprintf("Answer to %s sent.", q), noticeTTL)
		}
	case r.Sending && ev.Outcome == socketproto.OutcomeCancelled:
		st.notice(fmt.Sprintf("%s declined.", upperFirst(q)), noticeTTL)
	case ev.Outcome == socketproto.OutcomeWithdrawn && ev.Settled != "":
		st.notice(fmt.Sprintf("%s was settled in its agent's own prompt: %s.", upperFirst(q), agenttext.Clean(ev.Settled, false)), noticeTTL)
	case ev.Outcome == socketproto.OutcomeWithdrawn:
		st.notice(fmt.Sprintf("%s was withdrawn by its agent.", upperFirst(q)), noticeTTL)
	case ev.Outcome == socketproto.OutcomeCancelled:
		st.notice(fmt.Sprintf("%s was declined elsewhere (%s).", upperFirst(q), agenttext.Clean(string(ev.Via), false)), noticeTTL)
	default:
		st.notice(fmt.Sprintf("%s was answered elsewhere (%s).", upperFirst(q), agenttext.Clean(string(ev.Via), false)), noticeTTL)
	}
}

// conditionEvent is the daemon saying that a condition holds, or that it
// ended (an empty error): its notice stays until then.
func (st *state) conditionEvent(msg socketproto.Message) {
	switch ev := msg.(type) {
	case socketproto.PendingFileError:
		st.condition("pending_file "+ev.Path, ev.Error, fmt.Sprintf("Pending file %s: %s", agenttext.Clean(ev.Path, false), agenttext.Clean(ev.Error, false)))
	case socketproto.ConfigChanged:
		path := agenttext.Clean(ev.Path, false)
		st.condition("config_error", ev.Error, fmt.Sprintf("Config %s refused: %s; askuserd keeps its last good config.", path, agenttext.Clean(ev.Error, false)))
		restart := strings.Join(ev.Restart, ", ")
		st.condition("config_restart", restart, fmt.Sprintf("Config %s: %s take effect when askuserd restarts (askuserd stop, then askuserd).", path, agenttext.Clean(restart, false)))
	case socketproto.FileError:
		st.condition("file "+ev.Path, ev.Error, fmt.Sprintf("File %s: %s", agenttext.Clean(ev.Path, false), agenttext.Clean(ev.Error, false)))
	case socketproto.StateDirError:
		st.condition("state_dir "+ev.Path, ev.Error, fmt.Sprintf("State dir %s cannot take writes: %s", agenttext.Clean(ev.Path, false), agenttext.Clean(ev.Error, false)))
	}
}

// daemonError shows a refused answer or cancel; the answers stay as they were.
func (st *state) daemonError(e *socketproto.Error) {
	m := &st.m
	st.drafts.ack(e.RequestID)
	r := m.Find(e.RequestID)
	st.touch(r)
	if r != nil {
		r.Sending = false
	}
	if e.RequestID == "" {
		// An error that names no request answers the last thing sent:
		// whatever was on its way is not, so let the user try again.
		st.touchAll()
		for _, r := range m.Reqs {
			r.Sending = false
		}
	}
	msg := agenttext.Clean(e.Error(), false)
	switch e.Code {
	case socketproto.CodeAlreadyResolved, socketproto.CodeNotFound:
		name := "Request " + agenttext.Clean(e.RequestID, false)
		if r != nil {
			m.Remove(r.P.RequestID)
			st.drafts.forget(r)
			st.changed("a request left")
			name = upperFirst(requestName(r))
		}
		st.notice(fmt.Sprintf("%s is no longer waiting: %s", name, msg), noticeTTL)
	case socketproto.CodeInvalidAnswer:
		st.notice("The daemon refused the answer: "+msg, refusalTTL)
	default:
		st.notice("Daemon: "+msg, refusalTTL)
	}
}

// sync puts the input back in step with the model after anything changed:
// an edit whose request left is dropped, and a free-text question on screen
// has its answer input open.
func (st *state) sync() {
	if st.edit.req != nil && st.m.Find(st.edit.req.P.RequestID) != st.edit.req {
		st.edit = openInput{}
		st.mode = modeList
	}
	if st.edit.req != nil && st.m.Focused() != st.edit.req {
		st.closeInput()
	}
	if st.mode == modeDiscard && st.m.Focused() != st.discard.req {
		st.mode = modeList // the request being discarded left (or lost the focus)
	}
	if st.mode == modeNone && !onMultiSelect(st.m.Focused()) {
		st.mode = modeList // the question asked about left the screen
	}
	if st.mode == modeText && st.edit.q != nil && !st.edit.typed && st.edit.text != st.edit.q.inputText() {
		st.edit.text = st.edit.q.inputText() // a new draft for an input not typed in since it opened
	}
	r := st.m.Focused()
	if r == nil || r.Sending {
		st.closeInput()
		return
	}
	if st.mode == modeList {
		if s := r.Current(); s != nil && !s.HasOptions() {
			st.startEdit(modeText)
		}
	}
}

// startEdit opens an input on the current question.
func (st *state) startEdit(md mode) {
	r := st.m.Focused()
	if r == nil || r.Current() == nil {
		return
	}
	s := r.Current()
	st.edit.req, st.edit.q = r, s
	switch md {
	case modeText:
		st.edit.text = s.inputText() // typed before and never accepted: kept
	case modeNote:
		st.edit.text = s.Notes
	case modeFilter:
		st.edit.text = s.Filter
	}
	st.mode = md
	st.edit.typed = false
}

// commitEdit keeps what is in the input without accepting it as an answer:
// text for another question or request is never lost.
func (st *state) commitEdit() {
	if st.edit.q == nil {
		return
	}
	switch st.mode {
	case modeText, modeLong:
		st.edit.q.Custom = st.edit.text
	case modeFilter:
		st.edit.q.Filter = st.edit.text
	case modeNote:
		// Leaving a note by switching away keeps it (it shows under the
		// question); only Esc in the note input drops the edit.
		st.edit.q.Notes = strings.TrimSpace(st.edit.text)
	}
}

// closeInput keeps what the input holds (see commitEdit) and gives the
// actions back to the list.
func (st *state) closeInput() {
	st.commitEdit()
	st.edit = openInput{}
	st.mode = modeList
}

// onMultiSelect reports whether r shows a multi-select question with options.
func onMultiSelect(r *Req) bool {
	if r == nil || r.Sending {
		return false
	}
	s := r.Current()
	return s != nil && s.HasOptions() && s.Q.IsMulti()
}

// nextWake is how long until the view changes by itself.
func (st *state) nextWake() time.Duration {
	now := st.opt.Now()
	var next time.Duration
	at := func(t time.Time) {
		if d := t.Sub(now); d > 0 && (next == 0 || d < next) {
			next = d
		}
	}
	if st.opt.InputGuard > 0 {
		at(st.settleUntil)
	}
	if !st.noticeBoard.until.IsZero() {
		at(st.noticeBoard.until)
	}
	if st.drafts.typingDue && (next == 0 || TypingEvery < next) {
		next = TypingEvery
	}
	// The age of the request on screen reads differently ("3m ago" →
	// "4m ago"): every face shows it, from the view.
	if r := st.m.Focused(); r != nil && !r.P.CreatedAt.IsZero() {
		if d := UntilAgeChanges(now.Sub(r.P.CreatedAt)); next == 0 || d < next {
			next = d
		}
	}
	return next
}

// setHidden is the face saying whether it shows a question at all.
func (st *state) setHidden(hidden bool) {
	st.touch()
	if st.hidden != hidden {
		st.hidden = hidden
		st.watch()
	}
}
