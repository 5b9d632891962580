package main

import (
	"strings"
	"testing"

	"askuser/cmd/internal/clientflags"
	"askuser/cmd/internal/command"
)

// run runs the program under name with its server replaced by one that
// records the options: parsing tested without a daemon or a client.
func run(name string, args ...string) (ran *options, code int, stdout, stderr string) {
	var out, errb strings.Builder
	p := program(name, func(_ string, o options, _ command.Streams) error { ran = &o; return nil })
	code = p.Run(args, command.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return ran, code, out.String(), errb.String()
}

func TestParse(t *testing.T) {
	o, code, _, stderr := run("askuser-mcp", "--socket", "/s", "--subagent", "--no-autostart")
	if code != 0 || o == nil || o.conn.Socket != "/s" || !o.subagent || !o.conn.NoAutostart || stderr != "" {
		t.Errorf("exit %d, options %+v, stderr %q", code, o, stderr)
	}
	o, code, _, _ = run("askuser-mcp")
	if code != 0 || o == nil || o.subagent {
		t.Errorf("no flags: exit %d, options %+v", code, o)
	}
}

// Mistakes name the program as the user ran it: askuser-client mcp when
// askuser-client ran it.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"askuser-mcp", []string{"stray"}, "askuser-mcp: askuser-mcp takes no arguments\nRun 'askuser-mcp --help' for usage.\n"},
		{clientflags.MCPViaClient, []string{"stray"}, "askuser-client mcp: mcp takes no arguments\nRun 'askuser-client mcp --help' for usage.\n"},
		{clientflags.MCPViaClient, []string{"--subagnet"}, "askuser-client mcp: unknown flag --subagnet; did you mean --subagent?\nRun 'askuser-client mcp --help' for usage.\n"},
	} {
		o, code, stdout, stderr := run(c.name, c.args...)
		if code != command.ExitUsage || o != nil || stdout != "" || stderr != c.want {
			t.Errorf("%s %q: exit %d, ran %v, stdout %q, stderr %q; want 2 and %q", c.name, c.args, code, o != nil, stdout, stderr, c.want)
		}
	}
}

func TestHelp(t *testing.T) {
	for name, want := range map[string]string{
		"askuser-mcp":            "usage: askuser-mcp [--socket PATH] [--config PATH] [--subagent] [--no-autostart]\n       askuser-client mcp [same flags]\n",
		clientflags.MCPViaClient: "usage: askuser-client mcp [--socket PATH] [--config PATH] [--subagent] [--no-autostart]\n       askuser-mcp [same flags]\n",
	} {
		for _, arg := range []string{"-h", "--help"} {
			o, code, stdout, stderr := run(name, arg)
			if code != 0 || o != nil || stderr != "" || !strings.HasPrefix(stdout, want) || !strings.Contains(stdout, "-no-autostart\n    \tdo not start askuserd when none answers: calls then fail with a tool error") {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q", name, arg, code, stdout, stderr)
			}
		}
	}
}
