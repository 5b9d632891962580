package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestExampleIsTheDefaults(t *testing.T) {
	data, err := os.ReadFile("../../config.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(data)
	if err != nil {
		t.Fatalf("config.example.toml does not parse: %v", err)
	}
	want := Default()
	got.Notify.Command, want.Notify.Command = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("config.example.toml differs from the defaults:\n got %+v\nwant %+v", got, want)
	}
	// A key missing from the example parses as its default too: check that
	// every key is written out, so the example documents them all.
	ct := reflect.TypeOf(Config{})
	for i := range ct.NumField() {
		table := ct.Field(i).Tag.Get("toml")
		if table == "" || table == "-" || ct.Field(i).Type.Kind() != reflect.Struct {
			continue
		}
		section := string(data)
		if _, after, ok := strings.Cut(section, "["+table+"]\n"); ok {
			section, _, _ = strings.Cut(after, "\n[")
		} else {
			t.Errorf("config.example.toml has no [%s] table", table)
			continue
		}
		ft := ct.Field(i).Type
		for j := range ft.NumField() {
			key, _, _ := strings.Cut(ft.Field(j).Tag.Get("toml"), ",")
			if key == "" || key == "-" {
				continue
			}
			if !strings.Contains("\n"+section, "\n"+key+" =") {
				t.Errorf("config.example.toml lacks %s.%s", table, key)
			}
		}
	}
}

