package pendingfile

import (
	"slices"

	"askuser/socketproto"
)

// problem is one line of the file's read-only "problems": what was wrong
// with the last save. A problem about requests that were waiting (an
// answer the file could not take) goes when the last of them does, however
// it was resolved: it is no longer anything the user can act on, and left
// standing it would say that something is still wrong (docs/contract.md
// §5). A problem about the file or the save itself (it did not parse, an
// id that was not waiting) names no request and stays until the next save
// that parses.
type problem struct {
	text  string
	about []string // the requests it is about; none: the file or the save
	told  bool     // sent to subscribers as a pending_file_error
}

// showProblems puts what was wrong with the last save at the top of the
// file (read-only "problems"), rewriting it when that changes: someone who
// answers only in an editor sees their file revert, and this says why.
func (s *Syncer) showProblems(problems []problem) {
	s.problems = problems
	texts := make([]string, len(problems))
	for i, p := range problems {
		texts[i] = p.text
	}
	if len(texts) == 0 {
		texts = nil
	}
	if slices.Equal(texts, s.render.problems) {
		return
	}
	s.render.problems = texts
	s.wantWrite = true
}

// dropResolved lets the problems about requests that are no longer pending
// go, from the file (at the rewrite that called it) and from subscribers:
// they are told the newest problem still standing, or that none is, so
// that status and every pane say what the file says.
func (s *Syncer) dropResolved(pending []socketproto.Pending) {
	if !slices.ContainsFunc(s.problems, func(p problem) bool { return len(p.about) > 0 }) {
		return
	}
	waiting := make(map[string]bool, len(pending))
	for _, p := range pending {
		waiting[p.RequestID] = true
	}
	keep := slices.DeleteFunc(slices.Clone(s.problems), func(p problem) bool {
		return len(p.about) > 0 && !slices.ContainsFunc(p.about, func(id string) bool { return waiting[id] })
	})
	if len(keep) == len(s.problems) {
		return
	}
	before, after := lastTold(s.problems), lastTold(keep)
	s.showProblems(keep)
	if after != before {
		s.report(after) // "" is the cleared form
	}
}

// lastTold is the problem subscribers heard last, which status shows.
func lastTold(problems []problem) string {
	for i := len(problems) - 1; i >= 0; i-- {
		if problems[i].told {
			return problems[i].text
		}
	}
	return ""
}

// saveProblems turns a save's Report actions (acts, all of them, for the
// requests it resolved too) into problems: a problem is about its request
// only when that request stayed waiting after the save; one the save itself
// answered or cancelled took what the problem says with it, and the user
// should still read it (an answer under an edited question was dropped).
func saveProblems(acts []Action) (reports []problem) {
	done := map[string]bool{}
	for _, a := range acts {
		if a.Kind == Resolve || a.Kind == Cancel {
			done[a.RequestID] = true
		}
	}
	for _, a := range acts {
		if a.Kind != Report {
			continue
		}
		p := problem{text: a.Error}
		if a.Waiting && !done[a.RequestID] {
			p.about = []string{a.RequestID}
		}
		reports = append(reports, p)
	}
	return reports
}

// aboutAll is the requests every one of problems is about, or none when one
// of them is about the file or the save: a line that stands for them all
// ("N more problems", where the save is kept) goes when they all have.
func aboutAll(problems []problem) []string {
	var ids []string
	for _, p := range problems {
		if len(p.about) == 0 {
			return nil
		}
		ids = append(ids, p.about...)
	}
	return ids
}
