package views

import (
	"sort"
	"strings"

	"github.com/gdamore/tcell/v2"

	"askuser/views/panecore"
)

// The one key table (docs/contract.md §6 "One key table"): every binding of the pane,
// with where it applies, what the hint line says and what the README says.
// Key handling, the hint line and the README's table all read it, so they
// cannot disagree (keytable_test.go checks the README). This is k9s's
// pattern of actions with their help text, rather than a switch for the keys
// and a separate list of hints that drift apart.

// where is a set of places the pane can be in; a binding applies in some.
type where uint16

const (
	wSingle  where = 1 << iota // the options of a single-select question
	wMulti                     // the options of a multi-select question
	wText                      // the text input: Other, or a free-text question
	wNote                      // the note input
	wFilter                    // the filter input
	wSubmit                    // the Submit tab
	wBare                      // a request without questions
	wIdle                      // nothing to answer: no request, or one being sent
	wLong                      // "Answer is long … [Y/n]"
	wDiscard                   // "Discard N answers? [y/N]"
	wNone                      // "None of these? [y/N]"
	wRules                     // the Rules view (remembered decisions)
	wDevices                   // the Devices view (the web pane's devices)
	wHelp                      // the list of keys (?)

	wOptions  = wSingle | wMulti
	wInputs   = wText | wNote | wFilter
	wRequest  = wOptions | wSubmit | wBare // a request on screen, no input open
	wBrowsing = wRequest | wIdle
)

// whereNames say in the README where a binding applies.
var whereNames = []struct {
	w    where
	name string
}{
	{wSingle, "single-select list"}, {wMulti, "multi-select list"}, {wText, "text input"}, {wNote, "note"},
	{wFilter, "filter"}, {wSubmit, "Submit tab"}, {wBare, "request without questions"},
	{wIdle, "nothing to answer"}, {wLong, "“Answer is long” prompt"}, {wDiscard, "“Discard” prompt"},
	{wNone, "“None of these” prompt"}, {wRules, "Rules view"}, {wDevices, "Devices view"}, {wHelp, "list of keys"},
}

func (w where) String() string {
	switch w {
	case wBrowsing | wInputs | wRules | wDevices | wHelp:
		return "everywhere"
	case wBrowsing:
		return "no input open"
	case wRequest:
		return "any question, Submit tab"
	case wOptions:
		return "options list"
	}
	var out []string
	for _, n := range whereNames {
		if w&n.w != 0 {
			out = append(out, n.name)
		}
	}
	return strings.Join(out, ", ")
}

// key is one key a binding answers to. alt marks Alt-<rune>.
type key struct {
	k   tcell.Key
	r   rune
	alt bool
}

func rk(rs ...rune) []key {
	out := make([]key, len(rs))
	for i, r := range rs {
		out[i] = key{k: tcell.KeyRune, r: r}
	}
	return out
}

func kk(ks ...tcell.Key) []key {
	out := make([]key, len(ks))
	for i, k := range ks {
		out[i] = key{k: k}
	}
	return out
}

