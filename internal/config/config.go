// Package config reads askuser's config.toml (docs/contract.md §9) and resolves the paths of
// docs/contract.md §2. Every key is optional; a wrong type or value is an error that names
// the key and its line; an unknown key (a typo, a key of a newer version) is a
// warning that names it, and is ignored. It knows nothing of the daemon's workings, so the
// pane and the client can read the same file.
package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"askuser/internal/didyoumean"
	"askuser/internal/statefile"
	"askuser/socketproto"
)

// Config is config.toml with its defaults applied.
type Config struct {
	Daemon Daemon             `toml:"daemon"`
	Limits socketproto.Limits `toml:"limits"`
	UI     UI                 `toml:"ui"`
	Notify Notify             `toml:"notify"`
	Web    Web                `toml:"web"`
	Rules  Rules              `toml:"rules"`

	// Path is the file this was read from; empty when none existed.
	Path string `toml:"-"`
	// Warnings name the keys that were ignored ("config PATH: line 3:
	// ui.input_gaurd: unknown key, ignored"). Every program says them where
	// its user looks (stderr, the daemon's log, a notice in the pane) and
	// carries on: a typo in a pane setting must not stop an agent's question.
	Warnings []string `toml:"-"`
}

type Daemon struct {
	Socket          string   `toml:"socket"`
	StateDir        string   `toml:"state_dir"`
	PendingFile     string   `toml:"pending_file"`
	OrphanGrace     Duration `toml:"orphan_grace"`
	ResultRetention Duration `toml:"result_retention"`
	// Sync is when the journal is fsynced: SyncBatch (in groups within
	// SyncInterval) or SyncAlways (every acknowledgement waits for it).
	Sync         string   `toml:"sync"`
	SyncInterval Duration `toml:"sync_interval"`
}

// Values of daemon.sync.
const (
	SyncBatch  = "batch"
	SyncAlways = "always"
)

type UI struct {
	Bell   bool   `toml:"bell"`
	Editor string `toml:"editor"`
	// InputGuard is how long keys that choose, submit, decline or confirm
	// are ignored after the question on screen changes (docs/contract.md §6), so that
	// keys typed for one request never answer the next.
	InputGuard Duration `toml:"input_guard"`
}

type Notify struct {
	Command []string `toml:"command"`
	// The policy (daemon/notify): nothing while the user touched a pane or
	// page within Idle; a request settled within Grace never notifies; one
	// reminder after Repeat (0: never).
	Idle   Duration `toml:"idle"`
	Grace  Duration `toml:"grace"`
	Repeat Duration `toml:"repeat"`
	// Ntfy is an ntfy topic's URL; NtfyToken its access token, if any.
	Ntfy      string `toml:"ntfy"`
	NtfyToken string `toml:"ntfy_token"`
}

// Web is the web pane's [web] table (askuserd web; docs/contract.md §12).
type Web struct {
	Listen  string `toml:"listen"`   // host:port
	TLSCert string `toml:"tls_cert"` // PEM; needed for any address but loopback
	TLSKey  string `toml:"tls_key"`
	// PublicURL is the page's address as a phone reaches it (e.g. the
	// https URL of tailscale serve): the click URL of ntfy's messages.
	PublicURL string `toml:"public_url"`
	// PushContact is the Web Push sender's contact (the VAPID "sub"): a
	// mailto: address or an https URL; when empty, the https address the
	// page is served at (web.public_url, or the one askuserd web
	// --tailscale kept). Apple's push service refuses a push without a
	// real one.
	PushContact string `toml:"push_contact"`
	// PushInsecureLoopback lets a Web Push endpoint be http://127.0.0.1
	// (a fake push service in tests); for tests only.
	PushInsecureLoopback bool `toml:"push_insecure_loopback"`
}

