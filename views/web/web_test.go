package web

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"askuser/socketproto"
)

func multi() *bool { t := true; return &t }

var (
	single = socketproto.Question{Question: "Which database?", Options: []socketproto.Option{{Label: "PostgreSQL"}, {Label: "SQLite"}}}
	many   = socketproto.Question{Question: "Which features?", MultiSelect: multi(), Options: []socketproto.Option{{Label: "Auth"}, {Label: "Billing"}}}
	free   = socketproto.Question{Question: "Name?"}
	count  = socketproto.Question{Question: "How many replicas?", Input: &socketproto.Input{Type: socketproto.InputInteger, Minimum: ptr(1.0), Maximum: ptr(10.0)}}
)

func ptr[T any](v T) *T { return &v }

// The page's answers become the drafts the terminal pane would write:
// the simplest form that means the same.
func TestWireDraft(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    socketproto.Question
		a    *pageAnswer
		want string
	}{
		{"cleared", single, nil, `null`},
		{"a label", single, &pageAnswer{Selected: []int{1}}, `"SQLite"`},
		{"other text", single, &pageAnswer{Other: true, Custom: "MySQL"}, `"MySQL"`},
		{"text like a label", single, &pageAnswer{Other: true, Custom: "sqlite"}, `{"custom":"sqlite","selected":[]}`},
		{"with a note", single, &pageAnswer{Selected: []int{0}, Notes: "keep it"}, `{"notes":"keep it","selected":["PostgreSQL"]}`},
		{"labels", many, &pageAnswer{Selected: []int{0, 1}}, `["Auth","Billing"]`},
		{"none of these", many, &pageAnswer{Selected: []int{}}, `[]`},
		{"free text", free, &pageAnswer{Custom: "orders"}, `"orders"`},
		{"free text emptied", free, &pageAnswer{Custom: ""}, `null`},
		{"typed", count, &pageAnswer{Custom: "7"}, `"7"`},
		{"typed, against its rule", count, &pageAnswer{Custom: "11"}, `{"custom":"11","selected":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := socketproto.Pending{Request: socketproto.Request{RequestID: "r", Questions: []socketproto.Question{tc.q}}}
			got, err := wireDraft(p, 0, tc.a)
			if err != nil || string(got) != tc.want {
				t.Fatalf("wireDraft = %s, %v; want %s", got, err, tc.want)
			}
			// And back: the page reads the draft it wrote as the same answer.
			if tc.a != nil && tc.want != "null" {
				back := draftForPage(tc.q, got)
				if back == nil || len(back.Selected) != len(tc.a.Selected) || back.Other != tc.a.Other || back.Notes != tc.a.Notes || back.Custom != tc.a.Custom {
					t.Fatalf("draftForPage(%s) = %+v, want %+v", got, back, tc.a)
				}
			}
		})
	}
}

// Nothing the page sends can name an option that is not there.
func TestWireAnswersRefusesWhatIsNotThere(t *testing.T) {
	p := socketproto.Pending{Request: socketproto.Request{RequestID: "r", Questions: []socketproto.Question{single}}}
	for _, as := range [][]*pageAnswer{
		{{Selected: []int{2}}},
		{{Selected: []int{-1}}},
		{{Selected: []int{0, 1}}},
		{{Selected: []int{}}},
		{},
		{{Selected: []int{0}}, {Selected: []int{0}}},
	} {
		if _, err := wireAnswers(p, as); err == nil {
			t.Errorf("wireAnswers(%+v) took it", as)
		}
	}
	got, err := wireAnswers(p, []*pageAnswer{{Selected: []int{1}, Notes: "n"}})
	if err != nil || string(got[0]) != `{"notes":"n","selected":["SQLite"]}` {
		t.Fatalf("wireAnswers = %s, %v", got, err)
	}
}

// Agent text reaches the page cleaned, as the terminal pane shows it.
func TestToPageCleans(t *testing.T) {
	p := socketproto.Pending{Request: socketproto.Request{RequestID: "r", Agent: &socketproto.Agent{Name: "a\x1b[31mgent"},
		Questions: []socketproto.Question{{Question: "rm \u202Egnp.exe?\nsure", Options: []socketproto.Option{{Label: "<b>x</b>\x07"}}}}},
		Draft: []json.RawMessage{json.RawMessage(`"<b>x</b>\u0007"`)}}
	r := toPage(p)
	if r.Agent != "agent" || r.Questions[0].Text != `rm \u202egnp.exe?`+"\nsure" || r.Questions[0].Options[0].Label != "<b>x</b>" {
		t.Fatalf("toPage = %+v", r)
	}
	if d := r.Questions[0].Draft; d == nil || len(d.Selected) != 1 || d.Selected[0] != 0 {
		t.Fatalf("the draft naming the raw label: %+v", d)
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
	if k.refresh() {
		t.Fatal("refresh saw a change in a file nobody touched")
	}

	// The directory deleted: the secret held stays (nothing rotated it).
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if k.refresh() {
		t.Fatal("a missing secret file counted as a new secret")
	}
	if _, ok := k.session(tok); !ok {
		t.Fatal("the session ended with the directory")
	}

	// Written back, and rotated: every session ends.
	if _, err := RotateSecret(path); err != nil {
		t.Fatal(err)
	}
	if !k.refresh() {
		t.Fatal("refresh did not see the new secret")
	}
	if _, ok := k.session(tok); ok || k.matches(s1) {
		t.Fatal("a session (or the old secret) outlived the rotation")
	}
}
