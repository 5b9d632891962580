package views

import (
	"strings"
	"sync"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"askuser/internal/webdevices"
	"askuser/socketproto"
	"askuser/views/panecore"
)

// Sender is how the pane talks to the daemon: answer, cancel and draft
// messages. In production it is the daemon connection; tests capture what is sent.
type Sender = panecore.Sender

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
	// Log, when set, receives the raw errors behind the pane's notices
	// (why it is not connected), which the screen says in words.
	Log func(line string)
	// Warnings are said once, as a notice, when the pane opens: the
	// config's unknown keys, say.
	Warnings []string
	// Demo marks a pane on fixture questions (askuserd --demo): it says so
	// in its title, and that nothing it "sends" reaches an agent.
	Demo bool
	// Devices are the web pane's devices (the state dir's devices file,
	// which a running `askuserd web` follows); nil: no Devices view.
	Devices *webdevices.Store
	// Unsubscribe asks the daemon to drop a revoked device's Web Push
	// subscription; nil: not asked.
	Unsubscribe func(endpoint string) error
}

// Pane is the whole screen: one tview primitive that lays out and draws
// the core's view (package panecore) and turns keys into its actions
// through the key table. A single primitive (rather than a tree of
// widgets) keeps the layout decisions for tiny and huge terminals in one
// place. It keeps no rule of its own: what it holds besides the core is
// layout — scroll positions, and what the last draw found (a page's
// height, the preview's rows on screen).
type Pane struct {
	*tview.Box
	core  *panecore.Core
	V     panecore.View // the core's view, as of the last thing that happened
	opt   Options
	input *tview.TextArea // mirrors the core's open input (V.Input)

	// rev is the revision the last draw showed: keys are made against it.
	rev   uint64
	rung  int // V.Bells already rung
	Bells int // bells rung so far (tests read it)

	// Layout: where the user left things, which keys move and a draw
	// clamps to what fits (apply, in frame.go), and what the last draw
	// found, which keys read.
	at    positions
	found drawn

	word    string       // the pane's own word about the last key (an editor that failed)
	quiet   bool         // the last key was the pane's own (scrolling): the core's word is old
	devices *devicesList // the Devices view while it is open
	help    bool         // the list of keys (?) is up

	appHooks
}

// appHooks are how the pane reaches the app it runs in, set by the app;
// nil in widget tests (no editor, no quitting, no redraw by itself).
type appHooks struct {
	app      *tview.Application
	onWake   func(d time.Duration) // asks for a redraw after d (0: none needed)
	onQuit   func()
	afterKey func() // tests: told when a key has been handled
}

// positions are where the user left things: each question's scroll
// positions, the Submit tab's and the list of keys' first line on screen,
// the rule under the cursor in the Rules view.
type positions struct {
	questions map[layKey]*qLayout
	submit    int
	help      int
	rule      int
}

// layKey names a question: its request and index.
type layKey struct {
	req string
	q   int
}

// qLayout is where one question is scrolled to.
type qLayout struct {
	scroll  int // PgUp/PgDn offset into text that does not fit
	winTop  int // first option shown in the list window
	prevTop int // first preview line shown
	cursor  int // the focus the positions above were for
}

// drawn is what a draw found at the size it drew, which the keys read
// until the next draw: how far PgUp/PgDn and { } move, and whether they
// have anything to move.
type drawn struct {
	small           bool // "terminal too small": no key acts on a question
	qOverflow       int  // question lines that did not fit
	page            int  // lines PgUp/PgDn move: what was shown of the scrolled text
	scrollable      bool // PgUp/PgDn have something to scroll
	previewOverflow bool // { } have something to scroll
	previewRows     int  // the preview's lines on screen: what { } scroll by
}

// reading is what a draw showed of a preview that an option approves: it
// is told to the core once the draw is done (Allow means seen).
type reading struct {
	req                             string
	q, opt, width, top, rows, total int
}

// NewPane builds a pane that sends through s.
func NewPane(s Sender, opt Options) *Pane {
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
	core := panecore.New(s, panecore.Options{
		Socket: opt.Socket, SoftLimit: opt.SoftLimit, Bell: opt.Bell, Now: opt.Now,
		InputGuard: opt.InputGuard, Warnings: opt.Warnings, Demo: opt.Demo,
	})
	p := &Pane{Box: tview.NewBox(), core: core, opt: opt, input: in, at: positions{questions: map[layKey]*qLayout{}}}
	p.Box.SetBackgroundColor(tcell.ColorDefault)
	p.refresh()
	p.rev = p.V.Rev
	return p
}

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
type connLost = panecore.ConnLost

