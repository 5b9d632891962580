package pendingfile

import "testing"

// TestStatusTransitions pins every transition from every status. What the
// user was told is kept by all but parsed and unblock, the only two that
// end a problem (and so make the Syncer send the cleared form).
func TestStatusTransitions(t *testing.T) {
	const (
		fine    = statusFine
		settl   = statusSettling
		rep     = statusReported
		repSett = statusReportedSettling
		blocked = statusBlocked
	)
	transitions := []struct {
		name string
		f    func(fileStatus) fileStatus
		// want, from fine, settling, reported, reported+settling, blocked.
		want [5]fileStatus
	}{
		{"settle", fileStatus.settle, [5]fileStatus{settl, settl, repSett, repSett, repSett}},
		{"settled", fileStatus.settled, [5]fileStatus{fine, fine, rep, rep, blocked}},
		{"problem", fileStatus.problem, [5]fileStatus{rep, repSett, rep, repSett, blocked}},
		{"parsed", fileStatus.parsed, [5]fileStatus{fine, settl, fine, settl, blocked}},
		{"block", fileStatus.block, [5]fileStatus{blocked, blocked, blocked, blocked, blocked}},
		{"unblock", fileStatus.unblock, [5]fileStatus{fine, settl, rep, repSett, fine}},
	}
	from := [5]fileStatus{fine, settl, rep, repSett, blocked}
	for _, tr := range transitions {
		for i, st := range from {
			got := tr.f(st)
			if got != tr.want[i] {
				t.Errorf("%v.%s() = %v, want %v", st, tr.name, got, tr.want[i])
			}
			clears := st.reported() && !got.reported()
			if clears && tr.name != "parsed" && tr.name != "unblock" {
				t.Errorf("%v.%s() = %v ends a reported problem", st, tr.name, got)
			}
		}
	}
}

func TestStatusPredicates(t *testing.T) {
	for _, c := range []struct {
		st                          fileStatus
		name                        string
		settling, reported, blocked bool
	}{
		{statusFine, "fine", false, false, false},
		{statusSettling, "settling", true, false, false},
		{statusReported, "reported", false, true, false},
		{statusReportedSettling, "reported, settling", true, true, false},
		{statusBlocked, "blocked", false, true, true},
		{fileStatus(99), "fileStatus(99)", false, false, false},
	} {
		if c.st.String() != c.name || c.st.settling() != c.settling ||
			c.st.reported() != c.reported || c.st.blocked() != c.blocked {
			t.Errorf("%d: %q settling=%v reported=%v blocked=%v, want %q %v %v %v", int(c.st),
				c.st, c.st.settling(), c.st.reported(), c.st.blocked(),
				c.name, c.settling, c.reported, c.blocked)
		}
	}
}
