package pendingfile

import (
	"slices"
	"testing"

	"askuser/socketproto"
)

// A problem about a request that stays waiting goes with it; one about a
// request the save itself resolved, or about no waiting request, stays
// until the next save that parses; the lines that stand for several go
// when all of theirs have.
func TestProblemsGoWithTheirRequests(t *testing.T) {
	acts := []Action{
		reportWaiting("a", "a's answer"),
		reportWaiting("b", "b's answer"),
		{Kind: Resolve, RequestID: "b"},
		report("gone", "not waiting"),
	}
	all := saveProblems(acts)
	for i, want := range [][]string{{"a"}, nil, nil} {
		if !slices.Equal(all[i].about, want) {
			t.Errorf("problem %q is about %q, want %q", all[i].text, all[i].about, want)
		}
	}
	if got := aboutAll(all); got != nil {
		t.Errorf("aboutAll with a save-wide problem = %q, want none", got)
	}
	if got := aboutAll(all[:1]); !slices.Equal(got, []string{"a"}) {
		t.Errorf("aboutAll(a's) = %q", got)
	}

	var told []string
	s := &Syncer{report: func(msg string) { told = append(told, msg) }}
	s.showProblems([]problem{
		{text: "a's answer", about: []string{"a"}, told: true},
		{text: "c's answer", about: []string{"c"}, told: true},
		{text: "kept", about: []string{"a", "c"}},
	})
	s.dropResolved([]socketproto.Pending{{Request: socketproto.Request{RequestID: "a"}}})
	if !slices.Equal(s.render.problems, []string{"a's answer", "kept"}) || !slices.Equal(told, []string{"a's answer"}) {
		t.Errorf("c resolved: file %q, told %q", s.render.problems, told)
	}
	s.dropResolved(nil)
	if s.render.problems != nil || !slices.Equal(told, []string{"a's answer", ""}) {
		t.Errorf("all resolved: file %q, told %q", s.render.problems, told)
	}
}