// HandleEvent applies one message from the daemon. It must run on the UI
// goroutine (inside QueueUpdateDraw).
func (p *Pane) HandleEvent(msg socketproto.Message) {
	p.core.Event(msg)
	p.refresh()
}

// act hands one action to the core, made against what the last draw
// showed.
func (p *Pane) act(a panecore.Action) *panecore.Refusal {
	a.Rev = p.rev
	p.quiet = false
	ref := p.core.Do(a)
	p.refresh()
	return ref
}

// allows reports whether the core would take an action of kind k now.
func (p *Pane) allows(k panecore.Kind) bool {
	return p.core.Allows(panecore.Action{Kind: k, Rev: p.rev})
}

// refresh takes the core's view after anything happened, and puts the text
// input in step with it.
func (p *Pane) refresh() {
	p.V = p.core.View()
	in := p.V.Input
	if in == nil {
		p.input.Blur()
		return
	}
	if p.input.GetText() != in.Text {
		p.input.SetText(in.Text, true)
	}
	p.input.SetPlaceholder(in.Placeholder)
	p.input.Focus(nil)
}

// focused is the request on screen and its question (nil on the Submit
// tab), or nils.
func (p *Pane) focused() (*panecore.RequestView, *panecore.QuestionView) {
	if p.V.Focus < 0 || p.V.Focus >= len(p.V.Requests) {
		return nil, nil
	}
	r := &p.V.Requests[p.V.Focus]
	if r.Tab < len(r.Questions) {
		return r, &r.Questions[r.Tab]
	}
	return r, nil
}

// layout is question q's scroll positions, kept for the keys that move
// them.
func (p *Pane) layout(r *panecore.RequestView, q int) *qLayout {
	k := layKey{r.ID, q}
	l := p.positions(r, q)
	p.at.questions[k] = &l
	return p.at.questions[k]
}

// positions is question q's scroll positions as a value, the pane
// unchanged: a new focus there starts its preview from the top and keeps
// the question's scroll within the question.
func (p *Pane) positions(r *panecore.RequestView, q int) qLayout {
	var l qLayout
	if kept := p.at.questions[layKey{r.ID, q}]; kept != nil {
		l = *kept
	} else if q < len(r.Questions) {
		return qLayout{cursor: r.Questions[q].Cursor}
	}
	if q < len(r.Questions) && l.cursor != r.Questions[q].Cursor {
		l.cursor = r.Questions[q].Cursor
		l.prevTop = 0
		l.scroll = min(l.scroll, p.found.qOverflow)
	}
	return l
}

// forget drops the layout of requests no longer waiting.
func (p *Pane) forget() {
	if len(p.at.questions) <= 4*len(p.V.Requests)+16 {
		return
	}
	keep := map[string]bool{}
	for _, r := range p.V.Requests {
		keep[r.ID] = true
	}
	for k := range p.at.questions {
		if !keep[k.req] {
			delete(p.at.questions, k)
		}
	}
}

// tick runs on the pane's wake: the core's timers (typing held back, a
// notice that expires).
func (p *Pane) tick() {
	p.core.Tick()
	p.refresh()
}

// flushTyping sends every draft now, typing included: the pane is closing.
func (p *Pane) flushTyping() {
	p.core.Close()
	p.refresh()
}

// sendHeldTyping sends the drafts held back, from any goroutine: a pane
// closed by a signal (its terminal gone) may have no UI left to do it.
func (p *Pane) sendHeldTyping() { p.core.SendHeld() }

// hint is the word about the last key.
func (p *Pane) hint() string {
	switch {
	case p.word != "":
		return p.word
	case p.quiet:
		return "" // a word is about the key before: the next one ends it
	}
	return p.V.Hint
}

// notice is the notices as one line: conditions first, then the news.
func (p *Pane) notice() string {
	parts := make([]string, 0, len(p.V.Notices))
	for _, n := range p.V.Notices {
		parts = append(parts, n.Text)
	}
	return strings.Join(parts, " ")
}

// focusID is the id of the request on screen, "" when none.
func (p *Pane) focusID() string {
	if r, _ := p.focused(); r != nil {
		return r.ID
	}
	return ""
}
