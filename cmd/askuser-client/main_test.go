package main

import (
	"slices"
	"strings"
	"testing"
)

func TestHelpGoesToStdout(t *testing.T) {
	for _, arg := range []string{"-h", "--help", "help"} {
		var stdout, stderr strings.Builder
		if code := dispatch([]string{arg}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Errorf("%s: exit %d, want 0", arg, code)
		}
		if !strings.HasPrefix(stdout.String(), "usage: askuser-client COMMAND") || stderr.Len() != 0 {
			t.Errorf("%s: stdout %q, stderr %q; want the usage on stdout", arg, stdout.String(), stderr.String())
		}
	}
	for _, args := range [][]string{nil, {"nope"}} {
		var stdout, stderr strings.Builder
		if code := dispatch(args, strings.NewReader(""), &stdout, &stderr); code != exitUsage {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if stdout.Len() != 0 || !strings.Contains(stderr.String(), "usage: askuser-client COMMAND") {
			t.Errorf("%q: stdout %q, stderr %q; want the usage on stderr", args, stdout.String(), stderr.String())
		}
	}
}

// Help lists the commands in the order of the table, which is alphabetical.
func TestCommandTableIsSorted(t *testing.T) {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	if !slices.IsSorted(names) {
		t.Errorf("commands are not in alphabetical order: %v", names)
	}
}
