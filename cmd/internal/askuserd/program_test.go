package askuserd

import (
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"askuser/cmd/internal/command"
)

// recorder is askuserd with every command's run replaced by one that
// records the options it was given: parsing tested without a daemon.
type recorder struct {
	ran  string
	opts any
}

func (r *recorder) program() *command.Program {
	return &command.Program{
		Name:    "askuserd",
		Default: newPaneCommand(func(o paneOptions, _ command.Streams) error { r.ran, r.opts = "pane", o; return nil }),
		Commands: []*command.Command{
			newServeCommand(func(o serveOptions, _ command.Streams) error { r.ran, r.opts = "serve", o; return nil }),
			newStopCommand(func(o stopOptions, _ command.Streams) error { r.ran, r.opts = "stop", o; return nil }),
			newWebCommand(func(o webOptions, _ command.Streams) error { r.ran, r.opts = "web", o; return nil }),
		},
	}
}

func run(t *testing.T, args ...string) (r *recorder, code int, stdout, stderr string) {
	t.Helper()
	r = &recorder{}
	var out, errb strings.Builder
	code = r.program().Run(args, command.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return r, code, out.String(), errb.String()
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		args []string
		ran  string
		opts any
	}{
		{nil, "pane", paneOptions{}},
		{[]string{"--split"}, "pane", paneOptions{split: true}},
		{[]string{"--demo", "--socket", "/s", "--config", "c.toml"}, "pane", paneOptions{socket: "/s", configPath: "c.toml", demo: true}},
		{[]string{"serve"}, "serve", serveOptions{logLevel: slog.LevelInfo}},
		{[]string{"serve", "--socket", "/s", "--log-level", "debug"}, "serve", serveOptions{socket: "/s", logLevel: slog.LevelDebug}},
		{[]string{"stop", "--config", "c.toml"}, "stop", stopOptions{configPath: "c.toml"}},
		{[]string{"web", "--url", "--public-url", "https://box.ts.net/"}, "web", webOptions{printURL: true, publicURL: "https://box.ts.net/"}},
		{[]string{"web", "--host", "a", "--host", "b", "--listen", "0.0.0.0:1", "--tls-cert", "c", "--tls-key", "k"}, "web",
			webOptions{hosts: hostList{"a", "b"}, listen: "0.0.0.0:1", tlsCert: "c", tlsKey: "k"}},
		{[]string{"web", "--rotate", "--tailscale"}, "web", webOptions{rotate: true, tailscale: true}},
		{[]string{"web", "--url", "--secret"}, "web", webOptions{printURL: true, withSecret: true}},
		{[]string{"web", "devices", "rename", "3f9a1c", "Work phone"}, "web", webOptions{args: []string{"devices", "rename", "3f9a1c", "Work phone"}}},
	} {
		r, code, stdout, stderr := run(t, c.args...)
		if code != 0 || r.ran != c.ran || !reflect.DeepEqual(r.opts, c.opts) || stdout != "" || stderr != "" {
			t.Errorf("%q: exit %d, ran %s with %+v, stdout %q, stderr %q; want %s with %+v", c.args, code, r.ran, r.opts, stdout, stderr, c.ran, c.opts)
		}
	}
}

// A mistake is said on stderr in a line or two, with the word most likely
// meant and where help is; nothing runs, and the exit is 2.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sevre"}, "askuserd: unknown command \"sevre\"; did you mean \"serve\"?\nRun 'askuserd --help' for usage.\n"},
		{[]string{"--splt"}, "askuserd: unknown flag --splt; did you mean --split?\nRun 'askuserd --help' for usage.\n"},
		{[]string{"--demo", "stray"}, "askuserd: askuserd takes no arguments\nRun 'askuserd --help' for usage.\n"},
		{[]string{"serve", "--sockt", "x"}, "askuserd serve: unknown flag --sockt; did you mean --socket?\nRun 'askuserd serve --help' for usage.\n"},
		{[]string{"serve", "--log-level", "loud"}, "askuserd serve: --log-level: want debug, info, warn or error, got \"loud\"\nRun 'askuserd serve --help' for usage.\n"},
		{[]string{"stop", "now"}, "askuserd stop: stop takes no arguments\nRun 'askuserd stop --help' for usage.\n"},
		{[]string{"web", "--rotat"}, "askuserd web: unknown flag --rotat; did you mean --rotate?\nRun 'askuserd web --help' for usage.\n"},
	} {
		r, code, stdout, stderr := run(t, c.args...)
		if code != 2 || r.ran != "" || stdout != "" || stderr != c.want {
			t.Errorf("%q: exit %d, ran %q, stdout %q, stderr %q; want 2 and %q", c.args, code, r.ran, stdout, stderr, c.want)
		}
	}
}

// Help asked for is the command's output: on stdout, exit 0, and it lists
// the flags and, for askuserd itself, the commands.
func TestHelp(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"usage: askuserd [--socket PATH]", "-split", "commands:\n  serve  the daemon alone", "  web    the web pane"}},
		{[]string{"help"}, []string{"usage: askuserd [--socket PATH]"}},
		{[]string{"--demo", "-h"}, []string{"usage: askuserd [--socket PATH]", "commands:"}},
		{[]string{"serve", "--help"}, []string{"usage: askuserd serve [--socket PATH]", "Logs go to stderr.", "flags:", "-log-level"}},
		{[]string{"stop", "-h"}, []string{"usage: askuserd stop [--socket PATH] [--config FILE]", "-socket"}},
		{[]string{"web", "-h"}, []string{"usage: askuserd web [--listen HOST:PORT]", "       askuserd web --rotate", "-public-url"}},
	} {
		r, code, stdout, stderr := run(t, c.args...)
		if code != 0 || r.ran != "" || stderr != "" {
			t.Errorf("%q: exit %d, ran %q, stderr %q", c.args, code, r.ran, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%q: help lacks %q:\n%s", c.args, w, stdout)
			}
		}
	}
}

// The commands' usage names the commands the program dispatches, and the
// program's table is the one main runs.
func TestProgramCommands(t *testing.T) {
	got, want := []string{}, []string{"serve", "stop", "web"}
	for _, c := range program().Commands {
		got = append(got, c.Name)
	}
	if !reflect.DeepEqual(got, want) || program().Default == nil {
		t.Errorf("askuserd's commands are %v (default %v), want %v and the pane", got, program().Default != nil, want)
	}
}
