package views

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"askuser/socketproto"
	"askuser/views/panecore"
)

// fakeDaemon captures what the pane sends.
type fakeDaemon struct {
	mu   sync.Mutex
	sent []socketproto.Message
	fail error
}

func (f *fakeDaemon) Send(m socketproto.Message) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return f.fail
	}
	f.sent = append(f.sent, m)
	return nil
}

// Sent is what the pane sent apart from drafts and activity: answers and cancels.
func (f *fakeDaemon) Sent() []socketproto.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []socketproto.Message
	for _, m := range f.sent {
		switch m.(type) {
		case socketproto.DraftRequest, socketproto.Activity:
		default:
			out = append(out, m)
		}
	}
	return out
}

// Drafts is the draft messages the pane sent, in order.
func (f *fakeDaemon) Drafts() []socketproto.DraftRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []socketproto.DraftRequest
	for _, m := range f.sent {
		if d, ok := m.(socketproto.DraftRequest); ok {
			out = append(out, d)
		}
	}
	return out
}

// H drives a real pane on a simulation screen.
type H struct {
	t   *testing.T
	A   *App
	Scr tcell.SimulationScreen
	D   *fakeDaemon
	// keyed gets a value each time the pane has handled a key.
	keyed chan struct{}
}

var testNow = time.Date(2026, 11, 21, 21, 0, 0, 0, time.UTC)

func newH(t *testing.T, w, h int, opt ...func(*Options)) *H {
	t.Helper()
	o := Options{Socket: "/run/user/1000/askuser/askuserd.sock", Bell: true, Now: func() time.Time { return testNow }}
	for _, f := range opt {
		f(&o)
	}
	scr := tcell.NewSimulationScreen("UTF-8")
	d := &fakeDaemon{}
	a := NewApp(d, o, scr)
	scr.SetSize(w, h) // after SetScreen, which resets the size
	done := make(chan error, 1)
	go func() { done <- a.Run() }()
	hh := &H{t: t, A: a, Scr: scr, D: d, keyed: make(chan struct{}, 1)}
	a.Pane.afterKey = func() {
		select {
		case hh.keyed <- struct{}{}:
		default:
		}
	}
	t.Cleanup(func() {
		a.Quit()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("pane: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("pane did not stop within 10s")
		}
	})
	hh.Sync()
	return hh
}

// On runs f on the UI goroutine and redraws.
func (h *H) On(f func()) { h.t.Helper(); h.on(f, true) }

func (h *H) on(f func(), draw bool) {
	h.t.Helper()
	done := make(chan struct{})
	go func() {
		if draw {
			h.A.TV.QueueUpdateDraw(f)
		} else {
			h.A.TV.QueueUpdate(f)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-h.A.stopped: // the pane quit: nothing more runs on the UI goroutine
	case <-time.After(10 * time.Second):
		h.t.Fatalf("UI did not run an update within 10s\n%s", h.Screen())
	}
}

// Sync is a round trip through the UI goroutine.
func (h *H) Sync() { h.t.Helper(); h.On(func() {}) }

// Event feeds a daemon message straight into the pane.
func (h *H) Event(m socketproto.Message) {
	h.t.Helper()
	h.On(func() { h.A.Pane.HandleEvent(m) })
}

// Key injects one key and waits until the pane has handled it.
func (h *H) Key(k tcell.Key, r rune, mod tcell.ModMask) {
	h.t.Helper()
	h.Scr.InjectKey(k, r, mod)
	select {
	case <-h.keyed:
	case <-h.A.Done():
		return
	case <-time.After(10 * time.Second):
		h.t.Fatalf("key %v %q not handled within 10s\n%s", k, r, h.Screen())
	}
	h.Sync()
}

// Press types keys: runes as text, or names in angle brackets: <Enter> <Esc>
// <Up> <Down> <Left> <Right> <Tab> <BackTab> <Space> <PgUp> <PgDn> <Bksp> <C-e> <C-n> <C-p>.
func (h *H) Press(keys ...string) {
	h.t.Helper()
	named := map[string]tcell.Key{
		"<Enter>": tcell.KeyEnter, "<Esc>": tcell.KeyEscape, "<Up>": tcell.KeyUp, "<Down>": tcell.KeyDown,
		"<Left>": tcell.KeyLeft, "<Right>": tcell.KeyRight, "<Tab>": tcell.KeyTab, "<BackTab>": tcell.KeyBacktab,
		"<PgUp>": tcell.KeyPgUp, "<PgDn>": tcell.KeyPgDn, "<Bksp>": tcell.KeyBackspace2, "<C-e>": tcell.KeyCtrlE,
		"<C-n>": tcell.KeyCtrlN, "<C-p>": tcell.KeyCtrlP, "<Home>": tcell.KeyHome, "<End>": tcell.KeyEnd,
	}
	for _, k := range keys {
		if key, ok := named[k]; ok {
			h.Key(key, 0, tcell.ModNone)
			continue
		}
		if k == "<Space>" {
			h.Key(tcell.KeyRune, ' ', tcell.ModNone)
			continue
		}
		for _, r := range k {
			h.Key(tcell.KeyRune, r, tcell.ModNone)
		}
	}
}

// Resize changes the terminal size and redraws.
func (h *H) Resize(w, hh int) {
	h.t.Helper()
	h.Scr.SetSize(w, hh)
	h.Sync()
}

// Lines is the screen as text, one string per row, trailing spaces trimmed.
func (h *H) Lines() []string {
	h.Sync()
	var cells []tcell.SimCell
	var w, hh int
	// Read on the UI goroutine: GetContents shares the buffer a draw writes.
	h.On(func() {
		c, cw, ch := h.Scr.GetContents()
		cells, w, hh = append([]tcell.SimCell(nil), c...), cw, ch
	})
	lines := make([]string, hh)
	for y := 0; y < hh; y++ {
		var b strings.Builder
		for x := 0; x < w; x++ {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				b.WriteByte(' ')
				continue
			}
			b.WriteString(string(c.Runes))
		}
		lines[y] = strings.TrimRight(b.String(), " ")
	}
	return lines
}

