package main

import (
	"io"
	"slices"
	"strings"
	"testing"
)

func TestParseArgsInterleaved(t *testing.T) {
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
		fs := newFlags("t", "t", io.Discard)
		format := fs.String("format", "json", "")
		yes := fs.Bool("yes", false, "")
		pos, code := parseArgs(fs, c.args, io.Discard)
		if code != nil {
			t.Fatalf("%v: exit %d", c.args, *code)
		}
		if !slices.Equal(pos, c.pos) || *format != c.fmt || *yes != c.yes {
			t.Errorf("%v: positionals %q format %q yes %v", c.args, pos, *format, *yes)
		}
	}
}

// Help asked for goes to stdout with exit 0; a usage error to stderr, exit 2.
func TestParseArgsHelpAndUsageErrors(t *testing.T) {
	var stdout, stderr strings.Builder
	fs := newFlags("t", "t SYNOPSIS", &stderr)
	fs.Bool("yes", false, "")
	if _, code := parseArgs(fs, []string{"-h"}, &stdout); code == nil || *code != exitOK {
		t.Errorf("-h should end with exit 0")
	}
	if !strings.Contains(stdout.String(), "usage: askuser-client t SYNOPSIS") || !strings.Contains(stdout.String(), "-yes") || stderr.Len() != 0 {
		t.Errorf("-h: stdout %q, stderr %q; want the usage on stdout", stdout.String(), stderr.String())
	}
	stdout.Reset()
	if _, code := parseArgs(fs, []string{"--nope"}, &stdout); code == nil || *code != exitUsage {
		t.Errorf("an unknown flag should end with exit 2")
	}
	// The one line that says what is wrong, and where help is: not the
	// whole usage, which would bury the line.
	if want := "flag provided but not defined: -nope\nRun 'askuser-client t --help' for usage.\n"; stdout.Len() != 0 || stderr.String() != want {
		t.Errorf("--nope: stdout %q, stderr %q; want stderr %q", stdout.String(), stderr.String(), want)
	}
}
