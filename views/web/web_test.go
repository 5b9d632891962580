package web

import (
	"os"
	"path/filepath"
	"testing"

	"askuser/views/panecore"
)

// Agent text reaches the page cleaned, as the terminal pane shows it, and
// the core's view (whose slices later views share) is left as it was.
func TestViewCleans(t *testing.T) {
	q := panecore.QuestionView{Question: "rm \u202Egnp.exe?\nsure", Options: []panecore.OptionView{{Label: "<b>x</b>\x07", Preview: "a\x1b[31mb\nc"}}}
	v := panecore.View{Requests: []panecore.RequestView{{Agent: "a\x1b[31mgent", Questions: []panecore.QuestionView{q}}}, Focus: 0,
		Input: &panecore.InputView{Text: "typed\x1b[2J"}}
	c := cleanView(v)
	got := c.Requests[0]
	if got.Agent != "agent" || got.Questions[0].Question != `rm \u202egnp.exe?`+"\nsure" || got.Questions[0].Options[0].Label != "<b>x</b>" ||
		got.Questions[0].Options[0].Preview != "ab\nc" || c.Input.Text != "typed" {
		t.Fatalf("cleanView = %+v, input %q", got, c.Input.Text)
	}
	// A request not on screen is only named.
	v2 := v
	v2.Requests = append([]panecore.RequestView{{ID: "other", Agent: "b\x07", Questions: []panecore.QuestionView{q, q}}}, v.Requests...)
	v2.Focus = 1
	c2 := cleanView(v2)
	if o := c2.Requests[0]; o.Agent != "b" || len(o.Questions) != 1 || o.Questions[0].Question != got.Questions[0].Question || o.Questions[0].Options != nil {
		t.Fatalf("a request not on screen: %+v", o)
	}
	if c2.Requests[1].Questions[0].Options[0].Preview != "ab\nc" {
		t.Fatalf("the request on screen: %+v", c2.Requests[1])
	}
	if v.Requests[0].Agent != "a\x1b[31mgent" || v.Requests[0].Questions[0].Options[0].Label != "<b>x</b>\x07" || v.Input.Text != "typed\x1b[2J" {
		t.Fatal("cleanView changed the core's view")
	}
}

func TestCheckListen(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:7341": true, "localhost:7341": true, "[::1]:7341": true, "127.0.0.2:1": true,
		"0.0.0.0:7341": false, ":7341": false, "[::]:7341": false, "192.168.1.5:7341": false, "example.com:80": false,
		"nonsense": false,
	} {
		if err := CheckListen(addr, false); (err == nil) != ok {
			t.Errorf("CheckListen(%q) = %v", addr, err)
		}
	}
	if err := CheckListen("0.0.0.0:7341", true); err != nil {
		t.Errorf("with TLS: %v", err)
	}
}

func TestServedHosts(t *testing.T) {
	h, err := servedHosts(Options{Listen: "127.0.0.1:7341", Hosts: []string{"Box.Tailnet.ts.net."}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"localhost:7341", "127.0.0.1:8080", "[::1]:7341", "box.tailnet.ts.net", "BOX.tailnet.ts.net:443"} {
		if !h[normHost(name)] {
			t.Errorf("%s is not served", name)
		}
	}
	for _, name := range []string{"evil.example", "evil.example:7341", "127.0.0.1.evil.example", ""} {
		if h[normHost(name)] {
			t.Errorf("%q is served", name)
		}
	}
}

// A session is signed with the secret: a new secret ends it, found by the
// file's path whatever happened to its directory meanwhile.
func TestSessionsEndWithTheSecret(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, SecretFile)
	s1, err := LoadSecret(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret file mode %v", fi.Mode())
	}
	if again, _ := LoadSecret(path); again != s1 {
		t.Fatal("LoadSecret made a new secret over an existing one")
	}
	k := &keyring{path: path}
	if _, err := k.reload(); err != nil {
		t.Fatal(err)
	}
	tok := k.newSession()
	id, ok := k.session(tok)
	if !ok || !k.matches(s1) || k.matches(s1[:len(s1)-1]) || k.matches("") {
		t.Fatal("the session or the secret does not check")
	}
	if _, ok := k.session(id + ".forged"); ok {
		t.Fatal("a forged token was taken")
	}
	if changed, _ := k.refresh(); changed {
		t.Fatal("refresh saw a change in a file nobody touched")
	}

	// The directory deleted: the secret held stays (nothing rotated it).
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if changed, _ := k.refresh(); changed {
		t.Fatal("a missing secret file counted as a new secret")
	}
	if _, ok := k.session(tok); !ok {
		t.Fatal("the session ended with the directory")
	}

	// Written back, and rotated: every session ends.
	if _, err := RotateSecret(path); err != nil {
		t.Fatal(err)
	}
	if changed, _ := k.refresh(); !changed {
		t.Fatal("refresh did not see the new secret")
	}
	if _, ok := k.session(tok); ok || k.matches(s1) {
		t.Fatal("a session (or the old secret) outlived the rotation")
	}
}
