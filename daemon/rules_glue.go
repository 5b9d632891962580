package daemon

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"askuser/daemon/journal"
	"askuser/daemon/rules"
	"askuser/internal/history"
	"askuser/socketproto"
)

// Remembered decisions (docs/contract.md §13), as the queue uses them. A
// permission prompt (a request with the integrations' marker) is answered
// at once by a rule that covers it, without reaching any surface; otherwise
// the daemon adds its own "Allow, and remember: …" options to it and keeps,
// on the request and nowhere an agent can write, which rule each would
// save. Only the user choosing one of those options, on a surface, saves a
// rule: the label an answer names is looked up among the daemon's own
// proposals, and an agent's request that brings such a label itself is
// refused.

// remembered is the queue's part of the rules.
type remembered struct {
	book *rules.Book
	// allowed counts, per subject (rules.Subject.Key), the times the user
	// chose Allow: from history at start, then as it happens.
	allowed map[string]int
	home    string
}

// proposal is what the daemon added to one pending permission prompt.
type proposal struct {
	subject rules.Subject // zero when a restored prompt's subject is unknown
	allow   string        // the label of Allow
	// saves is, by option label, the rule choosing it saves: journaled
	// with the request (journal.Record.Remember), so that after a restart
	// the same choice saves the same rule.
	saves map[string]socketproto.Rule
}

// offered is what the journal keeps of p: nil for no proposal.
func (p *proposal) offered() map[string]socketproto.Rule {
	if p == nil {
		return nil
	}
	return p.saves
}

// restoredProposal is the proposal a journaled permission prompt was
// offered, as the journal kept it.
func restoredProposal(jr journal.Request) *proposal {
	if len(jr.Remember) == 0 || jr.Pending.Permission == nil {
		return nil
	}
	p := &proposal{allow: jr.Pending.Permission.Allow, saves: jr.Remember}
	if subj, err := rules.SubjectOf(jr.Pending.Request); err == nil {
		p.subject = subj
	}
	return p
}

// ruleLists is the configured forms no rule is offered for or answers.
func (s *state) ruleLists() rules.Lists {
	return rules.Lists{Destructive: s.opts.Config.Rules.Destructive, RunsPrograms: s.opts.Config.Rules.RunsPrograms}
}

// openRules reads the rules file and history; restored permission prompts
// get back the proposals their options came from.
func (s *state) openRules() {
	s.remembered.home, _ = os.UserHomeDir()
	s.remembered.book = rules.Open(filepath.Join(s.opts.Config.StateDir(), rules.FileName), s.now)
	if p := s.remembered.book.Problem(); p != "" {
		s.log.Warn("rules file refused", "problem", p)
	}
	s.remembered.allowed = map[string]int{}
	s.readRuleHistory(filepath.Join(s.opts.Config.StateDir(), history.File))
	for _, r := range s.pending {
		if r.proposal == nil {
			s.recallProposal(r)
		}
	}
}

// readRuleHistory counts, from history.jsonl, the Allows per subject and
// each rule's answers.
func (s *state) readRuleHistory(path string) {
	f, err := history.Open(path) // never blocks: a FIFO there is refused
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("rules: history not read; Allows are counted from now on", "err", err)
		}
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4*s.limits.MaxMessageBytes+64<<10)
	for sc.Scan() {
		line := sc.Bytes()
		if !strings.Contains(string(line), `"permission"`) {
			continue // the cheap test first: most lines are no permission prompt
		}
		var h history.Entry
		if json.Unmarshal(line, &h) != nil || h.Permission == nil || h.Outcome != socketproto.OutcomeAnswered {
			continue
		}
		if h.Via == socketproto.ViaRule {
			s.remembered.book.Used(h.RuleID, h.Time)
			continue
		}
		if h.RuleID > 0 {
			s.remembered.book.Seen(h.RuleID) // made here, perhaps revoked since
		}
		subj, err := rules.SubjectOf(socketproto.Request{Questions: h.Questions, Agent: h.Agent, Permission: h.Permission})
		if err == nil && len(h.Answers) == 1 && h.Answers[0].SelectedOption == h.Permission.Allow {
			s.remembered.allowed[subj.Key()]++
		}
	}
}

