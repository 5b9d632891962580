package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"askuser/socketproto"
	"askuser/tests/testdaemon"
	"askuser/tests/testenv"
)

// saveConfig saves config.toml as editors do: a new file renamed over it.
func saveConfig(e *Env, text string) {
	e.T.Helper()
	path := filepath.Join(e.Config, "askuser", "config.toml")
	if err := os.WriteFile(path+".swp", []byte(text), 0o600); err != nil {
		e.T.Fatal(err)
	}
	if err := os.Rename(path+".swp", path); err != nil {
		e.T.Fatal(err)
	}
}

// config.toml changed while the daemon runs (docs/contract.md §9): good,
// then bad, then good. A good change applies what can change live and
// lists what waits for a restart; a bad one is refused whole, said in
// status and to the panes, and every client still works — it reads only
// where the daemon is — and askuserd stop still stops.
func TestConfigFollowedGoodBadGood(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.WriteConfig("[rules]\npropose_after = 3\n")
	e.StartDaemon()
	w := testenv.Watch(t, e)

	// Good: a live key, and one that waits for a restart.
	saveConfig(e, "[rules]\npropose_after = 5\n[notify]\nidle = \"5m\"\n[limits]\nmax_message_bytes = 2097152\n")
	ev := testdaemon.RecvType(t, w, "config_changed", testenv.ClientWait).(socketproto.ConfigChanged)
	if ev.Error != "" || strings.Join(ev.Restart, " ") != "limits.max_message_bytes" {
		t.Errorf("after a good save: %+v; want limits.max_message_bytes waiting for a restart", ev)
	}
	out, _, code := e.Client("", "status")
	if code != 0 || !strings.Contains(out, "config, at the next start:") || !strings.Contains(out, "limits.max_message_bytes") {
		t.Errorf("status after a good save: exit %d\n%s", code, out)
	}

	// Bad: refused whole; the daemon says so and keeps serving.
	saveConfig(e, "[ui]\ninput_guard = \"abc\"\n")
	ev = testdaemon.RecvType(t, w, "config_changed", testenv.ClientWait).(socketproto.ConfigChanged)
	if !strings.Contains(ev.Error, "ui.input_guard") {
		t.Errorf("after a bad save: %+v; want the error naming ui.input_guard", ev)
	}
	out, errOut, code := e.Client("", "status")
	if code != 0 || !strings.Contains(out, "config refused:") || !strings.Contains(errOut, "warning:") {
		t.Errorf("status with a bad config: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Count(errOut, "ui.input_guard") != 1 {
		t.Errorf("the client should warn once about the bad value:\n%s", errOut)
	}
	id, errOut, code := e.Client("", "ask", "--no-wait", "--question", "Still there?", "--option", "Yes", "--option", "No")
	if code != 0 {
		t.Fatalf("ask with a bad config: exit %d %s", code, errOut)
	}
	if _, errOut, code := e.Client("", "answer", strings.TrimSpace(id), "Yes"); code != 0 {
		t.Errorf("answer with a bad config: exit %d %s", code, errOut)
	}

	// Good again: the refusal is over; the restart list is as before.
	saveConfig(e, "[rules]\npropose_after = 5\n[limits]\nmax_message_bytes = 2097152\n")
	ev = testdaemon.RecvType(t, w, "config_changed", testenv.ClientWait).(socketproto.ConfigChanged)
	if ev.Error != "" {
		t.Errorf("after the good save: %+v", ev)
	}
	out, _, _ = e.Client("", "status")
	if strings.Contains(out, "config refused") {
		t.Errorf("status still says refused:\n%s", out)
	}

	// askuserd stop stops, whatever config.toml says.
	saveConfig(e, "[ui\n")
	testdaemon.RecvType(t, w, "config_changed", testenv.ClientWait)
	cmd := e.Daemon
	e.Daemon = nil
	out, errOut, code = testenv.RunAskuserdEnv(e, nil, "stop")
	if code != 0 || !strings.Contains(errOut, "stopped") {
		t.Errorf("askuserd stop with a config that does not parse: exit %d %s%s", code, out, errOut)
	}
	_ = cmd.Wait()
}