// Rules is the [rules] table: remembered decisions (docs/contract.md §13).
type Rules struct {
	// ProposeAfter is how many times the user must have allowed the same
	// input the same way before the next identical prompt marks its
	// "Allow, and remember" option with that count; 0 never does.
	ProposeAfter int `toml:"propose_after"`
	// Destructive lists commands that destroy what they touch: never
	// offered as a rule and never answered by one, whatever a rule says.
	Destructive []string `toml:"destructive"`
	// RunsPrograms lists programs, and options of programs, that run
	// another program (an interpreter, "find -exec", "git rebase -x"):
	// never offered and never answered by a rule either.
	RunsPrograms []string `toml:"runs_programs"`
}

// The entries of rules.destructive and rules.runs_programs are read as the
// program reads its arguments (daemon/rules/forms.go): the program (a
// trailing * matches any name it begins), then words its arguments must all
// include, each word a set of spellings split by "|". "-x" is that short
// flag, alone or inside a bundle ("-rf"); "--long" is the long option, with
// a value ("--long=v") or abbreviated as getopt allows ("--lo"); "-long" is
// a one-dash long option, also written "--long" (Go's flags); "+*" is any
// argument that begins with "+"; anything else is that word.

// checkFormEntry is what an entry of those lists must be: a program, then
// words whose spellings are not empty.
func checkFormEntry(e string) error {
	words := strings.Fields(e)
	if len(words) == 0 {
		return fmt.Errorf("an entry names a program, got %q", e)
	}
	if strings.HasPrefix(words[0], "-") || strings.Contains(words[0], "|") {
		return fmt.Errorf("an entry begins with the program (one name), got %q", e)
	}
	for _, w := range words[1:] {
		for _, alt := range strings.Split(w, "|") {
			if alt == "" || alt == "-" || alt == "*" {
				return fmt.Errorf("%q: %q is no spelling of an argument (split spellings with one |)", e, w)
			}
		}
	}
	return nil
}

// DefaultDestructive is rules.destructive when config.toml says nothing.
var DefaultDestructive = []string{
	"rm -r|-R|--recursive", "rm --no-preserve-root",
	"git push -f|--force|--force-with-lease|--force-if-includes|--mirror|-d|--delete|--prune",
	"git push +*", "git push :*",
	"git reset --hard|--merge|--keep", "git clean -f|--force", "git checkout --|-f|--force",
	"git branch -D", "git branch -d|--delete -f|--force", "git branch -M|-C", "git branch -m|--move|-c|--copy -f|--force",
	"git stash drop|clear", "git worktree remove|prune", "git update-ref -d|--delete",
	"sudo", "doas", "su", "pkexec", "runuser",
	"dd", "mkfs*", "shred", "truncate", "wipefs",
	"chmod -R|--recursive", "chown -R|--recursive", "chgrp -R|--recursive",
	"curl", "wget",
	"kill", "pkill", "killall",
	"find -delete",
}

// DefaultRunsPrograms is rules.runs_programs when config.toml says nothing.
var DefaultRunsPrograms = []string{
	"sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "busybox",
	"eval", "exec", "env", "xargs", "nohup", "timeout", "nice", "ionice", "chrt", "taskset", "command", "builtin",
	"source", ".", "watch", "entr", "parallel", "ssh", "script", "setsid", "stdbuf", "unbuffer", "time", "flock",
	"chroot", "unshare", "nsenter", "systemd-run", "at", "batch", "strace", "ltrace", "gdb", "lldb",
	"python", "python2", "python3", "pypy", "pypy3", "perl", "ruby", "node", "deno", "php", "lua", "Rscript",
	"tclsh", "ts-node", "tsx", "osascript", "npx", "bunx",
	"bun -e|--eval|-p|--print|x|exec", "npm exec|x", "pnpm dlx|exec", "yarn dlx|exec",
	"find -exec|-execdir|-ok|-okdir",
	"sed -e|--expression|-f|--file", "awk -f|--file", "gawk -f|--file",
	"git -c|--config-env|--exec-path", "git rebase -x|--exec", "git --upload-pack|--receive-pack|--exec",
	"git grep -O|--open-files-in-pager", "git difftool -x|--extcmd", "git bisect run", "git submodule foreach",
	"make -E|--eval", "tar -I|--use-compress-program|--to-command|--checkpoint-action|--info-script|-F|--new-volume-script|--rsh-command",
	"rg --pre", "rsync -e|--rsh|--rsync-path", "scp -S|-o", "go -exec|-toolexec",
	"docker run|exec", "podman run|exec", "kubectl exec",
}

