package pendingfile

import (
	"bytes"
	"encoding/json"
	"fmt"

	"askuser/socketproto"
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
}

// Merge compares a saved file with the pending requests and says what to do,
// in the file's order. It is pure: the caller applies the actions to the same
// pending set it passed in, atomically, so that nothing resolves twice.
//
// A request missing from the file is left alone: the user's buffer may be
// older than the file. A request id that is not pending is reported and
// ignored. An answer that does not normalise is reported and kept as a draft,
// so the user can fix it without typing it again.
func Merge(f *File, pending []socketproto.Pending) []Action {
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
			acts = append(acts, report(r.RequestID, "%s: request %q is not waiting (unknown, or already answered or cancelled); ignored", at, r.RequestID))
			continue
		}
		if r.Cancel {
			acts = append(acts, Action{Kind: Cancel, RequestID: p.RequestID})
			continue
		}
		acts = append(acts, mergeRequest(at, r, p)...)
	}
	return acts
}

// mergeRequest handles one request that is in the file and pending.
func mergeRequest(at string, r Request, p *socketproto.Pending) []Action {
	var acts []Action
	raws, unmatched := fileAnswers(r, p)
	for _, text := range unmatched {
		acts = append(acts, report(p.RequestID, "%s: request %q has no question %q (was its text edited?); its answer is ignored", at, p.RequestID, text))
	}
	draft := make([]json.RawMessage, len(p.Questions))
	complete, valid := true, true
	for i, q := range p.Questions {
		draft[i] = nullJSON
		if !isFilled(raws[i]) {
			complete = false
			continue
		}
		_, answered, err := socketproto.NormalizeAnswer(q, raws[i])
		switch {
		case err != nil:
			acts = append(acts, report(p.RequestID, "%s: request %q, questions[%d].answer: %v", at, p.RequestID, i, err))
			draft[i] = compact(raws[i])
			valid = false
		case !answered:
			// "" or "  " means "not yet": it is written back as null.
			complete = false
		default:
			draft[i] = compact(raws[i])
		}
	}
	if complete && valid {
		answers, perr := socketproto.NormalizeAnswers(p.Questions, raws)
		if perr == nil && len(answers) == len(p.Questions) {
			return append(acts, Action{Kind: Resolve, RequestID: p.RequestID, Answers: answers})
		}
		if perr != nil {
			acts = append(acts, report(p.RequestID, "%s: request %q: %s", at, p.RequestID, perr.Error()))
		}
	}
	if !SameDraft(draft, p.Draft) {
		acts = append(acts, Action{Kind: SetDraft, RequestID: p.RequestID, Draft: draft})
	}
	return acts
}

// fileAnswers lines the file's answers up with the request's questions.
// Questions are matched by their text (a user may reorder them, and texts are
// unique within a request); a question whose text was deleted is matched by
// position. A question missing from the file keeps its current draft. It also
// returns the texts of file questions that match no question.
func fileAnswers(r Request, p *socketproto.Pending) ([]json.RawMessage, []string) {
	byText := make(map[string]int, len(r.Questions))
	for j, fq := range r.Questions {
		if _, dup := byText[fq.Question]; !dup && fq.Question != "" {
			byText[fq.Question] = j
		}
	}
	used := make([]bool, len(r.Questions))
	raws := make([]json.RawMessage, len(p.Questions))
	for i, q := range p.Questions {
		j, ok := byText[q.Question]
		if !ok && i < len(r.Questions) && r.Questions[i].Question == "" {
			j, ok = i, true
		}
		switch {
		case ok:
			raws[i] = r.Questions[j].Answer
			used[j] = true
		case i < len(p.Draft):
			raws[i] = p.Draft[i]
		}
	}
	var unmatched []string
	for j, fq := range r.Questions {
		if !used[j] && fq.Question != "" && isFilled(fq.Answer) {
			unmatched = append(unmatched, fq.Question)
		}
	}
	return raws, unmatched
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

func compact(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return buf.Bytes()
}

func report(id, format string, args ...any) Action {
	return Action{Kind: Report, RequestID: id, Error: fmt.Sprintf(format, args...)}
}
