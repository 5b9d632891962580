package main

import (
	"strings"
	"testing"
)

// A command's help and its usage mistakes, through the shared runner: help
// on stdout with the synopsis and the flags, shared ones included; a
// mistake on stderr in one line with where help is, exit 2.
func TestCommandHelpAndUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"status", "-h"}, exitOK, "usage: askuser-client status [--json] [flags]\n\nExit 4 when no daemon answers.\n\nflags:\n", ""},
		{[]string{"history", "--help"}, exitOK, "usage: askuser-client history", ""},
		{[]string{"status", "--nope"}, exitUsage, "", "askuser-client status: unknown flag --nope\nRun 'askuser-client status --help' for usage.\n"},
		{[]string{"status", "--jsno"}, exitUsage, "", "askuser-client status: unknown flag --jsno; did you mean --json?\nRun 'askuser-client status --help' for usage.\n"},
		{[]string{"status", "extra"}, exitUsage, "", "askuser-client status: status takes no arguments\nRun 'askuser-client status --help' for usage.\n"},
		{[]string{"cancel"}, exitUsage, "", "askuser-client cancel: want one request ID, got 0 arguments\nRun 'askuser-client cancel --help' for usage.\n"},
		{[]string{"schema", "a", "b"}, exitUsage, "", "askuser-client schema: want at most one tool name, got 2 arguments\nRun 'askuser-client schema --help' for usage.\n"},
	} {
		var stdout, stderr strings.Builder
		code := dispatch(c.args, strings.NewReader(""), &stdout, &stderr)
		if code != c.code || !strings.HasPrefix(stdout.String(), c.stdout) || (c.stdout == "") != (stdout.Len() == 0) || stderr.String() != c.stderr {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, stdout beginning %q, stderr %q", c.args, code, stdout.String(), stderr.String(), c.code, c.stdout, c.stderr)
		}
	}
	// The connection flags are the shared ones, listed with the command's.
	var stdout strings.Builder
	dispatch([]string{"ask", "-h"}, strings.NewReader(""), &stdout, &stdout)
	for _, flag := range []string{"-socket", "-config", "-no-autostart", "-multi"} {
		if !strings.Contains(stdout.String(), flag) {
			t.Errorf("ask -h lacks %s:\n%s", flag, stdout.String())
		}
	}
}