// DefaultWebListen is web.listen when config.toml says nothing.
const DefaultWebListen = "127.0.0.1:7341"

// wantDuration begins the error of a value that is no duration; Parse adds
// an example of the key's scale ("400ms" for ui.input_guard, not "10m").
const wantDuration = "want a duration"

// durationExample is the key's default as config.toml writes it ("400ms",
// "10m", "24h"), or "" when the key is no duration with a default.
func durationExample(key string) string {
	d := Default()
	v, ok := map[string]time.Duration{
		"daemon.orphan_grace":     d.Daemon.OrphanGrace.Duration,
		"daemon.result_retention": d.Daemon.ResultRetention.Duration,
		"daemon.sync_interval":    d.Daemon.SyncInterval.Duration,
		"ui.input_guard":          d.UI.InputGuard.Duration,
		"notify.idle":             d.Notify.Idle.Duration,
		"notify.grace":            d.Notify.Grace.Duration,
		"notify.repeat":           d.Notify.Repeat.Duration,
	}[key]
	if !ok || v <= 0 {
		return ""
	}
	s := v.String()
	for _, zero := range []string{"m0s", "h0m"} {
		if strings.HasSuffix(s, zero) {
			s = strings.TrimSuffix(s, zero[1:])
		}
	}
	return s
}

// Duration is a time.Duration written as "10m" in TOML.
type Duration struct{ time.Duration }

func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		// Parse names an example of the key's own scale (its default).
		return fmt.Errorf("%s, got %q", wantDuration, b)
	}
	if v < 0 {
		return fmt.Errorf("must not be negative, got %q", b)
	}
	d.Duration = v
	return nil
}

func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Default is the configuration when config.toml says nothing.
func Default() Config {
	return Config{
		Daemon: Daemon{
			OrphanGrace:     Duration{10 * time.Minute},
			ResultRetention: Duration{24 * time.Hour},
			Sync:            SyncBatch,
			SyncInterval:    Duration{10 * time.Millisecond},
		},
		Limits: socketproto.DefaultLimits(),
		UI:     UI{Bell: true, InputGuard: Duration{400 * time.Millisecond}},
		Web:    Web{Listen: DefaultWebListen},
		Rules:  Rules{ProposeAfter: 3, Destructive: DefaultDestructive, RunsPrograms: DefaultRunsPrograms},
		Notify: Notify{Idle: Duration{60 * time.Second}, Grace: Duration{time.Second}, Repeat: Duration{10 * time.Minute}},
	}
}

