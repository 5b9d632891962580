package pendingfile

import (
	"bytes"
	"encoding/json"
	"fmt"

	"askuser/socketproto"
	"askuser/socketproto/agenttext"
)

// Kind says what an Action does to the queue.
type Kind int

const (
	// Resolve answers the request with Answers, answeredVia "file".
	Resolve Kind = iota + 1
	// Cancel declines the request as the user.
	Cancel
	// SetDraft replaces the request's draft with Draft.
	SetDraft
	// Report tells the user (pending_file_error, daemon log) that part of the
	// saved file was ignored, and why.
	Report
)

func (k Kind) String() string {
	switch k {
	case Resolve:
		return "resolve"
	case Cancel:
		return "cancel"
	case SetDraft:
		return "draft"
	case Report:
		return "report"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Action is one change a saved file asks of the queue.
type Action struct {
	Kind      Kind
	RequestID string
	// Answers, for Resolve: one per question of the request, in its order.
	Answers []socketproto.Answer
	// Draft, for SetDraft: one per question, JSON null where none.
	Draft []json.RawMessage
	// Error, for Report: a sentence that says where in the file.
	Error string
	// Waiting, for Report: the problem is about request RequestID, which
	// was waiting when the save was merged, so the problem goes when that
	// request does (answered elsewhere, cancelled, withdrawn). False for a
	// problem about the save itself, or an id that was not waiting.
	Waiting bool
	// Unapproved, for Report: the request's answers were complete and
	// refused only for an approving choice's "approvesDigest"; Draft holds
	// them. Passed back in the next Save's Unapproved, an unchanged save of
	// them that now carries the field sends them.
	Unapproved bool
}

// Merge is MergeFrom against the newest state: for a save whose revision
// is not known.
func Merge(f *File, pending []socketproto.Pending) []Action {
	return MergeFrom(f, nil, pending)
}

// MergeFrom compares a saved file with the revision it was edited from
// (base: each request's answers as that revision held them, by request id;
// nil when it is not known, and the pending requests' drafts stand in) and
// says what to do, in the file's order (docs/contract.md §5: a save is merged, never
// taken whole). Only an answer or a cancel flag that differs from base is
// the user's edit; every other answer keeps its newest value, so a buffer
// loaded before a pane's answer never undoes it. A request is resolved only
// when this save edited it and all its answers are then filled: drafts the
// daemon wrote into the file are never a submission by themselves.
//
// It is pure: the caller applies the actions to the same pending set it
// passed in, atomically, so that nothing resolves twice. A request missing
// from the file is left alone: the user's buffer may be older than the
// file. A request id that is not pending is reported and ignored, unless
// the save left it as its revision had it (a buffer that predates its
// answer). An answer that does not normalise is reported and kept as a
// draft, so the user can fix it without typing it again.
func MergeFrom(f *File, base map[string][]json.RawMessage, pending []socketproto.Pending) []Action {
	return MergeWith(f, base, nil, pending)
}

// Merge is the save merged into pending: MergeWith with its base.
func (sv Save) Merge(pending []socketproto.Pending) []Action {
	return mergeSave(sv.File, sv.Base, sv.Wrote, sv.Unapproved, pending)
}

// MergeWith is MergeFrom for a save whose base may not be known. Against
// the newest state, an editor's buffer loaded long ago still holds the
// drafts the daemon wrote into it then, which differ from the newest ones:
// taken as the user's edits, they would send a request with an old draft
// nobody submitted, or clear a newer one. So when base is nil, an answer
// the daemon itself wrote there once (wrote reports it) and an answer left
// empty are not edits; only what the daemon never wrote is the user's.
func MergeWith(f *File, base map[string][]json.RawMessage, wrote func(id string, i int, raw json.RawMessage) bool, pending []socketproto.Pending) []Action {
	return mergeSave(f, base, wrote, nil, pending)
}

// mergeSave is MergeWith with unapproved: the answers of earlier saves
// refused only for their "approvesDigest" (Action.Unapproved), by request.
func mergeSave(f *File, base map[string][]json.RawMessage, wrote func(id string, i int, raw json.RawMessage) bool, unapproved map[string][]json.RawMessage, pending []socketproto.Pending) []Action {
	if base != nil {
		wrote = nil // the base says exactly what the buffer held
	}
	if f == nil {
		return nil
	}
	byID := make(map[string]*socketproto.Pending, len(pending))
	for i := range pending {
		byID[pending[i].RequestID] = &pending[i]
	}
	var acts []Action
	seen := make(map[string]bool, len(f.Requests))
	for _, r := range f.Requests {
		at := r.At
		if at == "" {
			at = "the file"
		}
		if seen[r.RequestID] {
			acts = append(acts, report(r.RequestID, "%s: request %q appears more than once; only its first entry counts", at, r.RequestID))
			continue
		}
		seen[r.RequestID] = true
		p, ok := byID[r.RequestID]
		if !ok {
			if was, known := base[r.RequestID]; known && !r.Cancel && unedited(r, was) {
				continue // answered or cancelled since the buffer was loaded
			}
			acts = append(acts, report(r.RequestID, "%s: request %q is not waiting (unknown, or already answered or cancelled); ignored", at, r.RequestID))
			continue
		}
		if r.Cancel {
			acts = append(acts, Action{Kind: Cancel, RequestID: p.RequestID})
			continue
		}
		was := p.Draft
		if base != nil {
			was = base[r.RequestID] // nil when the request was not in it: nothing filled
		}
		acts = append(acts, mergeRequest(at, r, p, was, wrote, unapproved[r.RequestID])...)
	}
	return acts
}

// unedited reports whether a file entry holds, by position, the answers was
// holds: for a request no longer pending, whose questions are not at hand.
func unedited(r Request, was []json.RawMessage) bool {
	for i, q := range r.Questions {
		var w json.RawMessage
		if i < len(was) {
			w = was[i]
		}
		if !sameRaw(q.Answer, w) {
			return false
		}
	}
	return true
}

// mergeRequest handles one request that is in the file and pending; was is
// its answers in the revision the save was edited from; wrote, when that
// revision is not known, what the daemon ever wrote there (see MergeWith);
// unapproved, the answers a save gave it that were refused only for their
// "approvesDigest" (nil when none were).
func mergeRequest(at string, r Request, p *socketproto.Pending, was []json.RawMessage, wrote func(id string, i int, raw json.RawMessage) bool, unapproved []json.RawMessage) []Action {
	var acts []Action
	raws, digests, inFile, unmatched := fileAnswers(r, p)
	for _, text := range unmatched {
		acts = append(acts, reportWaiting(p.RequestID, "%s: request %q has no question %q (was its text edited?); its answer is ignored", at, p.RequestID, text))
	}
	draft, edited := userDraft(p, raws, inFile, was, wrote)
	// The user's answer, refused only for a missing or stale
	// "approvesDigest", became the draft: saved again unchanged, as the
	// refusal asks ("keep that field as written and save again"), it is
	// no edit, yet it is the user's answer, and it is sent with this save's
	// digest. Only while the draft is still that answer.
	if !edited && unapproved != nil && SameDraft(unapproved, draft) {
		edited = true
	}
	if !edited {
		return acts
	}
	complete, refusals := checkDraft(at, p, draft)
	acts = append(acts, refusals...)
	if complete && len(refusals) == 0 {
		resolve, reports := sendDraft(at, p, draft, digests)
		acts = append(acts, reports...)
		if resolve != nil {
			return append(acts, *resolve)
		}
	}
	if !SameDraft(draft, p.Draft) {
		acts = append(acts, Action{Kind: SetDraft, RequestID: p.RequestID, Draft: draft})
	}
	return acts
}

// userDraft is the request's draft with the user's edits in this save laid
// over it, and whether there were any. An answer the same as in the revision
// the save was edited from is no edit: the newest value stands. So is one
// from a buffer of unknown age that the daemon itself once wrote there.
func userDraft(p *socketproto.Pending, raws []json.RawMessage, inFile []bool, was []json.RawMessage, wrote func(id string, i int, raw json.RawMessage) bool) ([]json.RawMessage, bool) {
	draft := make([]json.RawMessage, len(p.Questions))
	edited := false
	for i, q := range p.Questions {
		draft[i] = nullJSON
		if i < len(p.Draft) && isFilled(p.Draft[i]) {
			draft[i] = compact(p.Draft[i])
		}
		var w json.RawMessage
		if i < len(was) {
			w = was[i]
		}
		if !inFile[i] || sameAnswer(q, raws[i], w) {
			continue // not the user's edit: the newest value stands
		}
		if wrote != nil && (blankAsNull(q, raws[i]) == nil || wrote(p.RequestID, i, raws[i])) {
			continue // from a buffer of unknown age: the daemon's old draft, or none
		}
		edited = true
		draft[i] = nullJSON
		if isFilled(raws[i]) {
			draft[i] = compact(raws[i])
		}
	}
	return draft, edited
}

// checkDraft checks each answer in draft against its question: complete says
// every question has one; each refusal is a report naming the answer and the
// rule. A blank answer ("", "  ") means "not yet" and becomes null in draft.
func checkDraft(at string, p *socketproto.Pending, draft []json.RawMessage) (complete bool, refusals []Action) {
	complete = true
	for i, q := range p.Questions {
		if !isFilled(draft[i]) {
			complete = false
			continue
		}
		_, answered, err := socketproto.NormalizeAnswer(q, draft[i])
		switch {
		case err != nil:
			refusals = append(refusals, reportWaiting(p.RequestID, "%s: request %q, questions[%d].answer: %v", at, p.RequestID, i, err))
		case !answered:
			// "" or "  " means "not yet": it is written back as null.
			draft[i] = nullJSON
			complete = false
		}
	}
	return complete, refusals
}

// sendDraft is the Resolve for a complete, valid draft, or nil with the
// reports that say why not: an approval whose digest is missing or stale
// (that report keeps the draft as the user's unapproved answer), or answers
// that do not normalise.
func sendDraft(at string, p *socketproto.Pending, draft []json.RawMessage, digests []ApprovesDigest) (*Action, []Action) {
	var reports []Action
	sent, problems := approved(p, draft, digests)
	for _, msg := range problems {
		a := reportWaiting(p.RequestID, "%s: request %q, %s", at, p.RequestID, msg)
		a.Unapproved, a.Draft = true, draft
		reports = append(reports, a)
	}
	if len(problems) > 0 {
		return nil, reports
	}
	answers, perr := socketproto.NormalizeAnswers(p.Questions, sent)
	if perr == nil && len(answers) == len(p.Questions) {
		return &Action{Kind: Resolve, RequestID: p.RequestID, Answers: answers}, reports
	}
	if perr != nil {
		reports = append(reports, reportWaiting(p.RequestID, "%s: request %q: %s", at, p.RequestID, perr.Error()))
	}
	return nil, reports
}

// sameAnswer reports whether two answers to q are the same edit-wise: both
// "not yet" (null, missing, blank) or the same JSON.
func sameAnswer(q socketproto.Question, a, b json.RawMessage) bool {
	return sameRaw(blankAsNull(q, a), blankAsNull(q, b))
}

func sameRaw(a, b json.RawMessage) bool {
	fa, fb := isFilled(a), isFilled(b)
	return fa == fb && (!fa || bytes.Equal(compact(a), compact(b)))
}

// blankAsNull is raw, or null when it is a blank answer ("", "  ").
func blankAsNull(q socketproto.Question, raw json.RawMessage) json.RawMessage {
	if !isFilled(raw) {
		return nil
	}
	if _, answered, err := socketproto.NormalizeAnswer(q, raw); err == nil && !answered {
		return nil
	}
	return raw
}

// fileAnswers lines the file's answers up with the request's questions.
// Questions are matched by their text (a user may reorder them, and texts are
// unique within a request); a question whose text was deleted is matched by
// position. inFile says which questions the file has: one missing from it is
// no edit; digests are their saved "approvesDigest". It also returns the texts of file questions that match no
// question.
func fileAnswers(r Request, p *socketproto.Pending) (raws []json.RawMessage, digests []ApprovesDigest, inFile []bool, unmatched []string) {
	byText := make(map[string]int, len(r.Questions))
	for j, fq := range r.Questions {
		if _, dup := byText[fq.Question]; !dup && fq.Question != "" {
			byText[fq.Question] = j
		}
	}
	used := make([]bool, len(r.Questions))
	raws = make([]json.RawMessage, len(p.Questions))
	digests = make([]ApprovesDigest, len(p.Questions))
	inFile = make([]bool, len(p.Questions))
	for i, q := range p.Questions {
		j, ok := byText[q.Question]
		if !ok && i < len(r.Questions) && r.Questions[i].Question == "" {
			j, ok = i, true
		}
		if ok {
			raws[i] = r.Questions[j].Answer
			digests[i] = r.Questions[j].ApprovesDigest
			inFile[i] = true
			used[j] = true
		}
	}
	for j, fq := range r.Questions {
		if !used[j] && fq.Question != "" && isFilled(fq.Answer) {
			unmatched = append(unmatched, fq.Question)
		}
	}
	return raws, digests, inFile, unmatched
}

// SameDraft reports whether two drafts hold the same answers: a missing
// element, JSON null and blank are all "none", and JSON is compared compacted.
func SameDraft(a, b []json.RawMessage) bool {
	for i := range max(len(a), len(b)) {
		var x, y json.RawMessage
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		fx, fy := isFilled(x), isFilled(y)
		if fx != fy || (fx && !bytes.Equal(compact(x), compact(y))) {
			return false
		}
	}
	return true
}

// compact is raw as answers are compared and kept: compacted, with bidi
// controls as \u escapes, the form the file is written in (so an answer
// the daemon wrote escaped and read back is not an edit).
func compact(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return agenttext.EscapeJSON(buf.Bytes())
}

func report(id, format string, args ...any) Action {
	return Action{Kind: Report, RequestID: id, Error: fmt.Sprintf(format, args...)}
}

// reportWaiting is report for a problem about a request that is waiting.
func reportWaiting(id, format string, args ...any) Action {
	a := report(id, format, args...)
	a.Waiting = true
	return a
}
