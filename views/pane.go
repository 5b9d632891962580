package views

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"askuser/socketproto"
)

// Sender is how the pane talks to the daemon: answer and cancel messages.
// In production it is the daemon connection; tests capture what is sent.
type Sender interface {
	Send(msg socketproto.Message) error
}

// Options configure a pane.
type Options struct {
	Socket    string           // shown on the empty screen: where agents ask
	SoftLimit int              // limits.answer_soft_limit; 0 means the default
	Bell      bool             // ring the terminal bell on a new request
	Editor    string           // command for Ctrl-E, e.g. "vim" or "code -w"
	Now       func() time.Time // clock for "3m ago" and the input guard; time.Now when nil
	// InputGuard is ui.input_guard: how long keys that choose, submit,
	// decline or confirm are ignored after the question on screen changed.
	// 0 turns the guard off.
	InputGuard time.Duration
	// RestartDaemon starts the daemon again and waits until it answers; the
	// pane calls it when the daemon died without cleaning up (see
	// Link.Restart). nil: never.
	RestartDaemon func() error
	// Warnings are said once, as a notice, when the pane opens: the
	// config's unknown keys, say.
	Warnings []string
	// Demo marks a pane on fixture questions (askuserd --demo): it says so
	// in its title, and that nothing it "sends" reaches an agent.
	Demo bool
}

type mode int

const (
	modeList    mode = iota // options have the keys
	modeText                // the text input has the keys (Other, free text)
	modeNote                // typing a note
	modeFilter              // typing a filter
	modeLong                // "Answer is long … [Y/n]"
	modeDiscard             // "Discard N answers? [y/N]"
	modeNone                // "None of these for …? [y/N]" (a multi-select question)
)

// Pane is the whole screen: one tview primitive that draws the model and
// takes every key. A single primitive (rather than a tree of widgets) keeps
// the layout decisions for tiny and huge terminals in one place.
type Pane struct {
	*tview.Box
	M     Model
	opt   Options
	send  Sender
	input *tview.TextArea

	mode       mode
	back       mode    // where a dialog returns to
	editReq    *Req    // what the text input is editing
	editQ      *QState // (nil when not editing)
	typed      bool    // the user typed into the input since it opened
	hint       string  // a word about the last key (cleared by the next one)
	discardN   int
	discardReq *Req
	bell       bool // ring on the next draw
	Bells      int  // bells rung so far (tests read it)

	submitScroll    int
	qOverflow       int  // question lines that did not fit at the last draw
	page            int  // lines PgUp/PgDn move: what the last draw showed of the scrolled text
	longAsked       bool // the last draw put "Answer is long" under the input
	scrollable      bool // PgUp/PgDn have something to scroll
	previewOverflow bool // { } have something to scroll
	previewRows     int  // the preview's lines on screen: what { } scroll by
	typingDue       bool // typing held back (typing.go) waits for the next wake
	// heldTyping is the drafts held back, for a pane closed by a signal
	// while its UI may already be gone with the terminal (typing.go).
	heldTyping  atomic.Pointer[[]socketproto.DraftRequest]
	flushingAll bool // the pane is closing: every draft goes now
	small       bool // the last draw said "terminal too small"

	// The input guard (docs/contract.md §6): shown is what the last draw showed (a
	// request and its tab), and keys that answer are not taken until
	// settleUntil after it changed.
	shown       string
	settleUntil time.Time

	// Notices (see notice): one about something that happened, which
	// goes at noticeUntil, and those about conditions that last.
	noticeEvent string
	noticeUntil time.Time // when noticeEvent goes; zero: there is none
	conditions  []condition

	// drafts are the draft messages sent and not yet acknowledged, oldest
	// first: the daemon answers a connection's messages in order.
	drafts []*QState
	// onWake asks for a redraw after d (0: none needed); set by the app.
	onWake func(d time.Duration)

	// app is set by Run; nil in widget tests (no editor, no quitting).
	app      *tview.Application
	onQuit   func()
	afterKey func() // tests: told when a key has been handled
}

