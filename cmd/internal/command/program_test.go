package command

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// ran records what the test program's commands were run with.
type ran struct {
	cmd  string
	args []string
	opt  string
}

func testProgram(got *ran, withDefault bool) *Program {
	cmd := func(name string, args Args, result error) *Command {
		return &Command{
			Name:     name,
			Summary:  "the " + name + " command",
			Synopsis: strings.TrimSpace(name + " [--opt X]"),
			Args:     args,
			Setup: func(fs *flag.FlagSet) Run {
				opt := fs.String("opt", "", "an option")
				return func(a []string, s Streams) error {
					*got = ran{name, a, *opt}
					return result
				}
			},
		}
	}
	p := &Program{
		Name: "prog",
		Commands: []*Command{
			cmd("serve", NoArgs, nil),
			cmd("show", Args{1, 1, "request ID"}, nil),
			cmd("fail", AnyArgs, errors.New("it broke")),
			cmd("lost", NoArgs, fmt.Errorf("wrapped: %w", errLost)),
			cmd("said", NoArgs, Exit(3)),
			cmd("misused", NoArgs, Usagef("--opt needs a value")),
		},
		FailureCode: func(err error) int {
			if errors.Is(err, errLost) {
				return ExitUnreachable
			}
			return 0
		},
	}
	if withDefault {
		p.Default = cmd("", NoArgs, nil)
	}
	return p
}

var errLost = errors.New("connection lost")

func TestProgramRun(t *testing.T) {
	for _, c := range []struct {
		args        []string
		withDefault bool
		code        int
		ran         ran
		stdout      string // a prefix
		stderr      string // exactly
	}{
		{args: []string{"serve", "--opt", "x"}, ran: ran{"serve", nil, "x"}},
		{args: []string{"show", "id1", "--opt=y"}, ran: ran{"show", []string{"id1"}, "y"}},
		{args: []string{"fail", "a", "b"}, code: 1, ran: ran{"fail", []string{"a", "b"}, ""}, stderr: "prog fail: it broke\n"},
		{args: []string{"lost"}, code: 4, ran: ran{"lost", nil, ""}, stderr: "prog lost: wrapped: connection lost\n"},
		{args: []string{"said"}, code: 3, ran: ran{"said", nil, ""}},
		{args: []string{"misused"}, code: 2, ran: ran{"misused", nil, ""}, stderr: "prog misused: --opt needs a value\nRun 'prog misused --help' for usage.\n"},

		// Help asked for: on stdout, exit 0.
		{args: []string{"--help"}, stdout: "usage: prog COMMAND [ARGS]\n\ncommands:\n  serve    the serve command\n"},
		{args: []string{"help"}, stdout: "usage: prog COMMAND [ARGS]\n"},
		{args: []string{"-h"}, stdout: "usage: prog COMMAND [ARGS]\n"},
		{args: []string{"serve", "-h"}, stdout: "usage: prog serve [--opt X]\n\nflags:\n  -opt string\n"},
		{args: []string{"help", "serve"}, stdout: "usage: prog serve [--opt X]\n\nflags:\n  -opt string\n"},
		{args: []string{"help", "sevre"}, code: 2, stderr: "prog: unknown command \"sevre\"; did you mean \"serve\"?\nRun 'prog --help' for usage.\n"},
		{args: []string{"--help"}, withDefault: true, stdout: "usage: prog [--opt X]\n\nflags:\n  -opt string\n    \tan option\n\ncommands:\n"},

		// Mistakes: on stderr, exit 2.
		{args: nil, code: 2, stderr: "usage: prog COMMAND [ARGS]\n\ncommands:\n  serve    the serve command\n  show     the show command\n  fail     the fail command\n  lost     the lost command\n  said     the said command\n  misused  the misused command\n\nRun 'prog COMMAND -h' for a command's flags.\n"},
		{args: []string{"sevre"}, code: 2, stderr: "prog: unknown command \"sevre\"; did you mean \"serve\"?\nRun 'prog --help' for usage.\n"},
		{args: []string{"nope"}, withDefault: true, code: 2, stderr: "prog: unknown command \"nope\"\nRun 'prog --help' for usage.\n"},
		{args: []string{"serve", "--otp", "x"}, code: 2, stderr: "prog serve: unknown flag --otp; did you mean --opt?\nRun 'prog serve --help' for usage.\n"},
		{args: []string{"serve", "x"}, code: 2, stderr: "prog serve: serve takes no arguments\nRun 'prog serve --help' for usage.\n"},
		{args: []string{"show"}, code: 2, stderr: "prog show: want one request ID, got 0 arguments\nRun 'prog show --help' for usage.\n"},
		{args: []string{"--opt", "z", "stray"}, withDefault: true, code: 2, stderr: "prog: prog takes no arguments\nRun 'prog --help' for usage.\n"},

		// The default command: no arguments, or flags first.
		{args: nil, withDefault: true, ran: ran{"", nil, ""}},
		{args: []string{"--opt", "z"}, withDefault: true, ran: ran{"", nil, "z"}},
	} {
		var got ran
		var stdout, stderr strings.Builder
		code := testProgram(&got, c.withDefault).Run(c.args, Streams{strings.NewReader(""), &stdout, &stderr})
		if code != c.code || got.cmd != c.ran.cmd || !slices.Equal(got.args, c.ran.args) || got.opt != c.ran.opt {
			t.Errorf("%q: exit %d, ran %+v; want %d, %+v", c.args, code, got, c.code, c.ran)
		}
		if !strings.HasPrefix(stdout.String(), c.stdout) || (c.stdout == "") != (stdout.Len() == 0) {
			t.Errorf("%q: stdout %q, want it to begin %q", c.args, stdout.String(), c.stdout)
		}
		if stderr.String() != c.stderr {
			t.Errorf("%q: stderr %q, want %q", c.args, stderr.String(), c.stderr)
		}
	}
}

// A program with only a default command hands it every argument: there is
// no command to mistype.
func TestProgramWithoutCommands(t *testing.T) {
	var got ran
	p := testProgram(&got, true)
	p.Commands = nil
	p.Name = "wrapper prog"
	var stdout, stderr strings.Builder
	code := p.Run([]string{"stray"}, Streams{nil, &stdout, &stderr})
	if want := "wrapper prog: prog takes no arguments\nRun 'wrapper prog --help' for usage.\n"; code != 2 || stderr.String() != want {
		t.Errorf("exit %d, stderr %q; want 2, %q", code, stderr.String(), want)
	}
}

// NotRun hears of the help asked for and of a mistake, and not of a run.
func TestNotRun(t *testing.T) {
	for args, want := range map[string]string{"-h": "flag: help requested", "--nope": "flag provided but not defined: -nope", "x": "c takes no arguments", "": ""} {
		var heard string
		p := &Program{Name: "p", Commands: []*Command{{
			Name:   "c",
			Setup:  func(*flag.FlagSet) Run { return func([]string, Streams) error { return nil } },
			NotRun: func(err error) { heard = err.Error() },
		}}}
		var sink strings.Builder
		p.Run(append([]string{"c"}, strings.Fields(args)...), Streams{nil, &sink, &sink})
		if heard != want {
			t.Errorf("%q: NotRun heard %q, want %q", args, heard, want)
		}
	}
}