// refuseRememberOptions refuses a request that brings an option only the
// daemon may add: an agent must not offer the user a rule of its own making.
func refuseRememberOptions(req socketproto.Request) *socketproto.Error {
	for i, q := range req.Questions {
		for j, o := range q.Options {
			if strings.HasPrefix(o.Label, socketproto.RememberPrefix) {
				return socketproto.Errf(socketproto.CodeInvalidRequest, "questions["+itoa(i)+"].options["+itoa(j)+"].label",
					"%q begins only the options askuserd adds itself to a permission prompt; an agent cannot offer one", strings.TrimSpace(socketproto.RememberPrefix))
			}
		}
	}
	return nil
}

// permissionPrompt handles a new request before it is queued: answered by
// a rule (true: nothing more to do), or given the options that remember.
func (s *state) permissionPrompt(c *conn, r *request) bool {
	if r.p.Permission == nil || s.remembered.book == nil {
		return false
	}
	subj, err := rules.SubjectOf(r.p.Request)
	if err != nil {
		s.log.Debug("permission prompt: no rule", "requestId", r.p.RequestID, "why", err)
		return false
	}
	lists := s.ruleLists()
	if rule := s.remembered.book.Match(subj, lists); rule != nil {
		s.answerByRule(c, r, subj, *rule)
		return true
	}
	q := r.p.Questions[0]
	props, err := rules.Propose(subj, q.Options[subj.Allow].Preview, rules.Tree(subj.Cwd), s.remembered.home, lists)
	if err != nil {
		s.log.Debug("permission prompt: nothing to remember", "requestId", r.p.RequestID, "why", err)
		return false
	}
	p := &proposal{subject: subj, allow: r.p.Permission.Allow, saves: map[string]socketproto.Rule{}}
	opts := slices.Clone(q.Options)
	for _, pr := range props {
		if slices.ContainsFunc(opts, func(o socketproto.Option) bool { return o.Label == pr.Option.Label }) {
			return false
		}
		p.saves[pr.Option.Label] = pr.Rule
	}
	if n, after := s.remembered.allowed[subj.Key()], s.opts.Config.Rules.ProposeAfter; after > 0 && n >= after {
		// Allowed as often as rules.propose_after: the rule for this kind
		// of agent says so. It stays where it is, after the agent's own
		// options: the key that meant Allow yesterday means Allow today.
		props[0].Option.Description = allowedMark(n) + props[0].Option.Description
	}
	opts = append(opts, props[0].Option, props[1].Option)
	q.Options = opts
	r.p.Questions = []socketproto.Question{q}
	if len(opts) > socketproto.StrictMaxOptions {
		r.p.Tool = socketproto.ToolAskUser
	}
	r.proposal = p
	return false
}

// allowedMark is the proposal's mark on the remember option.
func allowedMark(n int) string {
	if n == 1 {
		return "You allowed this once. "
	}
	return fmt.Sprintf("You allowed this %d times. ", n)
}

// recallProposal gives a permission prompt restored from a journal written
// before proposals were journaled back the proposals its "remember" options
// came from, when they are offered again the same.
func (s *state) recallProposal(r *request) {
	if r.p.Permission == nil || len(r.p.Questions) != 1 {
		return
	}
	subj, err := rules.SubjectOf(r.p.Request)
	if err != nil {
		return
	}
	q := r.p.Questions[0]
	props, err := rules.Propose(subj, q.Options[subj.Allow].Preview, rules.Tree(subj.Cwd), s.remembered.home, s.ruleLists())
	if err != nil {
		return
	}
	p := &proposal{subject: subj, allow: r.p.Permission.Allow, saves: map[string]socketproto.Rule{}}
	for _, pr := range props {
		if slices.ContainsFunc(q.Options, func(o socketproto.Option) bool { return o.Label == pr.Option.Label && o.Preview == pr.Option.Preview }) {
			p.saves[pr.Option.Label] = pr.Rule
		}
	}
	if len(p.saves) > 0 {
		r.proposal = p
	}
}

