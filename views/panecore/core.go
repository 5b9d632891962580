package panecore

import (
	"time"

	"askuser/socketproto"
)

// Sender is how the core talks to the daemon: answer, cancel and draft
// messages. In production it is the daemon connection (Link); tests
// capture what is sent. Send may be called from the goroutine that calls
// SendHeld, besides the core's own.
type Sender interface {
	Send(msg socketproto.Message) error
}

// Options configure a core.
type Options struct {
	Socket    string           // where agents ask (View.Socket)
	SoftLimit int              // limits.answer_soft_limit; 0 means the default
	Bell      bool             // count a new request in View.Bells
	Now       func() time.Time // the clock for ages, notices and the guard; time.Now when nil
	// InputGuard is ui.input_guard: how long actions that choose, submit,
	// decline or confirm are refused after the request or question on
	// screen changed by itself. 0 turns the settling off (revisions are
	// still checked).
	InputGuard time.Duration
	// Warnings are said once, as a notice, when the core starts: the
	// config's unknown keys, say.
	Warnings []string
	// Demo marks a core on fixture questions: its notices say that nothing
	// reaches an agent.
	Demo bool
	// Via is what answers, cancels and drafts say they came through;
	// socketproto.ViaPane when empty.
	Via socketproto.Via
}

// ConnLost is the face's own event for a daemon connection that went down,
// delivered like the daemon's messages; the snapshot that follows a
// reconnection ends it.
type ConnLost struct{ Err string }

func (ConnLost) MessageType() string { return "_conn_lost" }

// TypingEvery is how long text typed and not accepted waits before it goes
// to the daemon as a draft's "typing": a typist makes a draft a second, not
// one a key. A face calls Tick when NextWake says so.
const TypingEvery = time.Second

// Core is one surface's state: one per terminal pane, one per web page
// session. It is not safe for concurrent use: one goroutine (the face's UI
// goroutine) calls Event, Do, View, Tick and Close; only SendHeld may be
// called from another.
type Core struct {
	st state
}

// New starts a core that sends through s.
func New(s Sender, opt Options) *Core {
	c := &Core{}
	c.st.init(s, opt)
	return c
}

// Event applies one message from the daemon (or ConnLost).
func (c *Core) Event(msg socketproto.Message) { c.st.event(msg) }

// Do applies one user action. It returns the refusal when the action was
// not taken (View.Refusal says the same), nil when it was.
func (c *Core) Do(a Action) *Refusal { return c.st.do(a) }

// Allows reports whether a would be taken now, without taking it: a face
// asks before it changes something of its own for the action (the terminal
// pane before handing a key to its text input).
func (c *Core) Allows(a Action) bool { return c.st.refusal(a) == nil }

// PreviewShown records that lines [top, top+rows) of option opt's preview
// in question q of request req, wrapped into total lines at layout key
// width, were on screen (Allow means seen). A face calls it after drawing;
// it is never refused.
func (c *Core) PreviewShown(req string, q, opt, width, top, rows, total int) {
	c.st.previewShown(req, q, opt, width, top, rows, total)
}

// View is the state to draw now.
func (c *Core) View() View { return c.st.view() }

// NextWake is how long until the view changes by itself (the guard ends, a
// notice expires, typing held back is due, the age of the request on
// screen reads differently); 0 when nothing is pending. A face calls Tick
// then, and draws the view anew.
func (c *Core) NextWake() time.Duration { return c.st.nextWake() }

// Tick is the face's wake: expired notices go, typing held back is sent.
func (c *Core) Tick() { c.st.tick() }

// Close sends every draft now, the typing included: the surface is closing.
func (c *Core) Close() { c.st.closing() }

// SendHeld sends the drafts held back (text being typed), from any
// goroutine: a surface closed by a signal may have no UI goroutine left.
func (c *Core) SendHeld() { c.st.sendHeld() }

// SetHidden is the face saying whether it shows a question at all (false:
// a terminal too small to draw one). A question coming into view again is
// a change the user did not make: it settles (the guard) like one.
func (c *Core) SetHidden(hidden bool) { c.st.setHidden(hidden) }