// NewPane builds a pane that sends through s.
func NewPane(s Sender, opt Options) *Pane {
	if opt.SoftLimit <= 0 {
		opt.SoftLimit = socketproto.DefaultLimits().AnswerSoftLimit
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	useTerminalColours()
	in := tview.NewTextArea().
		SetWrap(true).
		SetWordWrap(true).
		SetTextStyle(styleInput).
		SetPlaceholderStyle(styleHint)
	in.SetBackgroundColor(tcell.ColorDefault)
	p := &Pane{Box: tview.NewBox(), opt: opt, send: s, input: in}
	p.Box.SetBackgroundColor(tcell.ColorDefault)
	p.M.Socket = opt.Socket
	p.M.SoftLimit = opt.SoftLimit
	if len(opt.Warnings) > 0 {
		// Long enough to be read when the pane opens, then out of the way.
		p.notice("Warning: "+Clean(strings.Join(opt.Warnings, "; "), false), warningTTL)
	}
	return p
}

// warningTTL is how long the config's warnings stay on screen.
const warningTTL = 30 * time.Second

// useTerminalColours makes tview draw with the terminal's own foreground and
// background, so the pane reads well on dark and light themes alike; emphasis
// comes from attributes (bold, reverse, underline), not hard-coded colours.
// tview's styles are package globals: they are set once, so that a second
// pane in the same process never writes them while the first one draws.
var useTerminalColours = sync.OnceFunc(func() {
	tview.Styles.PrimitiveBackgroundColor = tcell.ColorDefault
	tview.Styles.ContrastBackgroundColor = tcell.ColorDefault
	tview.Styles.MoreContrastBackgroundColor = tcell.ColorDefault
	tview.Styles.PrimaryTextColor = tcell.ColorDefault
	tview.Styles.SecondaryTextColor = tcell.ColorDefault
	tview.Styles.TertiaryTextColor = tcell.ColorDefault
	tview.Styles.BorderColor = tcell.ColorDefault
	tview.Styles.TitleColor = tcell.ColorDefault
	tview.Styles.GraphicsColor = tcell.ColorDefault
	tview.Styles.InverseTextColor = tcell.ColorDefault
	tview.Styles.ContrastSecondaryTextColor = tcell.ColorDefault
})

// connLost is the connection's own event, delivered like the daemon's. The
// snapshot that follows a reconnection clears it.
type connLost struct{ err string }

func (connLost) MessageType() string { return "_conn_lost" }

// HandleEvent applies one message from the daemon. It must run on the UI
// goroutine (inside QueueUpdateDraw).
func (p *Pane) HandleEvent(msg socketproto.Message) {
	m := &p.M
	switch ev := msg.(type) {
	case socketproto.Snapshot:
		m.ConnErr = ""
		p.drafts = nil // a new connection: nothing of the old one is acknowledged
		// The daemon says again, right after the snapshot, every condition
		// that still holds; one that ended while the pane was away goes.
		p.conditions = nil
		p.showNotices()
		for _, r := range m.Reqs {
			for _, s := range r.Qs {
				s.inflight = 0
			}
		}
		if gone := m.Snapshot(ev.Pending); len(gone) > 0 {
			p.notice(fmt.Sprintf("%s no longer waiting (resolved while the pane was away).", plural(len(gone), "request")), noticeTTL)
		}
		defer p.flushDrafts(m.Reqs...) // answers given while the daemon was away
	case socketproto.RequestAdded:
		if m.Add(ev.Request) && p.opt.Bell {
			p.bell = true
		}
	case socketproto.RequestUpdated:
		m.Update(ev.Request)
	case socketproto.RequestResolved:
		r := m.Remove(ev.RequestID)
		if r == nil {
			break
		}
		p.forgetDrafts(r)
		q := requestName(r)
		switch {
		case r.Sending && ev.Outcome == socketproto.OutcomeAnswered:
			if p.opt.Demo {
				p.notice(fmt.Sprintf("Demo: the answer to %s would be sent now; no agent asked it.", q), noticeTTL)
			} else {
				p.notice(fmt.Sprintf("Answer to %s sent.", q), noticeTTL)
			}
		case r.Sending && ev.Outcome == socketproto.OutcomeCancelled:
			p.notice(fmt.Sprintf("%s declined.", upperFirst(q)), noticeTTL)
		case ev.Outcome == socketproto.OutcomeWithdrawn && ev.Settled != "":
			p.notice(fmt.Sprintf("%s was settled in its agent's own prompt: %s.", upperFirst(q), Clean(ev.Settled, false)), noticeTTL)
		case ev.Outcome == socketproto.OutcomeWithdrawn:
			p.notice(fmt.Sprintf("%s was withdrawn by its agent.", upperFirst(q)), noticeTTL)
		case ev.Outcome == socketproto.OutcomeCancelled:
			p.notice(fmt.Sprintf("%s was declined elsewhere (%s).", upperFirst(q), Clean(string(ev.Via), false)), noticeTTL)
		default:
			p.notice(fmt.Sprintf("%s was answered elsewhere (%s).", upperFirst(q), Clean(string(ev.Via), false)), noticeTTL)
		}
	case socketproto.PendingFileError:
		p.condition("pending_file "+ev.Path, ev.Error, fmt.Sprintf("Pending file %s: %s", Clean(ev.Path, false), Clean(ev.Error, false)))
	case socketproto.StateDirError:
		p.condition("state_dir "+ev.Path, ev.Error, fmt.Sprintf("State dir %s cannot take writes: %s", Clean(ev.Path, false), Clean(ev.Error, false)))
	case *socketproto.Error:
		p.daemonError(ev)
	case socketproto.OK:
		// For an answer or a cancel, the request_resolved event that follows
		// removes the request; for a draft, the daemon has it.
		p.ackDraft(ev.RequestID)
	case connLost:
		m.ConnErr = ev.err
		for _, r := range m.Reqs {
			r.Sending = false // the snapshot after reconnecting says what happened
		}
	}
	p.sync()
}

// daemonError shows a refused answer or cancel; the answers stay as they were.
func (p *Pane) daemonError(e *socketproto.Error) {
	m := &p.M
	p.ackDraft(e.RequestID)
	r := m.Find(e.RequestID)
	if r != nil {
		r.Sending = false
	}
	if e.RequestID == "" {
		// An error that names no request answers the last thing sent:
		// whatever was on its way is not, so let the user try again.
		for _, r := range m.Reqs {
			r.Sending = false
		}
	}
	msg := Clean(e.Error(), false)
	switch e.Code {
	case socketproto.CodeAlreadyResolved, socketproto.CodeNotFound:
		name := "Request " + Clean(e.RequestID, false)
		if r != nil {
			m.Remove(r.P.RequestID)
			p.forgetDrafts(r)
			name = upperFirst(requestName(r))
		}
		p.notice(fmt.Sprintf("%s is no longer waiting: %s", name, msg), noticeTTL)
	case socketproto.CodeInvalidAnswer:
		p.notice("The daemon refused the answer: "+msg, refusalTTL)
	default:
		p.notice("Daemon: "+msg, refusalTTL)
	}
}

// sync puts the input back in step with the model after anything changed:
// an edit whose request left is dropped, and a free-text question on screen
// has its text input open.
func (p *Pane) sync() {
	if p.editReq != nil && p.M.Find(p.editReq.P.RequestID) != p.editReq {
		p.endEdit()
		p.mode = modeList
	}
	if p.editReq != nil && p.M.Focused() != p.editReq {
		p.closeInput()
	}
	if p.mode == modeDiscard && p.M.Focused() != p.discardReq {
		p.mode = modeList // the request being discarded left (or lost the focus)
	}
	if p.mode == modeNone && !onMultiSelect(p.M.Focused()) {
		p.mode = modeList // the question asked about left the screen
	}
	if p.mode == modeText && p.editQ != nil && !p.typed && p.input.GetText() != p.editQ.inputText() {
		p.input.SetText(p.editQ.inputText(), true) // a new draft for an input not typed in since it opened
	}
	r := p.M.Focused()
	if r == nil || r.Sending {
		p.closeInput()
		return
	}
	if p.mode == modeList {
		if s := r.Current(); s != nil && !s.HasOptions() {
			p.startEdit(modeText)
		}
	}
}

// startEdit opens the text input on the current question.
func (p *Pane) startEdit(md mode) {
	r := p.M.Focused()
	if r == nil || r.Current() == nil {
		return
	}
	s := r.Current()
	p.editReq, p.editQ = r, s
	text := ""
	switch md {
	case modeText:
		text = s.Custom
		if s.Typing != "" {
			text = s.Typing // typed before, never accepted: kept
		}
		p.input.SetPlaceholder("type your answer")
	case modeNote:
		text = s.Notes
		p.input.SetPlaceholder("a note to go with the answer")
	case modeFilter:
		text = s.Filter
		p.input.SetPlaceholder("filter options")
	}
	p.input.SetText(text, true)
	p.input.Focus(nil)
	p.mode = md
	p.typed = false
}

// commitEdit keeps what is in the input without accepting it as an answer:
// text for another question or request is never lost.
func (p *Pane) commitEdit() {
	if p.editQ == nil {
		return
	}
	text := p.input.GetText()
	switch p.mode {
	case modeText, modeLong:
		p.editQ.Custom = text
	case modeFilter:
		p.editQ.Filter = text
	case modeNote:
		// Leaving a note by switching away keeps it (it shows under the
		// question); only Esc in the note input drops the edit.
		p.editQ.Notes = strings.TrimSpace(text)
	}
}

// closeInput keeps what the input holds (see commitEdit) and gives the keys
// back to the list.
func (p *Pane) closeInput() {
	p.commitEdit()
	p.endEdit()
	p.mode = modeList
}

func (p *Pane) endEdit() {
	p.editReq, p.editQ = nil, nil
	p.input.Blur()
}

// --- actions ------------------------------------------------------------------

// advance moves on after a question was answered: a lone question is sent at
// once; otherwise the next question not answered yet, and Submit once every
// question is answered (never an answered question, whose input would open).
func (p *Pane) advance(r *Req) {
	if len(r.Qs) == 1 {
		p.submit(r)
		return
	}
	next := len(r.Qs)
	for k := 1; k < len(r.Qs); k++ {
		if i := (r.Tab + k) % len(r.Qs); !r.Qs[i].Answered {
			next = i
			break
		}
	}
	p.setTab(r, next)
}

func (p *Pane) setTab(r *Req, t int) {
	if t < 0 || t > len(r.Qs) || len(r.Qs) < 2 {
		return
	}
	p.closeInput()
	r.Tab = t
	p.submitScroll = 0
	p.sync()
}

// submit sends the request's answers, or jumps to the first question still
// unanswered.
func (p *Pane) submit(r *Req) {
	for i, s := range r.Qs {
		if !s.Answered && !s.Optional() {
			if len(r.Qs) > 1 {
				p.setTab(r, i)
				p.hint = fmt.Sprintf("Question %d is not answered yet.", i+1)
			}
			return
		}
	}
	// A choice that came from a draft (the file, another pane) approves a
	// preview this pane has not shown in full: not sent until it has been.
	for i, s := range r.Qs {
		if !s.Q.IsMulti() && p.unseenApproval(s, s.Choice) {
			p.setTab(r, i)
			return
		}
	}
	answers := make([]json.RawMessage, len(r.Qs))
	for i, s := range r.Qs {
		answers[i] = s.WireAnswer()
		if !s.Answered {
			answers[i] = json.RawMessage("null") // optional, skipped
		}
		// A typed answer the daemon would refuse (an array's count, a
		// draft from the file) goes back to its question with the reason.
		if _, _, err := socketproto.NormalizeAnswer(s.Q, answers[i]); err != nil && s.Q.Input != nil {
			if len(r.Qs) > 1 {
				p.setTab(r, i)
			}
			s.Answered = false
			p.hint = "Not sent: " + Clean(err.Error(), false) + "."
			return
		}
	}
	err := p.send.Send(socketproto.AnswerRequest{RequestID: r.P.RequestID, Answers: answers, Via: socketproto.ViaPane})
	if err != nil {
		p.hint = "Not sent (" + Clean(err.Error(), false) + "); your answers are kept: press Enter on Submit again."
		if len(r.Qs) > 1 {
			r.Tab = len(r.Qs)
		}
		return
	}
	r.Sending = true
	p.hint = ""
	p.sync()
}

// cancelFlow is Esc on a question: cancel at once when nothing would be
// lost, else ask first. Text typed but not yet accepted counts: one Esc
// must not throw away a long answer half written.
func (p *Pane) cancelFlow(r *Req) {
	n := 0
	for _, s := range r.Qs {
		if s.HasWork() || (p.mode == modeText && s == p.editQ && strings.TrimSpace(p.input.GetText()) != "") {
			n++
		}
	}
	if n == 0 {
		p.cancel(r)
		return
	}
	p.discardN = n
	p.discardReq = r
	p.back = p.mode
	p.mode = modeDiscard
}

// onMultiSelect reports whether r shows a multi-select question with options.
func onMultiSelect(r *Req) bool {
	if r == nil || r.Sending {
		return false
	}
	s := r.Current()
	return s != nil && s.HasOptions() && s.Q.IsMulti()
}

// answerNone answers a multi-select question with none of its options, as
// the user confirmed: the empty selection of docs/contract.md §3, not "not answered".
func (p *Pane) answerNone(r *Req, s *QState) {
	p.mode = modeList
	if r == nil || s == nil || !s.Q.IsMulti() {
		return
	}
	for i := range s.Checked {
		s.Checked[i] = false
	}
	s.Answered = true
	p.advance(r)
}

// leaveEmpty answers an optional single-select question with nothing:
// the way to skip it when choosing an option would send the request.
func (p *Pane) leaveEmpty(r *Req, s *QState) {
	if r == nil || s == nil || !s.Optional() {
		return
	}
	s.Choice, s.Answered = -1, true
	p.advance(r)
}

func (p *Pane) cancel(r *Req) {
	if err := p.send.Send(socketproto.Cancel{RequestID: r.P.RequestID, Via: socketproto.ViaPane}); err != nil {
		p.hint = "Not cancelled (" + Clean(err.Error(), false) + ")."
		return
	}
	p.closeInput()
	r.Sending = true
	p.sync()
}

// --- notices --------------------------------------------------------------------

// A notice is one of two kinds, and one rule says when it goes. A notice
// about a condition (the pending file cannot be used, the state dir cannot
// take writes) stays until the daemon sends that event's cleared form
// ("error": ""), however long that takes, and whatever else is said
// meanwhile. Any other notice is about something that happened, and goes
// after a few seconds or when the next one replaces it.

const (
	noticeTTL  = 5 * time.Second  // a notice about something that happened
	refusalTTL = 15 * time.Second // a refusal carries a reason to read
)

// condition is a notice about a condition, keyed by its event and path.
type condition struct{ key, text string }

// notice shows text about something that happened for ttl (0: noticeTTL).
func (p *Pane) notice(text string, ttl time.Duration) {
	if ttl <= 0 {
		ttl = noticeTTL
	}
	p.noticeEvent = text
	p.noticeUntil = time.Time{}
	if text != "" {
		p.noticeUntil = p.opt.Now().Add(ttl)
	}
	p.showNotices()
}

func (p *Pane) clearNotice() { p.notice("", 0) }

// condition shows text about a condition until its cleared form (an empty
// cause) arrives; a new cause replaces the old one in place.
func (p *Pane) condition(key, cause, text string) {
	i := slices.IndexFunc(p.conditions, func(c condition) bool { return c.key == key })
	switch {
	case cause == "" && i >= 0:
		p.conditions = slices.Delete(p.conditions, i, i+1)
	case cause == "":
	case i >= 0:
		p.conditions[i].text = text
	default:
		p.conditions = append(p.conditions, condition{key, text})
	}
	p.showNotices()
}

// showNotices puts the notices in the model: each condition that holds, in
// the order they began, so that they stay where they are while the news of
// the moment comes and goes after them.
func (p *Pane) showNotices() {
	parts := make([]string, 0, 1+len(p.conditions))
	for _, c := range p.conditions {
		parts = append(parts, c.text)
	}
	if p.noticeEvent != "" {
		parts = append(parts, p.noticeEvent)
	}
	p.M.Notice = strings.Join(parts, " ")
}

// expireNotice drops a notice about something that happened once its time
// is up.
func (p *Pane) expireNotice(now time.Time) {
	if !p.noticeUntil.IsZero() && !now.Before(p.noticeUntil) {
		p.clearNotice()
	}
}

// requestName is how a notice names a request: by its first question (the
// id means nothing to the user), and how many more it had.
func requestName(r *Req) string {
	if len(r.P.Questions) == 0 {
		return "the request " + Clean(r.P.RequestID, false)
	}
	name := "“" + truncate(Clean(r.P.Questions[0].Question, false), 48) + "”"
	if n := len(r.P.Questions) - 1; n > 0 {
		name += fmt.Sprintf(" (and %s)", plural(n, "more question"))
	}
	return name
}

func upperFirst(s string) string {
	if strings.HasPrefix(s, "the ") {
		return "The " + s[4:]
	}
	return s
}

// --- the input guard and drafts ------------------------------------------------

// settling reports whether keys that answer are still ignored after the
// question on screen changed.
func (p *Pane) settling() bool {
	return p.opt.InputGuard > 0 && p.opt.Now().Before(p.settleUntil)
}

// onScreen is what the guard watches: the request on screen and its tab,
// "" when none can be answered.
func (p *Pane) onScreen() string {
	if r := p.M.Focused(); r != nil && !r.Sending {
		return fmt.Sprintf("%s\x00%d", r.P.RequestID, r.Tab)
	}
	return ""
}

// movedByUser notes that a key of the user's own (Tab, [ ], answering and
// moving on) changed what is on screen: their next keys are theirs, so the
// change does not start the guard (docs/contract.md §6). A request leaving or sliding in
// comes with a daemon event, never inside a key, and still starts it.
func (p *Pane) movedByUser() {
	p.shown = p.onScreen()
}

// showing notes what a draw puts on screen; a change starts the guard.
func (p *Pane) showing(what string) {
	if what == p.shown {
		return
	}
	p.shown = what
	if what != "" && p.opt.InputGuard > 0 {
		p.settleUntil = p.opt.Now().Add(p.opt.InputGuard)
	}
}

// flushDrafts sends the daemon every answer of rs that differs from the
// draft it has (docs/contract.md §6 "Answers in progress are the daemon's"), one draft
// message per question changed.
func (p *Pane) flushDrafts(rs ...*Req) {
	var held []socketproto.DraftRequest
	defer func() { p.heldTyping.Store(&held) }()
	for i, r := range rs {
		if r == nil || r.Sending || p.M.Find(r.P.RequestID) != r || (i > 0 && rs[i-1] == r) {
			continue
		}
		for qi, s := range r.Qs {
			v := s.DraftValue()
			if s.sameAnswer(v, s.Known) {
				continue
			}
			if p.typingLater(s, v) {
				held = append(held, socketproto.DraftRequest{RequestID: r.P.RequestID, Index: qi, Answer: v, Via: socketproto.ViaPane})
				continue
			}
			err := p.send.Send(socketproto.DraftRequest{RequestID: r.P.RequestID, Index: qi, Answer: v, Via: socketproto.ViaPane})
			if err != nil {
				// Kept here; sent with the next change, or after reconnecting.
				if p.hint != "" {
					return // a word about what failed already stands
				}
				p.hint = "Answer kept in this pane only (" + Clean(err.Error(), false) + "); it goes to the daemon when it is back."
				return
			}
			s.Known = v
			s.inflight++
			p.drafts = append(p.drafts, s)
		}
	}
}

// ackDraft takes the daemon's ok or error for request id off the drafts
// waiting for one. An ok for an answer or cancel may take a draft's place:
// the request is leaving then, and its drafts no longer matter.
func (p *Pane) ackDraft(id string) {
	for i, s := range p.drafts {
		if s.reqID == id {
			s.inflight--
			p.drafts = append(p.drafts[:i], p.drafts[i+1:]...)
			return
		}
	}
}

// forgetDrafts drops the unacknowledged drafts of a request that left.
func (p *Pane) forgetDrafts(r *Req) {
	out := p.drafts[:0]
	for _, s := range p.drafts {
		if s.reqID != r.P.RequestID {
			out = append(out, s)
		}
	}
	p.drafts = out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