// answerByRule answers r at once by rule, exactly as the user's Allow
// would: the request is journaled and resolved in one step, so "wait" and
// history have it (answeredVia "rule", the rule's id), and followers hear
// only that it was resolved: it never waits, rings or notifies. Subscribers
// get one line about it (rule_answered).
func (s *state) answerByRule(c *conn, r *request, subj rules.Subject, rule socketproto.Rule) {
	if err := s.enqueue(r); err != nil {
		s.sendErr(c, r.p.RequestID, stateUnavailable(r.p.RequestID, err))
		return
	}
	s.send(c, socketproto.Queued{RequestID: r.p.RequestID, Position: 0, PendingFile: s.opts.PendingFilePath})
	q := r.p.Questions[0]
	allow := q.Options[subj.Allow].Label
	answers := []socketproto.Answer{{Question: q.Question, Answer: socketproto.AnswerValue{Text: allow}, SelectedOption: allow}}
	resp := socketproto.BuildResponse(r.p.RequestID, r.p.Questions, answers, socketproto.ViaRule, s.now().UTC())
	resp.RuleID = rule.ID
	if err := s.resolve(r, socketproto.OutcomeAnswered, socketproto.ViaRule, &resp, nil); err != nil {
		// It stays pending, as asked; the user answers it.
		s.tellAdded(r)
		return
	}
	s.forgetKept(s.results[r.p.RequestID])
	s.remembered.book.Used(rule.ID, resp.AnsweredAt)
	s.broadcast(socketproto.RuleAnswered{RequestID: r.p.RequestID, RuleID: rule.ID,
		Sentence: rules.Sentence(rule, s.remembered.home), Agent: r.p.Agent})
	s.log.Debug("answered by rule", "requestId", r.p.RequestID, "rule", rule.ID)
}

// rememberChoice is answerWith's step for a permission prompt: a choice of
// one of the daemon's own "remember" options saves its rule, and the agent
// is answered with Allow, as it would have been; a choice of Allow is
// counted towards proposing the rule. It returns the answers to give and
// the rule made (0 for none). A remember option was approved like Allow
// (its preview is Allow's, and its digest was checked): when its rule
// cannot be saved, the agent still gets Allow and the surfaces are told
// that the rule was not saved. It never becomes a Deny.
func (s *state) rememberChoice(r *request, answers []socketproto.Answer, via socketproto.Via) ([]socketproto.Answer, int) {
	if r.p.Permission == nil || len(answers) != 1 {
		return answers, 0
	}
	p := r.proposal
	chosen := answers[0].SelectedOption
	if p != nil && chosen == p.allow {
		if p.subject.Command != "" {
			s.remembered.allowed[p.subject.Key()]++
		}
		return answers, 0
	}
	if !strings.HasPrefix(chosen, socketproto.RememberPrefix) {
		return answers, 0
	}
	allow := r.p.Permission.Allow
	a := answers[0]
	a.Answer = socketproto.AnswerValue{Text: allow}
	a.SelectedOption = allow
	allowed := []socketproto.Answer{a}
	var rule socketproto.Rule
	ok := false
	if p != nil {
		rule, ok = p.saves[chosen]
	}
	if !ok {
		s.ruleNotSaved(r, strings.TrimPrefix(chosen, socketproto.RememberPrefix), "askuserd no longer knows which rule this option saves")
		return allowed, 0
	}
	rule.Made = s.now().UTC().Truncate(1e9)
	rule.MadeVia = string(via)
	rule.MadeFrom = r.p.RequestID
	saved, err := s.remembered.book.Add(rule)
	if err != nil {
		s.ruleNotSaved(r, rules.Sentence(rule, s.remembered.home), err.Error())
		return allowed, 0
	}
	s.log.Info("rule made", "rule", saved.ID, "requestId", r.p.RequestID, "via", via)
	return allowed, saved.ID
}

// ruleNotSaved tells the log and every surface that r was allowed once but
// the rule the user chose was not saved, and why.
func (s *state) ruleNotSaved(r *request, sentence, why string) {
	s.log.Warn("rule not saved", "requestId", r.p.RequestID, "why", why)
	s.broadcast(socketproto.RuleNotSaved{RequestID: r.p.RequestID, Sentence: sentence, Reason: why})
}

// rulesList answers {"type":"rules"}.
func (s *state) rulesList(c *conn) {
	s.send(c, s.remembered.book.List(s.remembered.home))
}

// revokeRule answers {"type":"revoke_rule"}: the rule is gone from the
// file, and the next identical prompt is asked again.
func (s *state) revokeRule(c *conn, m socketproto.RevokeRule) {
	found, err := s.remembered.book.Revoke(m.ID)
	switch {
	case err != nil:
		s.sendErr(c, "", socketproto.Errf(socketproto.CodeStateUnavailable, "", "revoking rule %d: %v", m.ID, err))
	case !found:
		s.sendErr(c, "", socketproto.Errf(socketproto.CodeNotFound, "id", "no rule %d (askuser-client rules lists them)", m.ID))
	default:
		s.log.Info("rule revoked", "rule", m.ID, "via", viaOf(c, m.Via))
		s.send(c, socketproto.OK{})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
