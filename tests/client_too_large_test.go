package tests

import (
	"strings"
	"testing"
	"time"
)

// A request larger than limits.max_message_bytes is refused once, and the
// client stops: it does not take the daemon's close for a lost connection
// and send the request again and again (a hook asking permission to write a
// 2 MB file once spun the daemon at half a CPU).
func TestClientRequestTooLargeIsRefusedOnce(t *testing.T) {
	t.Parallel()
	e := NewEnv(t)
	e.StartDaemon()

	// A permission prompt whose Allow approves a 2 MB input (limits.max_message_bytes is 1 MiB): the
	// approved preview is held only to the message size.
	preview := strings.Repeat("0123456789abcdef", 2*1024*1024/16)
	req := `{"tool":"ask_user","questions":[{"question":"Write this file?","options":[` +
		`{"label":"Allow","preview":"` + preview + `","approvesPreview":true},{"label":"Deny"}]}]}`
	args := []string{"ask", "--no-autostart", "--format", "text", "-"}
	done := make(chan struct{})
	var out, errOut string
	var code int
	go func() {
		defer close(done)
		out, errOut, code = e.Client(req, args...)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		// Within the 30 s reconnect window the old client was still
		// resending; the refusal must end it long before.
		t.Fatalf("the client is still running 20 s after a too-large request; daemon log:\n%s", e.DaemonLog())
	}
	if code != 1 {
		t.Errorf("exit %d, want 1 (refused)\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "message_too_large") && !strings.Contains(errOut, "max_message_bytes") {
		t.Errorf("stderr does not say the request was too large:\n%s", errOut)
	}
}
