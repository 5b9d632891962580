package config

import (
	"slices"
	"testing"
	"time"
)

func TestChangedAndLive(t *testing.T) {
	a := Default()
	b := Default()
	b.Notify.Idle = Duration{time.Minute * 5}
	b.Rules.ProposeAfter = 9
	b.Daemon.Socket = "/tmp/x.sock"
	b.Limits.MaxMessageBytes = 2 << 20
	b.Limits.MaxPending = 5
	b.Rules.Destructive = append(slices.Clone(b.Rules.Destructive), "make deploy")
	got := Changed(a, b)
	want := []string{"daemon.socket", "limits.max_message_bytes", "limits.max_pending", "notify.idle", "rules.destructive", "rules.propose_after"}
	if !slices.Equal(got, want) {
		t.Fatalf("Changed: %q, want %q", got, want)
	}
	var live []string
	for _, k := range got {
		if Live(k) {
			live = append(live, k)
		}
	}
	if want := []string{"limits.max_pending", "notify.idle", "rules.destructive", "rules.propose_after"}; !slices.Equal(live, want) {
		t.Errorf("Live: %q, want %q", live, want)
	}
}
