package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// acp-proxy wants the agent's command; --help says what it does.
func TestACPProxyUsage(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "none.sock")
	var out, errb bytes.Buffer
	if code := dispatch([]string{"acp-proxy", "--no-autostart", "--socket", sock}, strings.NewReader(""), &out, &errb); code != exitUsage ||
		!strings.Contains(errb.String(), "askuser-client acp-proxy -- AGENT") {
		t.Errorf("no command: exit %d, %q", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := dispatch([]string{"acp-proxy", "--help"}, strings.NewReader(""), &out, &errb); code != exitOK ||
		!strings.Contains(out.String()+errb.String(), "$/cancel_request") {
		t.Errorf("--help: exit %d, %q %q", code, out.String(), errb.String())
	}
}

// With no daemon to ask, the proxy is still the agent's relay: the editor
// answers alone, and the exit code is the agent's.
func TestACPProxyWithoutDaemon(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "none.sock")
	var out, errb bytes.Buffer
	in := `{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{}}` + "\n"
	code := dispatch([]string{"acp-proxy", "--no-autostart", "--socket", sock, "--", "sh", "-c", "cat; exit 5"}, strings.NewReader(in), &out, &errb)
	if code != 5 || out.String() != in {
		t.Errorf("exit %d, the editor got %q; stderr %q", code, out.String(), errb.String())
	}
}