func TestDefaults(t *testing.T) {
	c := Default()
	if c.Daemon.OrphanGrace.Duration != 10*time.Minute || c.Daemon.ResultRetention.Duration != 24*time.Hour {
		t.Errorf("durations: %+v", c.Daemon)
	}
	if c.Limits.MaxQuestionsHard != 16 || c.Limits.MaxOptionsHard != 64 || c.Limits.AnswerSoftLimit != 2000 ||
		c.Limits.MaxMessageBytes != 1048576 || c.Limits.MaxPending != 10000 {
		t.Errorf("limits: %+v", c.Limits)
	}
	if !c.UI.Bell {
		t.Error("ui.bell should default to true")
	}
	if c.UI.InputGuard.Duration != 400*time.Millisecond {
		t.Errorf("ui.input_guard = %v, want 400ms", c.UI.InputGuard)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"wrong type int", "[limits]\nmax_pending = \"lots\"\n", "line 2: limits.max_pending: must be an integer, got a string"},
		{"wrong type bool", "[ui]\nbell = 1\n", "line 2: ui.bell: must be a boolean"},
		{"input_guard as a number", "[ui]\ninput_guard = 400\n", "line 2: ui.input_guard: want a duration"},
		{"bad duration", "[daemon]\norphan_grace = \"soon\"\n", "line 2: daemon.orphan_grace: want a duration"},
		{"duration as a number", "[daemon]\nresult_retention = 5\n", "line 2: daemon.result_retention: want a duration"},
		{"command as a string", "[notify]\ncommand = \"notify-send\"\n", "line 2: notify.command: must be an array, got a string"},
		{"a table as a number", "daemon = 3\n", "line 1: daemon: must be a table, got an integer"},
		{"float for an integer", "[limits]\nmax_pending = 1.5\n", "line 2: limits.max_pending: must be an integer, got a float"},
		{"socket as a number", "[daemon]\nsocket = 3\n", "line 2: daemon.socket: must be a string, got an integer"},
		{"negative limit", "[limits]\nmax_pending = -1\n", "line 2: limits.max_pending: must be from 1 to 1000000, got -1"},
		{"message limit 2^63-1", "[limits]\nmax_message_bytes = 9223372036854775807\n", "line 2: limits.max_message_bytes: must be from 1024 to 67108864"},
		{"message limit 2^63", "[limits]\nmax_message_bytes = 9223372036854775808\n", "line 2"},
		{"zero options", "[limits]\n\nmax_options_hard = 0\n", "line 3: limits.max_options_hard: must be from 1 to 1000, got 0"},
		{"negative grace", "[daemon]\norphan_grace = \"-5m\"\n", "line 2: daemon.orphan_grace: must not be negative"},
		{"grace of two years", "[daemon]\norphan_grace = \"17520h\"\n", "line 2: daemon.orphan_grace: must be more than 0 and at most 8760h, got \"17520h0m0s\""},
		{"zero retention", "[daemon]\nresult_retention = \"0s\"\n", "line 2: daemon.result_retention: must be more than 0"},
		{"guard too long", "[ui]\ninput_guard = \"1h\"\n", "line 2: ui.input_guard: must be at least 0s and at most 10s"},
		{"sync interval", "[daemon]\nsync_interval = \"2s\"\n", "line 2: daemon.sync_interval: must be more than 0 and at most 1s"},
		{"syntax", "[daemon\n", "to end table name"},
		// The unclosed table is on line 1, where the newline that ends it is.
		{"unclosed table", "[ui\nbell = true\n", "line 1: expected '.' or ']' to end table name, but got the end of the line instead"},
		{"unclosed table, no newline", "bell = true\n[ui", "line 2: expected '.' or ']' to end table name, but got the end of the file instead"},
		// A bad duration's example is of the key's own scale: its default.
		{"guard without a unit", "[ui]\ninput_guard = \"400\"\n", `line 2: ui.input_guard: want a duration like "400ms", got "400"`},
		{"sync interval without a unit", "[daemon]\nsync_interval = \"abc\"\n", `line 2: daemon.sync_interval: want a duration like "10ms", got "abc"`},
		{"retention in words", "[daemon]\nresult_retention = \"a day\"\n", `line 2: daemon.result_retention: want a duration like "24h", got "a day"`},
		{"grace in words", "[daemon]\norphan_grace = \"soon\"\n", `line 2: daemon.orphan_grace: want a duration like "10m", got "soon"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// An unknown key is a warning that names it and its line, never an error:
// a typo in a pane setting must not switch askuser off for every agent
// (docs/contract.md §9). The rest of the file still applies.
func TestUnknownKeysWarn(t *testing.T) {
	cases := []struct {
		name, text string
		want       []string
	}{
		{"unknown key", "[daemon]\nsockt = \"x\"\n", []string{"line 2: daemon.sockt: unknown key, ignored; did you mean daemon.socket?"}},
		{"unknown table", "[daemon]\n\n[foo]\na = 1\nb = 2\n", []string{"line 3: foo: unknown key, ignored"}},
		{"a key above its table", "bell = false\n\n[ui]\ninput_guard = \"1s\"\n", []string{"line 1: bell: unknown key, ignored; did you mean ui.bell, under [ui]?"}},
		{"a key under another table", "[web]\nbell = false\n", []string{"line 2: web.bell: unknown key, ignored; did you mean ui.bell, under [ui]?"}},
		{"a typo in a pane key", "[limits]\nmax_pending = 5\n\n[ui]\ninput_gaurd = \"1s\"\nbell = false\n", []string{"line 5: ui.input_gaurd: unknown key, ignored; did you mean ui.input_guard?"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse([]byte(c.text))
			if err != nil {
				t.Fatalf("an unknown key is an error: %v", err)
			}
			if strings.Join(cfg.Warnings, "|") != strings.Join(c.want, "|") {
				t.Errorf("warnings %q, want %q", cfg.Warnings, c.want)
			}
		})
	}
	cfg, _ := Parse([]byte("[limits]\nmax_pending = 5\n\n[ui]\ninput_gaurd = \"1s\"\nbell = false\n"))
	if cfg.Limits.MaxPending != 5 || cfg.UI.Bell {
		t.Errorf("the known keys beside an unknown one were not applied: %+v", cfg)
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte("[ui]\nbel = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path)
	if err != nil || len(cfg.Warnings) != 1 || cfg.Warnings[0] != "config "+path+": line 2: ui.bel: unknown key, ignored; did you mean ui.bell?" {
		t.Errorf("Load: %v, warnings %q", err, cfg.Warnings)
	}
}

func TestPaths(t *testing.T) {
	t.Setenv("ASKUSER_SOCKET", "")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/7")
	t.Setenv("XDG_STATE_HOME", "/st")
	c := Default()
	if got := c.SocketPath(""); got != "/run/user/7/askuser/askuserd.sock" {
		t.Errorf("socket: %s", got)
	}
	if got := c.SocketPath("/x.sock"); got != "/x.sock" {
		t.Errorf("flag: %s", got)
	}
	t.Setenv("ASKUSER_SOCKET", "/env.sock")
	if got := c.SocketPath(""); got != "/env.sock" {
		t.Errorf("env: %s", got)
	}
	t.Setenv("ASKUSER_SOCKET", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", "/somewhere/else")
	if got, want := c.SocketPath(""), fmt.Sprintf("/tmp/askuser-%d/askuserd.sock", os.Getuid()); got != want {
		t.Errorf("fallback: %s", got)
	}
	if got := c.PendingFilePath(); got != "/st/askuser/pending-questions.json" {
		t.Errorf("pending file: %s", got)
	}
}

func TestLoadMissing(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if _, err := Load(""); err != nil {
		t.Errorf("missing default config should be fine: %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "nope.toml")); err == nil {
		t.Error("a missing --config file should be an error")
	}
}

// A FIFO at config.toml, the default one or one named with --config, is
// refused at once, never opened (reading it would wait for a writer for
// good); a symlink to a regular file is read.
func TestLoadRefusesAFIFO(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	path := filepath.Join(home, "askuser", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	want := "config: " + path + " is a FIFO, not a regular file; askuser reads its config only from a regular file"
	for _, arg := range []string{"", path} {
		if _, err := Load(arg); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Load(%q): %v; want %q", arg, err, want)
		}
	}
	real := filepath.Join(home, "dotfiles.toml")
	if err := os.WriteFile(real, []byte("[ui]\nbell = false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "link.toml")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if cfg, err := Load(link); err != nil || cfg.UI.Bell {
		t.Errorf("a config linked to a regular file: %+v, %v", cfg.UI, err)
	}
}
