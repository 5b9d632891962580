package command

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestParseAllInterleaved(t *testing.T) {
	cases := []struct {
		args []string
		pos  []string
		fmt  string
		yes  bool
	}{
		{[]string{"a", "--format", "text", "b"}, []string{"a", "b"}, "text", false},
		{[]string{"--yes", "clear"}, []string{"clear"}, "json", true},
		{[]string{"clear", "--yes"}, []string{"clear"}, "json", true},
		{[]string{"-", "--format=pi"}, []string{"-"}, "pi", false},
		{[]string{"id", "--", "--format", "-x"}, []string{"id", "--format", "-x"}, "json", false},
		{[]string{}, nil, "json", false},
	}
	for _, c := range cases {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		format := fs.String("format", "json", "")
		yes := fs.Bool("yes", false, "")
		pos, err := ParseAll(fs, c.args, io.Discard, "p t")
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if !slices.Equal(pos, c.pos) || *format != c.fmt || *yes != c.yes {
			t.Errorf("%v: positionals %q format %q yes %v", c.args, pos, *format, *yes)
		}
	}
}

// Help asked for goes to stdout; a mistake to stderr, as one line, the flag
// most likely meant and where help is: not the whole usage, which would
// bury the line.
func TestParseHelpAndMistakes(t *testing.T) {
	var stdout, stderr strings.Builder
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(&stderr)
	fs.Usage = func() { io.WriteString(fs.Output(), "usage: p t\n") }
	fs.Bool("multi", false, "")
	if err := Parse(fs, []string{"-h"}, &stdout, "p t"); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
	if stdout.String() != "usage: p t\n" || stderr.Len() != 0 {
		t.Errorf("-h: stdout %q, stderr %q; want the usage on stdout", stdout.String(), stderr.String())
	}
	stdout.Reset()
	if err := Parse(fs, []string{"--muti"}, &stdout, "p t"); err == nil {
		t.Error("--muti parsed")
	}
	want := "p t: unknown flag --muti; did you mean --multi?\nRun 'p t --help' for usage.\n"
	if stdout.Len() != 0 || stderr.String() != want {
		t.Errorf("--muti: stdout %q, stderr %q; want stderr %q", stdout.String(), stderr.String(), want)
	}
}

// Every parse mistake is one line in the command's voice, naming flags as
// they are written: --format, never the flag package's -format.
func TestParseMistakeLines(t *testing.T) {
	for args, want := range map[string]string{
		"--muti":                  "p t: unknown flag --muti; did you mean --multi?\n",
		"--zzzzzz":                "p t: unknown flag --zzzzzz\n",
		"--format":                "p t: --format needs a value\n",
		"-n x":                    "p t: -n: want a number, got \"x\"\n",
		"--n=abc":                 "p t: -n: want a number, got \"abc\"\n",
		"-n 99999999999999999999": "p t: -n: want a smaller number, got \"99999999999999999999\"\n",
		"--multi=mayb":            "p t: --multi: want true or false, got \"mayb\"\n",
		"--wait=soon":             "p t: --wait: want a duration like \"30s\", got \"soon\"\n",
		"-n":                      "p t: -n needs a value\n",
	} {
		var stdout, stderr strings.Builder
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(&stderr)
		fs.Bool("multi", false, "")
		fs.String("format", "json", "")
		fs.Int("n", 0, "")
		fs.Duration("wait", 0, "")
		if err := Parse(fs, strings.Fields(args), &stdout, "p t"); err == nil {
			t.Errorf("%s parsed", args)
		}
		if want += "Run 'p t --help' for usage.\n"; stderr.String() != want {
			t.Errorf("%s: stderr %q, want %q", args, stderr.String(), want)
		}
	}
}
