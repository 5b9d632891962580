package panecore

import (
	"fmt"
	"time"

	"askuser/socketproto"
	"askuser/socketproto/agenttext"
)

// Remembered decisions (docs/contract.md §13), as every surface shows them:
// one line when a rule answered a permission prompt that so never waited,
// and the Rules view, which lists the rules and revokes one. A rule's words
// hold an agent's command: they are cleaned like any agent text.

// The Rules view's actions: never refused (they answer no request).
const (
	OpenRules  Kind = "rules"      // opens the Rules view and asks the daemon for the rules
	CloseRules Kind = "closeRules" // closes it
	RevokeRule Kind = "revokeRule" // revokes rule Item
)

// RulesView is the Rules view while it is open.
type RulesView struct {
	// Loaded is false until the daemon's list arrived.
	Loaded   bool       `json:"loaded"`
	Path     string     `json:"path,omitempty"`
	Revision int        `json:"revision,omitempty"`
	Problem  string     `json:"problem,omitempty"` // why the rules file was last refused
	Rules    []RuleView `json:"rules"`
}

// RuleView is one rule, its words clean.
type RuleView struct {
	ID           int        `json:"id"`
	Sentence     string     `json:"sentence"`
	Made         time.Time  `json:"made"`
	MadeVia      string     `json:"madeVia"`
	MadeFrom     string     `json:"madeFrom,omitempty"`
	Answered     int        `json:"answered"`
	LastAnswered *time.Time `json:"lastAnswered,omitempty"`
	Expires      *time.Time `json:"expires,omitempty"`
	// Details is who made it, when and where, and its use, in the words
	// every face shows ("made 2026-11-21 21:00:00 in the pane; answered
	// 2×, last …"), the times in the core's local time.
	Details string `json:"details"`
}

// ruleDetails is RuleView.Details.
func ruleDetails(r RuleView) string {
	at := func(t time.Time) string { return t.Local().Format(time.DateTime) }
	s := "made " + at(r.Made) + " in the " + r.MadeVia
	switch r.MadeVia {
	case "hand":
		s = "written by hand " + at(r.Made)
	case string(socketproto.ViaWeb):
		s = "made " + at(r.Made) + " on the web page"
	}
	if r.Answered > 0 && r.LastAnswered != nil {
		s += fmt.Sprintf("; answered %d×, last %s", r.Answered, at(*r.LastAnswered))
	} else {
		s += "; has not answered yet"
	}
	if r.Expires != nil {
		s += "; expires " + at(*r.Expires)
	}
	return s
}

// rulesView is the Rules view: open, and the list the daemon last sent.
type rulesView struct {
	open bool
	list *RulesView
}

// take is the daemon's list, while the view is open.
func (v *rulesView) take(ev socketproto.Rules) {
	if !v.open {
		return
	}
	l := &RulesView{Loaded: true, Path: agenttext.Clean(ev.Path, false), Revision: ev.Revision,
		Problem: agenttext.Clean(ev.Problem, false), Rules: []RuleView{}}
	for _, r := range ev.Rules {
		rv := RuleView{ID: r.ID, Sentence: agenttext.Clean(r.Sentence, false), Made: r.Made,
			MadeVia: agenttext.Clean(r.MadeVia, false), MadeFrom: agenttext.Clean(r.MadeFrom, false),
			Answered: r.Answered, LastAnswered: r.LastAnswered, Expires: r.Expires}
		rv.Details = ruleDetails(rv)
		l.Rules = append(l.Rules, rv)
	}
	v.list = l
}

// rulesAction applies a Rules view action; false when a is none.
func (st *state) rulesAction(a Action) bool {
	switch a.Kind {
	case OpenRules:
		st.rules = rulesView{open: true, list: &RulesView{Rules: []RuleView{}}}
		st.askRules()
	case CloseRules:
		st.rules = rulesView{}
	case RevokeRule:
		if err := st.send.Send(socketproto.RevokeRule{ID: a.Item, Via: st.opt.Via}); err != nil {
			st.word("Rule not revoked: " + agenttext.Clean(err.Error(), false))
			return true
		}
		st.word(fmt.Sprintf("Rule %d revoked; the next identical prompt is asked again.", a.Item))
		if st.rules.open {
			st.askRules() // answered after the revoke's ok, in order
		}
	default:
		return false
	}
	return true
}

func (st *state) askRules() {
	if err := st.send.Send(socketproto.RulesRequest{}); err != nil {
		st.word("Rules not loaded: " + agenttext.Clean(err.Error(), false))
	}
}

// rulesEvent takes the daemon's rules list, and the news that a rule
// answered a prompt.
func (st *state) rulesEvent(msg socketproto.Message) {
	switch ev := msg.(type) {
	case socketproto.Rules:
		st.rules.take(ev)
	case socketproto.RuleAnswered:
		st.notice(fmt.Sprintf("allowed by rule %d: %s", ev.RuleID, agenttext.Clean(ev.Sentence, false)), noticeTTL)
	case socketproto.RuleNotSaved:
		st.notice(fmt.Sprintf("Allowed once; the rule was NOT saved (%s): %s", agenttext.Clean(ev.Reason, false), agenttext.Clean(ev.Sentence, false)), noticeTTL)
	}
}