// DefaultPath is $XDG_CONFIG_HOME/askuser/config.toml (~/.config by default).
func DefaultPath() string {
	base := os.Getenv("XDG_CONFIG_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "askuser", "config.toml")
}

// Load reads path (DefaultPath when empty). A missing file at the default path
// is not an error; a missing file named explicitly is.
func Load(path string) (Config, error) {
	explicit := path != ""
	if !explicit {
		path = DefaultPath()
	}
	// Through statefile: a FIFO at the path would block every program
	// that reads the config, for good. A symlink is followed (a config
	// kept in a dotfiles repository), to a regular file only.
	data, err := statefile.ReadFileFollow(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !explicit {
			return Default(), nil
		}
		var nr *statefile.NotRegularError
		if errors.As(err, &nr) {
			return Config{}, fmt.Errorf("config: %w; askuser reads its config only from a regular file, and leaves this one alone: remove it, or name another with --config", err)
		}
		return Config{}, fmt.Errorf("config: %w", err)
	}
	cfg, err := Parse(data)
	if err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	cfg.Path = path
	for i, w := range cfg.Warnings {
		cfg.Warnings[i] = "config " + path + ": " + w
	}
	return cfg, nil
}

// Parse reads config.toml's text over the defaults.
func Parse(data []byte) (Config, error) {
	cfg := Default()
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&cfg)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			key, msg, line := pe.LastKey, pe.Message, pe.Position.Line
			// A line that ends too soon ("[ui" unclosed) is reported by the
			// parser at the newline it stopped on, counted as the next
			// line's: the mistake is on the line the newline ends.
			if s := pe.Position.Start; s > 0 && s <= len(data) {
				line = 1 + bytes.Count(data[:s], []byte("\n"))
			}
			msg = strings.NewReplacer(`'\n'`, "the end of the line", `'\x00'`, "the end of the file").Replace(msg)
			if rest, ok := strings.CutPrefix(msg, wantDuration); ok {
				if ex := durationExample(key); ex != "" {
					msg = fmt.Sprintf("%s like %q%s", wantDuration, ex, rest)
				}
			}
			if key == "" {
				return Config{}, fmt.Errorf("line %d: %s", line, msg)
			}
			return Config{}, fmt.Errorf("line %d: %s: %s", line, key, msg)
		}
		if m := typeErrorPattern().FindStringSubmatch(err.Error()); m != nil {
			msg := m[3]
			if t := incompatiblePattern().FindStringSubmatch(msg); t != nil {
				msg = fmt.Sprintf("must be %s, got %s", article(t[2]), article(t[1]))
			} else if t := mismatchPattern().FindStringSubmatch(msg); t != nil {
				msg = fmt.Sprintf("must be %s, got %s", article(t[1]), article(t[2]))
			}
			return Config{}, fmt.Errorf("line %s: %s: %s", m[1], m[2], msg)
		}
		return Config{}, err
	}
	if err := cfg.check(); err != nil {
		var re *rangeError
		if errors.As(err, &re) {
			if line := lineOfKey(data, toml.Key(strings.Split(re.key, "."))); line > 0 {
				return Config{}, fmt.Errorf("line %d: %w", line, err)
			}
		}
		return Config{}, err
	}
	reported := map[string]bool{}
	for _, k := range md.Undecoded() {
		if len(k) > 1 && reported[k[:len(k)-1].String()] {
			continue // the unknown table was named already
		}
		reported[k.String()] = true
		w := fmt.Sprintf("line %d: %s: unknown key, ignored", lineOfKey(data, k), k.String())
		if guess := nearestKey(k); guess != "" {
			w += fmt.Sprintf("; did you mean %s?", guess)
		}
		cfg.Warnings = append(cfg.Warnings, w)
	}
	return cfg, nil
}

// Ranges of the numbers in config.toml (docs/contract.md §9: every number has a range).
// The upper bounds are far above any sensible setting and low enough that
// nothing computed from them overflows or asks for absurd memory.
const (
	maxQuestionsHardMost = 256
	maxOptionsHardMost   = 1000
	answerSoftLimitMost  = 1_000_000
	maxMessageBytesLeast = 1 << 10
	maxMessageBytesMost  = 64 << 20
	maxPendingMost       = 1_000_000
	longestDuration      = 365 * 24 * time.Hour
	longestInputGuard    = 10 * time.Second
)

// rangeError is a value out of its range; Parse adds the key's line.
type rangeError struct{ key, rule string }

func (e *rangeError) Error() string { return e.key + ": " + e.rule }

// check says the first value out of its range, in the file's order of
// sections: numbers, the rules' lists, durations, then addresses.
func (c Config) check() error {
	for _, part := range []func() error{c.checkNumbers, c.checkLists, c.checkDurations, c.checkAddresses} {
		if err := part(); err != nil {
			return err
		}
	}
	return nil
}

func (c Config) checkNumbers() error {
	ints := []struct {
		key       string
		v, lo, hi int
	}{
		{"limits.max_questions_hard", c.Limits.MaxQuestionsHard, 1, maxQuestionsHardMost},
		{"limits.max_options_hard", c.Limits.MaxOptionsHard, 1, maxOptionsHardMost},
		{"limits.answer_soft_limit", c.Limits.AnswerSoftLimit, 1, answerSoftLimitMost},
		{"limits.max_message_bytes", c.Limits.MaxMessageBytes, maxMessageBytesLeast, maxMessageBytesMost},
		{"limits.max_pending", c.Limits.MaxPending, 1, maxPendingMost},
		{"rules.propose_after", c.Rules.ProposeAfter, 0, 1000},
	}
	for _, n := range ints {
		if n.v < n.lo || n.v > n.hi {
			return &rangeError{n.key, fmt.Sprintf("must be from %d to %d, got %d", n.lo, n.hi, n.v)}
		}
	}
	return nil
}

