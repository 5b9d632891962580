package notify

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/tests/testdir"
)

// notify.command sees each notification as a coherent sequence: it begins
// with "added" (a request restored after a restart and reminded is added
// first), ASKUSER_TAG names the notification in every call, and
// ASKUSER_REQUEST_ID is a request the call is about: the first one the
// notification announces now, or, for "resolved", the one resolved last.
func TestCommandSequence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "calls")
	script := filepath.Join(dir, "notify.sh")
	body := "#!/bin/sh\nprintf '%s|%s|%s|%s\\n' \"$ASKUSER_EVENT\" \"$ASKUSER_TAG\" \"$ASKUSER_REQUEST_ID\" \"$ASKUSER_TITLE\" >> " + out + "\n"
	testdir.WriteExecutable(t, script, []byte(body), 0o700)
	c := &Command{Argv: []string{script}, Log: slog.New(slog.DiscardHandler)}
	from := func(id, name string) socketproto.Pending {
		p := pending(id)
		p.Agent = &socketproto.Agent{Name: name}
		return p
	}
	ctx := context.Background()
	c.Announce(ctx, Notice{Tag: "old", Kind: KindReminder, Requests: []socketproto.Pending{from("old", "bash")}})
	c.Announce(ctx, Notice{Tag: "b", Kind: KindNew, Requests: []socketproto.Pending{from("b", "bash"), from("c", "claude")}})
	c.Announce(ctx, Notice{Tag: "b", Kind: KindUpdate, Requests: []socketproto.Pending{from("c", "claude")}})
	c.Withdraw(ctx, Gone{Tag: "b", RequestID: "c", Outcome: socketproto.OutcomeAnswered})
	c.Announce(ctx, Notice{Tag: "old", Kind: KindReminder, Requests: []socketproto.Pending{from("old", "bash")}})
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"added|old|old|bash is still waiting",
		"added|b|b|2 agents are waiting",
		"updated|b|c|claude asks",
		"resolved|b|c|",
		"reminder|old|old|bash is still waiting",
	}, "\n") + "\n"
	if string(data) != want {
		t.Errorf("calls\n%s\nwant\n%s", data, want)
	}
}
