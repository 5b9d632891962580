package main

import (
	"io"
	"slices"
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
		pos, code := parseArgs(fs, c.args)
		if code != nil {
			t.Fatalf("%v: exit %d", c.args, *code)
		}
		if !slices.Equal(pos, c.pos) || *format != c.fmt || *yes != c.yes {
			t.Errorf("%v: positionals %q format %q yes %v", c.args, pos, *format, *yes)
		}
	}
	fs := newFlags("t", "t", io.Discard)
	if _, code := parseArgs(fs, []string{"-h"}); code == nil || *code != exitOK {
		t.Errorf("-h should end with exit 0")
	}
	if _, code := parseArgs(fs, []string{"--nope"}); code == nil || *code != exitUsage {
		t.Errorf("an unknown flag should end with exit 2")
	}
}