func (c Config) checkLists() error {
	lists := []struct {
		key     string
		entries []string
	}{{"rules.destructive", c.Rules.Destructive}, {"rules.runs_programs", c.Rules.RunsPrograms}}
	for _, l := range lists {
		for i, e := range l.entries {
			if err := checkFormEntry(e); err != nil {
				return &rangeError{fmt.Sprintf("%s[%d]", l.key, i), err.Error()}
			}
		}
	}
	return nil
}

// checkDurations checks daemon.sync (how the journal is synced) and every
// duration.
func (c Config) checkDurations() error {
	if c.Daemon.Sync != SyncBatch && c.Daemon.Sync != SyncAlways {
		return &rangeError{"daemon.sync", fmt.Sprintf("must be %q or %q, got %q", SyncBatch, SyncAlways, c.Daemon.Sync)}
	}
	durations := []struct {
		key     string
		v       Duration
		zeroOK  bool
		longest time.Duration
		said    string // longest as config.toml would write it
	}{
		{"daemon.orphan_grace", c.Daemon.OrphanGrace, false, longestDuration, "8760h"},
		{"daemon.result_retention", c.Daemon.ResultRetention, false, longestDuration, "8760h"},
		{"daemon.sync_interval", c.Daemon.SyncInterval, false, time.Second, "1s"},
		{"ui.input_guard", c.UI.InputGuard, true, longestInputGuard, "10s"},
		{"notify.idle", c.Notify.Idle, true, 24 * time.Hour, "24h"},
		{"notify.grace", c.Notify.Grace, true, time.Minute, "1m"},
		{"notify.repeat", c.Notify.Repeat, true, longestDuration, "8760h"},
	}
	for _, d := range durations {
		low := "more than 0"
		if d.zeroOK {
			low = "at least 0s"
		}
		if d.v.Duration < 0 || (d.v.Duration == 0 && !d.zeroOK) || d.v.Duration > d.longest {
			return &rangeError{d.key, fmt.Sprintf("must be %s and at most %s, got %q", low, d.said, d.v.String())}
		}
	}
	return nil
}

func (c Config) checkAddresses() error {
	if c.Notify.Ntfy != "" {
		if u, err := url.Parse(c.Notify.Ntfy); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.Trim(u.Path, "/") == "" {
			return &rangeError{"notify.ntfy", fmt.Sprintf("must be a topic's URL, e.g. \"https://ntfy.sh/my-secret-topic\", got %q", c.Notify.Ntfy)}
		}
	}
	if c.Web.PushContact != "" {
		if err := CheckPushContact(c.Web.PushContact); err != nil {
			return &rangeError{"web.push_contact", err.Error()}
		}
	}
	if c.Web.PublicURL != "" {
		if u, err := url.Parse(c.Web.PublicURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return &rangeError{"web.public_url", fmt.Sprintf("must be an http or https URL, e.g. \"https://laptop.tail1234.ts.net\", got %q", c.Web.PublicURL)}
		}
	}
	return nil
}

var (
	// Compiled on first use: every askuser-client command loads the config,
	// and only a broken one needs these.
	typeErrorPattern    = lazyRegexp(`^toml: line (\d+) \(last key "([^"]+)"\): (.*)$`)
	incompatiblePattern = lazyRegexp(`TOML value has type (\S+); destination has type (\S+)`)
	mismatchPattern     = lazyRegexp(`type mismatch for \S+: expected (\S+) but found (\S+)`)
)

func article(t string) string {
	switch t {
	case "integer", "int64", "int":
		return "an integer"
	case "float64":
		return "a float"
	case "bool", "boolean":
		return "a boolean"
	case "array", "slice":
		return "an array" // TOML's word for a list like ["notify-send", "askuser"]
	case "string", "float", "table":
		return "a " + t
	}
	return t
}