func (h *H) Screen() string {
	cells, w, hh := h.Scr.GetContents()
	var b strings.Builder
	fmt.Fprintf(&b, "--- screen %dx%d ---\n", w, hh)
	for y := 0; y < hh; y++ {
		b.WriteString("|")
		for x := 0; x < w; x++ {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				b.WriteByte(' ')
			} else {
				b.WriteString(string(c.Runes))
			}
		}
		b.WriteString("|\n")
	}
	return b.String()
}

// Text is the whole screen as one string.
func (h *H) Text() string { return strings.Join(h.Lines(), "\n") }

func (h *H) Has(subs ...string) {
	h.t.Helper()
	text := h.Text()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			h.t.Fatalf("screen lacks %q\n%s", s, h.Screen())
		}
	}
}

func (h *H) HasNot(subs ...string) {
	h.t.Helper()
	text := h.Text()
	for _, s := range subs {
		if strings.Contains(text, s) {
			h.t.Fatalf("screen shows %q but should not\n%s", s, h.Screen())
		}
	}
}

// LastSent is the last message the pane sent, failing if none.
func (h *H) LastSent() socketproto.Message {
	h.t.Helper()
	s := h.D.Sent()
	if len(s) == 0 {
		h.t.Fatalf("the pane sent nothing\n%s", h.Screen())
	}
	return s[len(s)-1]
}

// Answers decodes the last answer message's answers as generic JSON.
func (h *H) Answers(id string) []map[string]any {
	h.t.Helper()
	m, ok := h.LastSent().(socketproto.AnswerRequest)
	if !ok {
		h.t.Fatalf("last message sent is %T, want an answer\n%s", h.LastSent(), h.Screen())
	}
	if m.RequestID != id || m.Via != socketproto.ViaPane {
		h.t.Fatalf("answer for %q via %q, want %q via pane", m.RequestID, m.Via, id)
	}
	var out []map[string]any
	for _, raw := range m.Answers {
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil {
			h.t.Fatalf("answer %s: %v", raw, err)
		}
		out = append(out, v)
	}
	return out
}

// --- fixtures -------------------------------------------------------------------

// opt parses "Label=Description".
func opt(s string) socketproto.Option {
	l, d, _ := strings.Cut(s, "=")
	return socketproto.Option{Label: l, Description: d}
}

func question(text, header string, opts ...string) socketproto.Question {
	q := socketproto.Question{Question: text, Header: header}
	for _, o := range opts {
		q.Options = append(q.Options, opt(o))
	}
	return q
}

func multi(q socketproto.Question) socketproto.Question {
	t := true
	q.MultiSelect = &t
	return q
}

// seq orders requests made one after another by creation time; tests run in
// parallel, so it is atomic.
var seq atomic.Int64

func pending(id string, qs ...socketproto.Question) socketproto.Pending {
	n := seq.Add(1)
	return socketproto.Pending{
		Request:   socketproto.Request{RequestID: id, Questions: qs, Agent: &socketproto.Agent{ID: "a1", Name: "claude-main"}},
		CreatedAt: testNow.Add(-3*time.Minute - time.Second + time.Duration(n)*time.Millisecond),
		Status:    socketproto.StatusWaiting,
		Draft:     make([]json.RawMessage, len(qs)),
	}
}

func dbQuestion() socketproto.Question {
	return question("Which database should we use?", "Database",
		"PostgreSQL (Recommended)=Battle-tested relational DB",
		"SQLite=Lightweight, file-based",
		"MongoDB=Document store")
}

func nameQuestion() socketproto.Question {
	return question("What should we name this service?", "Service Name")
}

// snap is the snapshot a pane gets on connecting, with ps waiting.
func snap(ps ...socketproto.Pending) socketproto.Snapshot {
	return socketproto.Snapshot{State: socketproto.StateWaiting, Pending: ps}
}

// selected is an answer's "selected" labels.
func selected(t *testing.T, a map[string]any) []string {
	t.Helper()
	var out []string
	for _, v := range a["selected"].([]any) {
		out = append(out, v.(string))
	}
	return out
}

// frameworkQuestion has n options, more than fit for n > 6.
func frameworkQuestion(n int) socketproto.Question {
	q := socketproto.Question{Question: "Which framework should we use?", Header: "Framework"}
	for i := 1; i <= n; i++ {
		q.Options = append(q.Options, socketproto.Option{Label: fmt.Sprintf("Framework %02d", i)})
	}
	return q
}

// typeText puts text into the open input as if typed there at once.
func (p *Pane) typeText(text string) {
	p.input.SetText(text, true)
	p.act(panecore.Action{Kind: panecore.Type, Text: text})
}

// notTaken is what the pane says of a key ignored while it settles.
const notTaken = "Not taken: the question on screen just changed. Read it, then answer."