func join(lists ...[]key) []key {
	var out []key
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func (k key) matches(ev *tcell.EventKey) bool {
	if ev.Key() != k.k {
		return false
	}
	if k.k != tcell.KeyRune {
		return true
	}
	return ev.Rune() == k.r && (ev.Modifiers()&tcell.ModAlt != 0) == k.alt
}

// keyCtx is what an action works on: the request and question on screen
// (or those of the open input or dialog), as the core's view has them.
type keyCtx struct {
	r  *panecore.RequestView
	s  *panecore.QuestionView // nil on the Submit tab and with no request
	ev *tcell.EventKey
}

// binding is one row of the table.
type binding struct {
	keys []key // nil: any key not taken by an earlier binding (typing)
	// hint is what the hint line says, e.g. "↑↓ move"; "" keeps the binding
	// out of the hint line (it is still in the README).
	hint string
	// keyNames and doc are the README's columns: the keys and what they do.
	keyNames, doc string
	where         where
	// kind is the core action the key is for ("" for the pane's own:
	// scrolling, quitting). While the core settles, the hint line leaves
	// out the keys whose action it would refuse.
	kind panecore.Kind
	// when narrows where the binding applies (e.g. only with several
	// requests waiting); nil means always. The hint line shows a binding only
	// when it applies, so a hint never offers a key that does nothing.
	when func(p *Pane, c keyCtx) bool
	do   func(p *Pane, c keyCtx)
	// pin keeps the hint on the hint line however narrow the terminal:
	// how to quit and how to see every key are never crowded out.
	pin bool
}

func severalQuestions(_ *Pane, c keyCtx) bool { return c.r != nil && len(c.r.Questions) > 1 }
func severalRequests(p *Pane, _ keyCtx) bool  { return p.offers(panecore.ActNextRequest) }
func scrollable(p *Pane, _ keyCtx) bool       { return p.found.scrollable }
func filtered(_ *Pane, c keyCtx) bool         { return c.s != nil && c.s.Filter != "" }
func notFiltered(_ *Pane, c keyCtx) bool      { return c.s == nil || c.s.Filter == "" }
func previewScrolls(p *Pane, _ keyCtx) bool   { return p.found.previewOverflow }
func leavesEmpty(p *Pane, _ keyCtx) bool      { return p.offers(panecore.ActLeaveEmpty) }
func onOther(_ *Pane, c keyCtx) bool          { return c.s != nil && c.s.Cursor == len(c.s.Options) }
func hasOther(_ *Pane, c keyCtx) bool         { return c.s != nil && !c.s.NoOther }
func freeText(_ *Pane, c keyCtx) bool         { return c.s != nil && len(c.s.Options) == 0 }
func multiOther(_ *Pane, c keyCtx) bool       { return c.s != nil && len(c.s.Options) > 0 && c.s.Multi }

// loneQuestion: answering it sends the request (the core says so).
func loneQuestion(_ *Pane, c keyCtx) bool { return c.r != nil && c.r.AnswerSends }

// offers reports whether the core's view offers the action named name
// (View.Actions) for what is on screen, available or not.
func (p *Pane) offers(name string) bool {
	_, ok := p.V.Actions[name]
	return ok
}

// actionNames are the key table's kinds that the view's actions describe:
// a key for one of them is left off the hint line while the view says it
// would not be taken (the reason shows where the pane explains it).
var actionNames = map[panecore.Kind]string{
	panecore.LeaveEmpty: panecore.ActLeaveEmpty,
	panecore.Decline:    panecore.ActDecline,
}

// disabled reports whether the view says b's action would not be taken now.
func (p *Pane) disabled(b *binding) bool {
	name, ok := actionNames[b.kind]
	return ok && p.V.Actions[name].Disabled != ""
}

func and(fs ...func(*Pane, keyCtx) bool) func(*Pane, keyCtx) bool {
	return func(p *Pane, c keyCtx) bool {
		for _, f := range fs {
			if !f(p, c) {
				return false
			}
		}
		return true
	}
}

func not(f func(*Pane, keyCtx) bool) func(*Pane, keyCtx) bool {
	return func(p *Pane, c keyCtx) bool { return !f(p, c) }
}

// keyTable is every binding, most important first: the hint line keeps as
// many as fit in this order, and the first binding that matches a key in
// the place the pane is in handles it.
var keyTable = []binding{
	// The dialogs take every key while they are up.
	{keys: join(kk(tcell.KeyEnter), rk('y', 'Y')), hint: "y/Enter accept", keyNames: "`y`, Enter", doc: "accept the long answer", where: wLong,
		kind: panecore.Yes, do: do(panecore.Yes)},
	{keys: join(kk(tcell.KeyEscape), rk('n', 'N')), hint: "n/Esc keep editing", keyNames: "`n`, Esc", doc: "back to editing, the text intact", where: wLong,
		do: do(panecore.Back)},
	{keys: rk('y', 'Y'), hint: "y discard", keyNames: "`y`", doc: "discard the answers and decline the request", where: wDiscard,
		kind: panecore.Yes, do: do(panecore.Yes)},
	{keys: join(kk(tcell.KeyEscape, tcell.KeyEnter), rk('n', 'N')), hint: "n/Esc/Enter go back", keyNames: "`n`, Esc, Enter", doc: "back to the questions, every answer intact", where: wDiscard,
		do: do(panecore.Back)},
	{keys: rk('y', 'Y'), hint: "y none of these", keyNames: "`y`", doc: "answer the question with none of its options", where: wNone,
		kind: panecore.Yes, do: do(panecore.Yes)},
	{keys: join(kk(tcell.KeyEscape, tcell.KeyEnter), rk('n', 'N')), hint: "n/Esc/Enter go back", keyNames: "`n`, Esc, Enter", doc: "back to the options, the boxes as they were", where: wNone,
		do: do(panecore.Back)},

	// Settling or not, a request can always be left, switched and quit.
	{keys: kk(tcell.KeyCtrlC), keyNames: "Ctrl-C", doc: "quit the pane; the daemon, its queue and every draft go on", where: wBrowsing | wInputs | wRules | wDevices | wHelp,
		do: func(p *Pane, c keyCtx) { p.quit() }},

	// The list of keys (?), over whatever was on screen.
	{keys: join(kk(tcell.KeyEscape), rk('?', 'q')), hint: "Esc close", keyNames: "Esc, `?`, `q`", doc: "close the list of keys", where: wHelp,
		do: func(p *Pane, c keyCtx) { p.help = false }},
	{keys: join(kk(tcell.KeyUp, tcell.KeyDown, tcell.KeyPgUp, tcell.KeyPgDn), rk('k', 'j')), hint: "↑↓ scroll", keyNames: "↑ ↓, `j` `k`, PgUp PgDn", doc: "scroll the list of keys", where: wHelp,
		do: func(p *Pane, c keyCtx) { p.at.help = max(0, p.at.help+p.scrollStep(c.ev)) }},

	// The Rules view: remembered decisions.
	{keys: join(kk(tcell.KeyUp, tcell.KeyDown), rk('k', 'j')), hint: "↑↓ move", keyNames: "↑ ↓, `j` `k`", doc: "move between the rules", where: wRules,
		when: rulesListed, do: func(p *Pane, c keyCtx) { p.at.rule += arrow(c.ev) }},
	{keys: rk('x'), hint: "x revoke", keyNames: "`x`", doc: "revoke the rule under the cursor: the next prompt it covered is asked again", where: wRules,
		when: rulesListed, do: func(p *Pane, c keyCtx) { p.revokeAtCursor() }},
	{keys: join(kk(tcell.KeyEscape), rk('R', 'q')), hint: "Esc/R back", keyNames: "Esc, `R`, `q`", doc: "back to the questions", where: wRules,
		do: do(panecore.CloseRules)},

	// The Devices view: the web pane's devices.
	{keys: join(kk(tcell.KeyUp, tcell.KeyDown), rk('k', 'j')), hint: "↑↓ move", keyNames: "↑ ↓, `j` `k`", doc: "move between the devices", where: wDevices,
		when: devicesListed, do: func(p *Pane, c keyCtx) { p.devices.cursor += arrow(c.ev) }},
	{keys: rk('x'), hint: "x revoke", keyNames: "`x`", doc: "revoke the device under the cursor: it is logged out of the web pane, its Web Push stops; the others stay", where: wDevices,
		when: devicesListed, do: func(p *Pane, c keyCtx) { p.revokeDevice() }},
	{keys: join(kk(tcell.KeyEscape), rk('D', 'q')), hint: "Esc/D back", keyNames: "Esc, `D`, `q`", doc: "back to the questions", where: wDevices,
		do: func(p *Pane, c keyCtx) { p.devices = nil }},

	// The text inputs: Other, a free-text question, a note, the filter.
	{keys: kk(tcell.KeyEnter), hint: "Enter send", keyNames: "Enter", doc: "a lone question: accept the typed answer and send it", where: wText,
		kind: panecore.Accept, when: and(loneQuestion, not(multiOther)), do: do(panecore.Accept)},
	{keys: kk(tcell.KeyEnter), hint: "Enter accept", keyNames: "Enter", doc: "one of several questions: accept the typed answer and move on", where: wText,
		kind: panecore.Accept, when: not(multiOther), do: do(panecore.Accept)},
	{keys: kk(tcell.KeyEnter), hint: "Enter keep text", keyNames: "Enter", doc: "multi-select Other: keep the text and check Other; Enter on the list confirms", where: wText,
		kind: panecore.Accept, do: do(panecore.Accept)},
	{keys: kk(tcell.KeyEnter), hint: "Enter save note", keyNames: "Enter", doc: "save the note", where: wNote,
		kind: panecore.Accept, do: do(panecore.Accept)},
	{keys: kk(tcell.KeyEnter), hint: "Enter keep filter", keyNames: "Enter", doc: "keep the filter and go back to the list", where: wFilter,
		kind: panecore.Accept, do: do(panecore.Accept)},
	{keys: kk(tcell.KeyUp, tcell.KeyDown), hint: "↑↓ move", keyNames: "↑ ↓", doc: "move among the options the filter keeps", where: wFilter,
		do: func(p *Pane, c keyCtx) { p.act(panecore.Action{Kind: panecore.Move, Delta: arrow(c.ev)}) }},
	{keys: kk(tcell.KeyEscape), hint: "Esc back", keyNames: "Esc", doc: "Other: back to the list; the text is kept", where: wText,
		kind: panecore.Back, when: not(freeText), do: do(panecore.Back)},
	{keys: kk(tcell.KeyEscape), hint: "Esc cancel", keyNames: "Esc", doc: "free-text question: decline the request (asks first when answers would be lost)", where: wText,
		kind: panecore.Back, do: do(panecore.Back)},
	{keys: kk(tcell.KeyEscape), hint: "Esc leave it as it was", keyNames: "Esc", doc: "leave the note as it was", where: wNote,
		do: do(panecore.Back)},
	{keys: kk(tcell.KeyEscape), hint: "Esc clear", keyNames: "Esc", doc: "clear the filter", where: wFilter,
		do: do(panecore.Back)},
	{keys: kk(tcell.KeyCtrlE), hint: "Ctrl-E editor", keyNames: "Ctrl-E", doc: "write the answer or note in `$EDITOR`", where: wText | wNote,
		kind: panecore.Edit, do: func(p *Pane, c keyCtx) { p.editor() }},
	{keys: []key{{k: tcell.KeyRune, r: 'n', alt: true}, {k: tcell.KeyRune, r: 'N', alt: true}}, hint: "Alt-N note", keyNames: "Alt-N", doc: "attach a note (where `n` is just a letter)", where: wText,
		kind: panecore.OpenNote, do: do(panecore.OpenNote)},
	{keys: kk(tcell.KeyTab, tcell.KeyBacktab), hint: "Tab switch", keyNames: "Tab, Shift-Tab", doc: "to the next / previous question; the text is kept, not accepted", where: wText,
		when: severalQuestions, do: func(p *Pane, c keyCtx) { p.act(panecore.Action{Kind: panecore.Tab, Delta: tabStep(c.ev)}) }},

	// Moving between questions and requests.
	{keys: join(kk(tcell.KeyTab, tcell.KeyBacktab, tcell.KeyRight, tcell.KeyLeft), rk('l', 'h')), hint: "Tab/←→ switch", keyNames: "Tab, Shift-Tab, ← →, `h` `l`", doc: "switch between the questions of a request; the last tab is Submit", where: wRequest,
		when: severalQuestions, do: func(p *Pane, c keyCtx) {
			p.act(panecore.Action{Kind: panecore.Tab, Delta: tabStep(c.ev)})
			p.at.submit = 0
		}},
	{keys: join(kk(tcell.KeyUp, tcell.KeyDown), rk('k', 'j')), hint: "↑↓ move", keyNames: "↑ ↓, `j` `k`", doc: "move between options", where: wOptions,
		do: func(p *Pane, c keyCtx) { p.act(panecore.Action{Kind: panecore.Move, Delta: arrow(c.ev)}) }},
	{keys: join(kk(tcell.KeyUp, tcell.KeyDown, tcell.KeyPgUp, tcell.KeyPgDn), rk('k', 'j')), hint: "↑↓ scroll", keyNames: "↑ ↓, `j` `k`, PgUp PgDn", doc: "scroll the list of answers", where: wSubmit,
		do: func(p *Pane, c keyCtx) { p.at.submit = max(0, p.at.submit+p.scrollStep(c.ev)) }},

	// Answering.
	{keys: kk(tcell.KeyEnter), hint: "Enter choose", keyNames: "Enter", doc: "choose the focused option (Other opens the text input)", where: wSingle,
		kind: panecore.Choose, do: do(panecore.Choose)},
	{keys: kk(tcell.KeyEnter), hint: "Enter check/confirm", keyNames: "Enter", doc: "check the focused option; on a checked one, confirm the question", where: wMulti,
		kind: panecore.Confirm, do: do(panecore.Confirm)},
	{keys: rk(' '), hint: "Space toggle", keyNames: "Space", doc: "check or uncheck the focused box (never submits)", where: wMulti,
		kind: panecore.Toggle, do: do(panecore.Toggle)},
	{keys: rk('-'), hint: "- none", keyNames: "`-`", doc: "answer “none of these” (asks first)", where: wMulti,
		kind: panecore.None, do: do(panecore.None)},
	{keys: rk('-'), hint: "- leave empty", keyNames: "`-`", doc: "leave an optional question empty", where: wSingle,
		kind: panecore.LeaveEmpty, when: leavesEmpty, do: do(panecore.LeaveEmpty)},
	{keys: rk('1', '2', '3', '4', '5', '6', '7', '8', '9'), hint: "1-9 pick", keyNames: "`1`–`9`", doc: "choose that option at once", where: wSingle,
		kind: panecore.Pick, do: func(p *Pane, c keyCtx) { p.number(c) }},
	{keys: rk('1', '2', '3', '4', '5', '6', '7', '8', '9'), hint: "1-9 toggle", keyNames: "`1`–`9`", doc: "toggle that option", where: wMulti,
		kind: panecore.Pick, do: func(p *Pane, c keyCtx) { p.number(c) }},
	{keys: kk(tcell.KeyEnter), hint: "Enter send", keyNames: "Enter", doc: "send every answer (or go to the first one missing)", where: wSubmit,
		kind: panecore.Submit, do: do(panecore.Submit)},
	{keys: kk(tcell.KeyEscape), hint: "Esc clear filter", keyNames: "Esc", doc: "with a filter: clear it", where: wOptions,
		when: filtered, do: do(panecore.ClearFilter)},
	{keys: kk(tcell.KeyEscape), hint: "Esc cancel", keyNames: "Esc", doc: "decline the request (asks first when answers would be discarded)", where: wRequest,
		kind: panecore.Decline, when: notFiltered, do: do(panecore.Decline)},

	// Scrolling: the pane's own, never the core's.
	{keys: kk(tcell.KeyPgUp, tcell.KeyPgDn), hint: "PgUp/PgDn scroll", keyNames: "PgUp PgDn", doc: "scroll a long question or description by a page", where: wOptions | wText | wNote | wFilter,
		when: scrollable, do: func(p *Pane, c keyCtx) { p.scroll(c) }},
	{keys: rk('{', '}'), hint: "{ } preview", keyNames: "`{` `}`", doc: "scroll the focused option's preview by a page (one line kept)", where: wSingle,
		when: previewScrolls, do: func(p *Pane, c keyCtx) { p.scrollPreview(c) }},
	{keys: join(kk(tcell.KeyHome, tcell.KeyEnd), rk('g', 'G')), keyNames: "Home End, `g` `G`", doc: "first / last option", where: wOptions,
		do: func(p *Pane, c keyCtx) {
			d := len(c.s.Options) + 1
			if c.ev.Key() == tcell.KeyHome || c.ev.Rune() == 'g' {
				d = -d
			}
			p.act(panecore.Action{Kind: panecore.Move, Delta: d})
		}},

	{keys: join(rk('[', ']'), kk(tcell.KeyCtrlP, tcell.KeyCtrlN)), hint: "[ ] request", keyNames: "`[` `]`, Ctrl-P Ctrl-N", doc: "previous / next waiting request (oldest first); what you typed is kept", where: wBrowsing,
		when: severalRequests, do: func(p *Pane, c keyCtx) { p.act(panecore.Action{Kind: panecore.Step, Delta: requestStep(c.ev)}) }},
	{keys: kk(tcell.KeyCtrlP, tcell.KeyCtrlN), hint: "Ctrl-N/P request", keyNames: "Ctrl-P Ctrl-N", doc: "previous / next waiting request", where: wInputs,
		when: severalRequests, do: func(p *Pane, c keyCtx) { p.act(panecore.Action{Kind: panecore.Step, Delta: requestStep(c.ev)}) }},

	// Opening the inputs.
	{keys: rk('0'), hint: "0 other", keyNames: "`0`", doc: "Other: type your own answer", where: wOptions,
		kind: panecore.Pick, when: hasOther, do: func(p *Pane, c keyCtx) { p.act(panecore.Action{Kind: panecore.Pick, Item: len(c.s.Options)}) }},
	{keys: kk(tcell.KeyCtrlE), keyNames: "Ctrl-E", doc: "on Other: write the answer in `$EDITOR`", where: wOptions,
		kind: panecore.Pick, when: onOther, do: func(p *Pane, c keyCtx) {
			p.act(panecore.Action{Kind: panecore.Pick, Item: len(c.s.Options)})
			if p.V.Input != nil && p.V.Input.Kind == panecore.InputAnswer {
				p.editor()
			}
		}},
	{keys: rk('/'), hint: "/ filter", keyNames: "`/`", doc: "filter the options as you type; the numbers keep pointing at the original options", where: wOptions,
		do: do(panecore.Filter)},
	{keys: rk('n'), hint: "n note", keyNames: "`n`", doc: "attach a note to the answer", where: wOptions,
		kind: panecore.OpenNote, do: do(panecore.OpenNote)},
	{keys: rk('R'), hint: "R rules", keyNames: "`R`", doc: "the Rules view: remembered decisions, who made each, how often it answered; revoke one", where: wBrowsing,
		do: func(p *Pane, c keyCtx) {
			p.at.rule = 0
			p.act(panecore.Action{Kind: panecore.OpenRules})
		}},
	{keys: rk('D'), hint: "D devices", keyNames: "`D`", doc: "the Devices view: the browsers and phones logged in to the web pane, when each paired and was last seen; revoke one", where: wBrowsing,
		when: func(p *Pane, _ keyCtx) bool { return p.opt.Devices != nil }, do: func(p *Pane, c keyCtx) { p.openDevices() }},
	{keys: rk('?'), hint: "? keys", keyNames: "`?`", doc: "list every key, where it applies and what it does", where: wBrowsing | wRules | wDevices, pin: true,
		do: func(p *Pane, c keyCtx) { p.help, p.at.help = true, 0 }},
	{keys: rk('q'), hint: "q quit", keyNames: "`q`", doc: "quit the pane; the daemon, its queue and every draft go on", where: wBrowsing, pin: true,
		do: func(p *Pane, c keyCtx) { p.quit() }},

	// Whatever else is typed goes into the open input.
	{hint: "", keyNames: "other keys", doc: "type into the answer or the note", where: wText | wNote,
		kind: panecore.Type, do: func(p *Pane, c keyCtx) { p.typeKey(c) }},
	{hint: "", keyNames: "other keys", doc: "type the filter", where: wFilter,
		do: func(p *Pane, c keyCtx) { p.typeKey(c) }},
}

// scrollStep is how far a scrolling key moves: a line for ↑ ↓ j k, a page
// (what the last draw showed, less a line kept for context) for PgUp PgDn.
func (p *Pane) scrollStep(ev *tcell.EventKey) int {
	step := arrow(ev)
	if ev.Key() == tcell.KeyPgUp || ev.Key() == tcell.KeyPgDn {
		step *= max(1, p.found.page-1)
	}
	return step
}

func arrow(ev *tcell.EventKey) int {
	switch ev.Key() {
	case tcell.KeyUp, tcell.KeyPgUp:
		return -1
	case tcell.KeyRune:
		if ev.Rune() == 'k' {
			return -1
		}
	}
	return 1
}

func tabStep(ev *tcell.EventKey) int {
	switch ev.Key() {
	case tcell.KeyBacktab, tcell.KeyLeft:
		return -1
	case tcell.KeyRune:
		if ev.Rune() == 'h' {
			return -1
		}
	}
	return 1
}

func requestStep(ev *tcell.EventKey) int {
	if ev.Key() == tcell.KeyCtrlP || (ev.Key() == tcell.KeyRune && ev.Rune() == '[') {
		return -1
	}
	return 1
}

// place is where the pane is, for the key table: the dialog or input the
// core has open, else what is on screen.
func (p *Pane) place() (where, keyCtx) {
	r, s := p.focused()
	c := keyCtx{r: r, s: s}
	if p.help {
		return wHelp, c
	}
	if p.devices != nil {
		return wDevices, c
	}
	if p.V.Rules != nil {
		return wRules, c
	}
	if d := p.V.Dialog; d != nil {
		switch d.Kind {
		case panecore.DialogLong:
			return wLong, c
		case panecore.DialogDiscard:
			return wDiscard, c
		case panecore.DialogNone:
			return wNone, c
		}
	}
	if in := p.V.Input; in != nil && r != nil && in.Request == r.ID && in.Question < len(r.Questions) {
		c.s = &r.Questions[in.Question]
		return map[panecore.InputKind]where{panecore.InputAnswer: wText, panecore.InputNote: wNote, panecore.InputFilter: wFilter}[in.Kind], c
	}
	switch {
	case r == nil || r.Sending:
		return wIdle, c
	case r.OnSubmit:
		return wSubmit, c
	case c.s == nil:
		return wBare, c
	case c.s.Multi && len(c.s.Options) > 0:
		return wMulti, c
	case len(c.s.Options) > 0:
		return wSingle, c
	}
	// A free-text question whose input is not open; only the keys that
	// work anywhere apply.
	return wIdle, c
}

// lookup finds the binding for ev in place w.
func (p *Pane) lookup(w where, c keyCtx) *binding {
	for i := range keyTable {
		b := &keyTable[i]
		if b.where&w == 0 || (b.when != nil && !b.when(p, c)) {
			continue
		}
		if b.keys == nil {
			return b
		}
		for _, k := range b.keys {
			if k.matches(c.ev) {
				return b
			}
		}
	}
	return nil
}

// hintLine is the bindings that apply here, in the table's order. While the
// pane settles, only the keys that work now are offered.
func (p *Pane) hintLine() []string {
	w, c := p.place()
	var out []string
	settling := p.V.Settling
	if settling {
		out = append(out, "settling…")
	}
	seen := map[string]bool{}
	for i := range keyTable {
		b := &keyTable[i]
		if b.hint == "" || b.where&w == 0 || (b.when != nil && !b.when(p, c)) || (settling && b.kind != "" && !p.allows(b.kind)) || p.disabled(b) {
			continue
		}
		// The first binding of a key wins; a later one for the same key
		// (another help for Enter, say) is not shown.
		if seen[b.keyNames] && b.keys != nil {
			continue
		}
		seen[b.keyNames] = true
		out = append(out, b.hint)
	}
	return out
}

// pinnedHints are the hints fitHints never drops (binding.pin).
var pinnedHints = func() map[string]bool {
	m := map[string]bool{}
	for _, b := range keyTable {
		if b.pin {
			m[b.hint] = true
		}
	}
	return m
}()

// keyRow is one line of the key table as people read it: the keys, where
// they apply, what they do.
type keyRow struct{ keys, where, does string }

// keyRows is the key table as the README and the list of keys (?) show it:
// one row per binding, grouped by where they apply (lists first, prompts
// last), in the table's order within a group.
func keyRows() []keyRow {
	order := []where{wSingle, wMulti, wSubmit, wText, wNote, wFilter, wBare, wIdle, wLong, wDiscard}
	group := func(w where) int {
		for i, o := range order {
			if w&o != 0 {
				return i
			}
		}
		return len(order)
	}
	rows := append([]binding(nil), keyTable...)
	sort.SliceStable(rows, func(i, j int) bool { return group(rows[i].where) < group(rows[j].where) })
	seen := map[keyRow]bool{}
	var out []keyRow
	for _, k := range rows {
		row := keyRow{k.keyNames, k.where.String(), k.doc}
		if seen[row] {
			continue
		}
		seen[row] = true
		out = append(out, row)
	}
	return out
}