var tableHeader = lazyRegexp(`^\s*\[+\s*([^\]]+?)\s*\]+`)

// lazyRegexp compiles expr the first time it is called.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// lineOfKey finds the line of a dotted key in the TOML text; BurntSushi/toml
// reports undecoded keys without positions. 0 when not found.
func lineOfKey(data []byte, k toml.Key) int {
	if len(k) == 0 {
		return 0
	}
	table := strings.Join(k[:len(k)-1], ".")
	last := k[len(k)-1]
	keyLine := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(last) + `"?\s*=`)
	current := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), len(data)+1)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := tableHeader().FindStringSubmatch(line); m != nil {
			current = m[1]
			if current == strings.Join(k, ".") {
				return n // an unknown table
			}
			continue
		}
		if current == table && keyLine.MatchString(line) {
			return n
		}
	}
	return 0
}

// nearestKey is the config key an unknown key most likely meant, among the
// keys of the same table (ui.bel: ui.bell), or the table an unknown table
// meant; "" when none is close.
func nearestKey(k toml.Key) string {
	t := reflect.TypeFor[Config]()
	for _, part := range k[:len(k)-1] {
		f, ok := fieldByTOML(t, part)
		if !ok || f.Type.Kind() != reflect.Struct {
			return ""
		}
		t = f.Type
	}
	var known []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); name != "" && name != "-" {
			known = append(known, name)
		}
	}
	guess := didyoumean.Nearest(k[len(k)-1], known)
	if guess == "" {
		return keyElsewhere(k)
	}
	return append(k[:len(k)-1:len(k)-1], guess).String()
}

// keyElsewhere names the one key of another table that an unknown key's
// last name is, with where it goes: `bell = true` written above every
// table, or under [web], meant ui.bell. "" when no table, or more than
// one, has it.
func keyElsewhere(k toml.Key) string {
	name := k[len(k)-1]
	var found []toml.Key
	var walk func(t reflect.Type, at toml.Key)
	walk = func(t reflect.Type, at toml.Key) {
		for i := range t.NumField() {
			tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
			if tag == "" || tag == "-" {
				continue
			}
			path := append(at[:len(at):len(at)], tag)
			if strings.EqualFold(tag, name) {
				found = append(found, path)
			}
			if t.Field(i).Type.Kind() == reflect.Struct {
				walk(t.Field(i).Type, path)
			}
		}
	}
	walk(reflect.TypeFor[Config](), nil)
	if len(found) != 1 || len(found[0]) < 2 {
		return ""
	}
	table := found[0][:len(found[0])-1]
	return fmt.Sprintf("%s, under [%s]", found[0].String(), table.String())
}

// fieldByTOML is the field of struct t whose toml tag is name.
func fieldByTOML(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); tag == name {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

// LoadWhere is Load for a program that needs only where the daemon is —
// its socket, its state dir, the pending file — and must work whatever
// else config.toml says: a client asking, listing or stopping. When the
// file does not load, those keys are read from it alone (when it is TOML
// at all), the rest are the defaults, and warning says so, for the caller
// to say once and go on.
func LoadWhere(path string) (cfg Config, warning string) {
	cfg, err := Load(path)
	if err == nil {
		return cfg, ""
	}
	cfg = Default()
	var where struct {
		Daemon struct {
			Socket      string `toml:"socket"`
			StateDir    string `toml:"state_dir"`
			PendingFile string `toml:"pending_file"`
		} `toml:"daemon"`
	}
	if path == "" {
		path = DefaultPath()
	}
	if data, rerr := statefile.ReadFileFollow(path); rerr == nil {
		if _, derr := toml.Decode(string(data), &where); derr == nil {
			cfg.Daemon.Socket, cfg.Daemon.StateDir, cfg.Daemon.PendingFile = where.Daemon.Socket, where.Daemon.StateDir, where.Daemon.PendingFile
			cfg.Path = path
			return cfg, err.Error() + "; only daemon.socket, daemon.state_dir and daemon.pending_file are read from it, the rest is the defaults"
		}
	}
	return cfg, err.Error() + "; it is not read at all: the daemon's socket and state dir are the defaults"
}
