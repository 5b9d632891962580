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
	var stdout, stderr strings.Builder
	if code := dispatch(nil, strings.NewReader(""), &stdout, &stderr); code != exitUsage || stdout.Len() != 0 || !strings.Contains(stderr.String(), "usage: askuser-client COMMAND") {
		t.Errorf("no command: exit %d, stdout %q, stderr %q; want 2 and the usage on stderr", code, stdout.String(), stderr.String())
	}
}

// A mistyped command gets one line, a guess when one is close, and where
// help is.
func TestUnknownCommand(t *testing.T) {
	for typed, want := range map[string]string{
		"aks":     "askuser-client: unknown command \"aks\"; did you mean \"ask\"?\n",
		"anwser":  "askuser-client: unknown command \"anwser\"; did you mean \"answer\"?\n",
		"histroy": "askuser-client: unknown command \"histroy\"; did you mean \"history\"?\n",
		"integ":   "askuser-client: unknown command \"integ\"; did you mean \"integrate\"?\n",
		"statsu":  "askuser-client: unknown command \"statsu\"; did you mean \"status\"?\n",
		"nope":    "askuser-client: unknown command \"nope\"\n",
		"x":       "askuser-client: unknown command \"x\"\n",
	} {
		var stdout, stderr strings.Builder
		code := dispatch([]string{typed}, strings.NewReader(""), &stdout, &stderr)
		want += "Run 'askuser-client --help' for usage.\n"
		if code != exitUsage || stdout.Len() != 0 || stderr.String() != want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", typed, code, stdout.String(), stderr.String(), want)
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

// A mistyped word after a command (a subcommand, an agent, a tool) gets
// the word most likely meant, as a mistyped command does.
func TestUnknownSubcommandGuesses(t *testing.T) {
	for args, want := range map[string]string{
		"rules revok":     `askuser-client rules: unknown subcommand "revok"; did you mean "revoke"?`,
		"rules xyzzy":     `askuser-client rules: unknown subcommand "xyzzy"; rules takes no argument, or revoke ID`,
		"integrate claud": `askuser-client integrate: unknown agent "claud"; did you mean "claude"?`,
		"integrate codx":  `askuser-client integrate: unknown agent "codx"; did you mean "codex"?`,
		"pending clera":   `askuser-client pending: unknown argument "clera"; did you mean "clear"?`,
		"schema ask_usr":  `askuser-client schema: unknown tool "ask_usr"; did you mean "ask_user"?`,
		"history -n abc":  `askuser-client history: -n: want a number, got "abc"`,
	} {
		var stdout, stderr strings.Builder
		code := dispatch(strings.Fields(args), strings.NewReader(""), &stdout, &stderr)
		want += "\nRun 'askuser-client " + strings.Fields(args)[0] + " --help' for usage.\n"
		if code != exitUsage || stdout.Len() != 0 || stderr.String() != want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", args, code, stdout.String(), stderr.String(), want)
		}
	}
}
